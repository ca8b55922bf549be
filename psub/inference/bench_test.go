package inference

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// superpixelGraph is a stand-in for a superpixel adjacency graph: a 20×25
// jittered lattice with 4-neighbour edges plus a random subset of the
// diagonals, 500 nodes and 1500 edges.
func superpixelGraph(rng *rand.Rand) (int, [][2]int) {
	const w, h = 25, 20
	var edges, diag [][2]int
	id := func(x, y int) int { return y*w + x }
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if x+1 < w {
				edges = append(edges, [2]int{id(x, y), id(x+1, y)})
			}
			if y+1 < h {
				edges = append(edges, [2]int{id(x, y), id(x, y+1)})
			}
			if x+1 < w && y+1 < h {
				diag = append(diag, [2]int{id(x, y), id(x+1, y+1)}, [2]int{id(x+1, y), id(x, y+1)})
			}
		}
	}
	rng.Shuffle(len(diag), func(i, j int) { diag[i], diag[j] = diag[j], diag[i] })
	return w * h, append(edges, diag[:1500-len(edges)]...)
}

func gridGraph(w, h int) (int, [][2]int) {
	var edges [][2]int
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if x+1 < w {
				edges = append(edges, [2]int{y*w + x, y*w + x + 1})
			}
			if y+1 < h {
				edges = append(edges, [2]int{y*w + x, (y+1)*w + x})
			}
		}
	}
	return w * h, edges
}

// segmentationEnergy is a binary segmentation-like energy: N(0,1) unaries
// and attractive Potts terms with weight U(0,1), a fraction nonSub of the
// edges made repulsive instead.
func segmentationEnergy(rng *rand.Rand, n int, edges [][2]int, nonSub float64) *Energy {
	e := NewEnergy(n, 2, edges)
	for i := 0; i < n; i++ {
		e.Unary[2*i+1] = rng.NormFloat64()
	}
	for j := range edges {
		w := rng.Float64()
		t := e.Table(j)
		if rng.Float64() < nonSub {
			t[0], t[3] = w, w
		} else {
			t[1], t[2] = w, w
		}
	}
	return e
}

type benchGraph struct {
	name  string
	n     int
	edges [][2]int
}

func benchGraphs() []benchGraph {
	rng := rand.New(rand.NewPCG(100, 100))
	n1, e1 := superpixelGraph(rng)
	n2, e2 := gridGraph(256, 256)
	return []benchGraph{{"superpixel500", n1, e1}, {"grid256", n2, e2}}
}

func BenchmarkMethods(b *testing.B) {
	for _, g := range benchGraphs() {
		rng := rand.New(rand.NewPCG(101, 101))
		sub := segmentationEnergy(rng, g.n, g.edges, 0)
		mixed := segmentationEnergy(rng, g.n, g.edges, 0.1)
		for _, tc := range []struct {
			name string
			m    Method
			e    *Energy
		}{
			{"graphcut", GraphCut{}, sub},
			{"tgc/10%nonsub", TruncatedGraphCut{}, mixed},
			{"qpbo/submodular", QPBO{}, sub},
			{"qpbo/10%nonsub", QPBO{}, mixed},
			{"trws20/submodular", TRWS{MaxIter: 20}, sub},
			{"trws20/10%nonsub", TRWS{MaxIter: 20}, mixed},
		} {
			b.Run(g.name+"/"+tc.name, func(b *testing.B) {
				var r Result
				c0 := cpuSeconds()
				for b.Loop() {
					var err error
					if r, err = tc.m.Minimize(tc.e); err != nil {
						b.Fatal(err)
					}
				}
				reportCPU(b, c0)
				b.ReportMetric(float64(r.Unlabelled), "unlabelled")
			})
		}
	}
}

// BenchmarkRepeatedSolves is the SSVM pattern: the same graph solved over
// and over with changed costs. "fresh" calls the Method (new graph each
// time), "reused" keeps one Solver (graph reset and refilled), "dynamic"
// keeps one Solver with Dynamic set (flow and trees kept, changed
// capacities updated). In "all" every cost changes between solves (a new w);
// in "few" successive energies differ in about 2% of the unary costs.
func BenchmarkRepeatedSolves(b *testing.B) {
	for _, g := range benchGraphs() {
		rng := rand.New(rand.NewPCG(102, 102))
		var all, few []*Energy
		base := segmentationEnergy(rng, g.n, g.edges, 0.05)
		for k := 0; k < 8; k++ {
			all = append(all, segmentationEnergy(rng, g.n, g.edges, 0.05))
			v := &Energy{Labels: 2, Unary: append([]float64(nil), base.Unary...), Edges: base.Edges, Pairwise: base.Pairwise}
			for c := 0; c < g.n/100+1; c++ {
				v.Unary[2*rng.IntN(g.n)+1] = rng.NormFloat64()
			}
			few = append(few, v)
		}
		for _, sc := range []struct {
			name string
			es   []*Energy
		}{{"all", all}, {"few", few}} {
			for _, m := range []Method{TruncatedGraphCut{}, TruncatedGraphCut{Dynamic: true}, QPBO{}} {
				modes := []string{"fresh", "reused"}
				if tgc, ok := m.(TruncatedGraphCut); ok && tgc.Dynamic {
					modes = []string{"dynamic"}
				}
				for _, mode := range modes {
					b.Run(fmt.Sprintf("%s/%s/%s/%s", g.name, sc.name, m.Name(), mode), func(b *testing.B) {
						s := Solver(m)
						if mode != "fresh" {
							s = NewSolver(m)
						}
						k := 0
						c0 := cpuSeconds()
						for b.Loop() {
							if _, err := s.Minimize(sc.es[k%len(sc.es)]); err != nil {
								b.Fatal(err)
							}
							k++
						}
						reportCPU(b, c0)
					})
				}
			}
		}
	}
}

func BenchmarkMoves(b *testing.B) {
	rng := rand.New(rand.NewPCG(103, 103))
	n, edges := superpixelGraph(rng)
	e := pottsEnergy(rng, n, 5, edges)
	for _, m := range []Method{AlphaExpansion{}, AlphaBetaSwap{}, TRWS{MaxIter: 20}, ICM{}} {
		b.Run("superpixel500/potts5/"+m.Name(), func(b *testing.B) {
			c0 := cpuSeconds()
			for b.Loop() {
				if _, err := m.Minimize(e); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, c0)
		})
	}
}

// reportCPU adds the process CPU time per op since c0 as "cpu-ms/op".
func reportCPU(b *testing.B, c0 float64) {
	b.ReportMetric((cpuSeconds()-c0)*1e3/float64(b.N), "cpu-ms/op")
}
