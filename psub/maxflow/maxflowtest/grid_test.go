package maxflowtest

import (
	"math"
	"testing"
)

func TestGridMaxFlow(t *testing.T) {
	for _, tc := range []struct {
		name       string
		side       int
		seed       uint64
		nodes, arc int
	}{
		{"2x2", 2, 1, 4, 4},
		{"16x16", 16, 2, 256, 480},
		{"64x64", 64, 3, 4096, 8064},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGrid(tc.side, tc.seed)
			if g.Nodes() != tc.nodes || g.Edges() != tc.arc {
				t.Fatalf("%d nodes, %d edges; want %d, %d", g.Nodes(), g.Edges(), tc.nodes, tc.arc)
			}
			f := g.MaxFlow()
			// A feasible flow equal to a cut's capacity certifies both
			// optimal (weak duality).
			if cut := CutCapacity(g); math.Abs(f-cut) > 1e-9*math.Max(1, f) {
				t.Errorf("flow %g, cut %g", f, cut)
			}
			g.ResetCapacities()
			GridCapacities(g, tc.side, tc.seed)
			if f2 := g.MaxFlow(); f2 != f {
				t.Errorf("flow after reset %g, first %g", f2, f)
			}
		})
	}
}

// TestGridMinCutByEnumeration checks the 4×4 grid against every one of its
// 2¹⁶ cuts: the capacities it was built with go into a dense matrix over the
// nodes plus source and sink, and a cut S (holding the source) costs the sum
// of cap[u][v] over u in S, v outside. The flow is the smallest cut, and
// CutCapacity is the capacity of the cut found, which here crosses grid
// edges in both directions (so an edge counted the wrong way shows).
func TestGridMinCutByEnumeration(t *testing.T) {
	g := NewGrid(4, 1)
	n := g.Nodes()
	s, sink := n, n+1
	cap := make([][]float64, n+2)
	for i := range cap {
		cap[i] = make([]float64, n+2)
	}
	for i := range n {
		cap[s][i], cap[i][sink] = g.Terminal(i)
	}
	for e := range g.Edges() {
		i, j := g.EdgeNodes(e)
		c, r := g.Capacities(e)
		cap[i][j] += c
		cap[j][i] += r
	}
	best := math.Inf(1)
	for mask := range 1 << n {
		in := func(u int) bool { return u == s || (u < n && mask&(1<<u) != 0) }
		c := 0.0
		for u := range n + 2 {
			for v := range n + 2 {
				if in(u) && !in(v) {
					c += cap[u][v]
				}
			}
		}
		best = min(best, c)
	}
	f := g.MaxFlow()
	if math.Abs(f-best) > 1e-9*best {
		t.Errorf("max flow %g, smallest of the %d cuts %g", f, 1<<n, best)
	}
	if c := CutCapacity(g); math.Abs(c-best) > 1e-9*best {
		t.Errorf("CutCapacity %g, smallest cut %g", c, best)
	}
	fwd, back := 0, 0
	for e := range g.Edges() {
		i, j := g.EdgeNodes(e)
		switch a, b := g.InSourceSide(i), g.InSourceSide(j); {
		case a && !b:
			fwd++
		case !a && b:
			back++
		}
	}
	if fwd == 0 || back == 0 {
		t.Errorf("the cut crosses %d edges forwards and %d backwards; the check needs both", fwd, back)
	}
}
