package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/maxflow"
	"github.com/probably-submodular/crf/psub/qp"
)

// The live benchmarks of the benchmarks notebook: small, seeded workloads
// shaped like the recorded ones (psub/maxflow, psub/slic, psub/qp
// BENCHMARKS), so that the notebook can time them on the machine it runs on
// with testing.Benchmark.

// GridCapacities fills a side×side 4-connected segmentation grid as the
// max-flow benchmarks describe theirs: the unary difference of a node is +8
// inside a centred disc of radius 0.3·side and −8 outside, plus uniform
// noise in [−8, 8], and goes to the source or the sink arc by its sign;
// both directions of every edge get capacity 2 + U[0,1]. The graph must be
// new or reset (ResetCapacities) and, when new, is built with its nodes and
// edges; a reset graph keeps its edges and gets new capacities.
func GridCapacities(g *maxflow.Graph, side int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 256))
	fresh := g.Nodes() == 0
	if fresh {
		g.AddNodes(side * side)
	}
	c, r := float64(side-1)/2, 0.3*float64(side)
	e := 0
	for y := range side {
		for x := range side {
			i := y*side + x
			d := -8.0
			if math.Hypot(float64(x)-c, float64(y)-c) < r {
				d = 8
			}
			d += 16*rng.Float64() - 8
			src, snk := 0.0, 0.0
			if d > 0 {
				src = d
			} else {
				snk = -d
			}
			if fresh {
				g.AddTerminal(i, src, snk)
			} else {
				g.SetTerminal(i, src, snk)
			}
			for _, j := range []int{i + 1, i + side} {
				if (j == i+1 && x+1 == side) || j >= side*side {
					continue
				}
				cp, rv := 2+rng.Float64(), 2+rng.Float64()
				if fresh {
					g.AddEdge(i, j, cp, rv)
				} else {
					g.SetEdge(e, cp, rv)
				}
				e++
			}
		}
	}
}

// NewGrid builds the grid of GridCapacities.
func NewGrid(side int, seed uint64) *maxflow.Graph {
	g := maxflow.New(side*side, 2*side*(side-1))
	GridCapacities(g, side, seed)
	return g
}

// CutCapacity is the capacity of the cut that g's last MaxFlow found
// (source side = InSourceSide): terminal arcs of nodes on the wrong side
// plus edges from the source side to the sink side, read from the user
// capacities. It equals the flow (max-flow/min-cut), which tests check.
func CutCapacity(g *maxflow.Graph) float64 {
	cut := 0.0
	for i := range g.Nodes() {
		s, t := g.Terminal(i)
		if g.InSourceSide(i) {
			cut += t
		} else {
			cut += s
		}
	}
	for e := range g.Edges() {
		i, j := g.EdgeNodes(e)
		cp, rv := g.Capacities(e)
		switch a, b := g.InSourceSide(i), g.InSourceSide(j); {
		case a && !b:
			cut += cp
		case !a && b:
			cut += rv
		}
	}
	return cut
}

// UpscaleBilinear resizes a 2-D volume to w×h (pixel centres aligned,
// bilinear) and rounds to 8 bits, as the SLIC benchmark does with the
// first cow photograph to obtain its 1024×768 test image.
func UpscaleBilinear(v *imageio.Volume, w, h int) (*imageio.Volume, error) {
	if v.Depth != 1 || v.Width < 1 || v.Height < 1 || w < 1 || h < 1 {
		return nil, fmt.Errorf("upscale: need a non-empty 2-D image and size, got %d×%d×%d to %d×%d", v.Width, v.Height, v.Depth, w, h)
	}
	out := imageio.NewVolume(w, h, 1, v.Channels)
	for y := range h {
		fy := max((float64(y)+0.5)*float64(v.Height)/float64(h)-0.5, 0)
		y0 := min(int(fy), v.Height-1)
		y1, ty := min(y0+1, v.Height-1), float32(fy-float64(y0))
		for x := range w {
			fx := max((float64(x)+0.5)*float64(v.Width)/float64(w)-0.5, 0)
			x0 := min(int(fx), v.Width-1)
			x1, tx := min(x0+1, v.Width-1), float32(fx-float64(x0))
			for c := range v.Channels {
				p := func(x, y int) float32 { return v.Pix[v.Index(x, y, 0)+c] }
				top := p(x0, y0)*(1-tx) + p(x1, y0)*tx
				bot := p(x0, y1)*(1-tx) + p(x1, y1)*tx
				out.Pix[out.Index(x, y, 0)+c] = float32(uint8(min(max(top*(1-ty)+bot*ty+0.5, 0), 255)))
			}
		}
	}
	return out, nil
}

// QPSequence solves the SSVM's sequence of warm-started QPs on a seeded
// problem of the cows model's size (dim = 2·unary + 4·pairwise): planes
// cutting planes are added one at a time, every tenth with five hard rows
// (b_j ⊗ p_i with p ≥ 0 on the pairwise block), each followed by a solve,
// as the learner does. It returns the last solution and the total number
// of solver sweeps.
func QPSequence(unary, pairwise, planes int, c float64, seed uint64) (qp.Solution, int, error) {
	dim := 2*unary + 4*pairwise
	s, err := qp.New(dim, c)
	if err != nil {
		return qp.Solution{}, 0, err
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	var sol qp.Solution
	sweeps := 0
	for it := range planes {
		// A cutting plane: the mean ψ difference (small, dense) and the
		// mean loss b > 0, shrinking as the loss-augmented labelling
		// approaches the truth.
		a := make([]float64, dim)
		for i := range a {
			a[i] = 0.003 * rng.NormFloat64()
		}
		s.AddPlane(a, 0.5*(0.2+rng.Float64())/math.Sqrt(float64(it+1)))
		if it%10 == 9 {
			for range 5 {
				// b = (1,0,0,1) − (0,1,1,0) over (aa, ab, ba, bb) ⊗ p.
				g := make([]float64, dim)
				for k := range pairwise {
					p := rng.ExpFloat64()
					base := 2 * unary
					g[base+k], g[base+3*pairwise+k] = p, p
					g[base+pairwise+k], g[base+2*pairwise+k] = -p, -p
				}
				s.AddRow(g)
			}
		}
		if sol, err = s.Solve(qp.Options{Tol: 1e-6}); err != nil {
			return sol, sweeps, fmt.Errorf("QP solve %d: %w", it+1, err)
		}
		sweeps += sol.Iterations
	}
	return sol, sweeps, nil
}
