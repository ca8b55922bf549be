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

// TestGridMinCutByEnumeration checks the 3×3 grid against every one of its
// 2⁹ cuts, read from the capacities the grid was built with: the flow is
// the smallest of them, and CutCapacity is the capacity of the cut found.
func TestGridMinCutByEnumeration(t *testing.T) {
	const side = 3
	g := NewGrid(side, 7)
	n := g.Nodes()
	best := math.Inf(1)
	for mask := range 1 << n {
		src := func(i int) bool { return mask&(1<<i) != 0 }
		c := 0.0
		for i := range n {
			s, t := g.Terminal(i)
			if src(i) {
				c += t
			} else {
				c += s
			}
		}
		for e := range g.Edges() {
			i, j := g.EdgeNodes(e)
			cp, rv := g.Capacities(e)
			if src(i) && !src(j) {
				c += cp
			} else if !src(i) && src(j) {
				c += rv
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
}
