package maxflowtest

import (
	"math"
	"math/rand/v2"

	"github.com/probably-submodular/crf/psub/maxflow"
)

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
