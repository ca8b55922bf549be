package maxflow

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAddEdgesLaysOut: AddEdges given a graph's first edges, all or more
// than half of New's edgeHint, after some terminal capacity, lays their
// arcs out itself (addEdgesLaidOut), and the layout is the one the solve
// makes from edges added one at a time: the same start array and arcs, so
// the same flows bit for bit (checked against Edmonds–Karp too). A first
// batch of at most half the hint, or before any terminal capacity, is
// recorded only. A bad edge found in either pass
// (bad ends in the counting pass, a bad capacity in the placing one)
// leaves the graph as it was, degrees included, and the edges added then
// are laid out as usual.
func TestAddEdgesLaysOut(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 0))
	for rep := range 300 {
		in := randomInstance(r, 2+r.IntN(30), 1+r.IntN(90), fracCaps)
		ends := edgesOf(in)
		m := len(ends)
		what := fmt.Sprintf("rep %d", rep)
		single := in.build()
		single.Prepare()
		hint := m
		switch rep % 3 {
		case 1:
			hint = 0 // the zero Graph's
		case 2:
			hint = 2*m - 1 // overestimated, but the batch is still more than half
		}
		g := New(in.n, hint)
		g.AddNodes(in.n)
		g.AddTerminals(0, in.src, in.sink)
		if rep%5 == 0 { // a bad edge first: rejected, nothing changed
			bad := slices.Clone(ends)
			caps := slices.Clone(in.cap)
			if k := r.IntN(m); rep%2 == 0 {
				bad[k] = [2]int{bad[k][0], bad[k][0]} // found by the counting pass
			} else {
				caps[k] = -1 // by the placing pass
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Fatalf("%s: bad edge accepted", what)
					}
				}()
				g.AddEdges(bad, caps, in.rev)
			}()
			if g.Edges() != 0 || g.spec || g.laidOut() && g.Nodes() > 0 {
				t.Fatalf("%s: after a rejected batch: %d edges, spec %v, laid out %v", what, g.Edges(), g.spec, g.laidOut())
			}
			for i := range g.nodes {
				if g.nodes[i].deg != 0 && !g.degStale {
					t.Fatalf("%s: node %d: degree %d after a rejected batch", what, i, g.nodes[i].deg)
				}
			}
		}
		g.AddEdges(ends, in.cap, in.rev)
		if !g.spec || !g.degStale {
			t.Fatalf("%s: %d edges (hint %d) not laid out by AddEdges", what, m, hint)
		}
		g.Prepare()
		if !slices.Equal(g.start, single.start) || !slices.Equal(g.arcs, single.arcs) {
			t.Fatalf("%s: layout differs from that of edges added one at a time", what)
		}
		if s := g.checkLayout(); s != "" {
			t.Fatalf("%s: %s", what, s)
		}
		f, want := g.MaxFlow(), single.MaxFlow()
		if f != want {
			t.Fatalf("%s: flow %v, edges added one at a time %v", what, f, want)
		}
		checkSolved(t, what, in, g, f)
		g.countDegrees(m)
		for i := range g.nodes {
			if g.nodes[i].deg != single.nodes[i].deg {
				t.Fatalf("%s: node %d: degree %d, want %d", what, i, g.nodes[i].deg, single.nodes[i].deg)
			}
		}
		// No terminal capacity yet: recorded, laid out by the solve.
		h := New(in.n, m)
		h.AddNodes(in.n)
		h.AddEdges(ends, in.cap, in.rev)
		if h.spec {
			t.Fatalf("%s: edges of a graph without terminal capacity laid out at once", what)
		}
		h.AddTerminals(0, in.src, in.sink)
		if f := h.MaxFlow(); f != want {
			t.Fatalf("%s: terminals after the edges: flow %v, want %v", what, f, want)
		}
		// Half the hint or less: recorded, laid out by the solve.
		if m >= 2 {
			h := New(in.n, m)
			h.AddNodes(in.n)
			h.AddTerminals(0, in.src, in.sink)
			h.AddEdges(ends[:m/2], in.cap[:m/2], in.rev[:m/2])
			if h.spec {
				t.Fatalf("%s: %d edges of a hint of %d laid out at once", what, m/2, m)
			}
			h.AddEdges(ends[m/2:], in.cap[m/2:], in.rev[m/2:])
			if f := h.MaxFlow(); f != want {
				t.Fatalf("%s: in two batches: flow %v, want %v", what, f, want)
			}
		}
	}
}
