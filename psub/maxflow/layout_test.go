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

// TestEdgeNodesInEveryForm: an edge's record holds its ends until it is
// laid out and its arcs after (edgeRec), and EdgeNodes, Capacities and
// Graph.Problem give the ends and capacities as added in every state a
// graph passes through: edges added one at a time, laid out by the solve,
// by AddEdges itself, written into the layout kept by Clear or Release
// (the same edges, then the first ones only, then one more), edges added
// after a solve and SetEdge/UpdateEdge on both kinds.
func TestEdgeNodesInEveryForm(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 0))
	for rep := range 200 {
		in := randomInstance(r, 3+r.IntN(20), 2+r.IntN(60), fracCaps)
		ends := edgesOf(in)
		m := len(ends)
		check := func(g *Graph, what string, ends [][2]int, caps, revs []float64) {
			t.Helper()
			if g.Edges() != len(ends) {
				t.Fatalf("rep %d, %s: %d edges, want %d", rep, what, g.Edges(), len(ends))
			}
			p, err := g.Problem()
			if err != nil {
				t.Fatalf("rep %d, %s: Problem: %v", rep, what, err)
			}
			tail := p.Arcs[len(p.Arcs)-2*len(ends):]
			for e, ij := range ends {
				i, j := g.EdgeNodes(e)
				c, rv := g.Capacities(e)
				if i != ij[0] || j != ij[1] || c != caps[e] || rv != revs[e] {
					t.Fatalf("rep %d, %s: edge %d: %d->%d (%g, %g), want %d->%d (%g, %g)", rep, what, e, i, j, c, rv, ij[0], ij[1], caps[e], revs[e])
				}
				if a, b := tail[2*e], tail[2*e+1]; a.From != ij[0] || a.To != ij[1] || a.Cap != caps[e] || b.From != ij[1] || b.To != ij[0] || b.Cap != revs[e] {
					t.Fatalf("rep %d, %s: Problem's edge %d: %v %v", rep, what, e, a, b)
				}
			}
		}
		g := in.build() // one at a time: ends in the records
		check(g, "added", ends, in.cap, in.rev)
		g.MaxFlow() // laid out by the solve: arcs
		check(g, "solved", ends, in.cap, in.rev)
		caps, revs := slices.Clone(in.cap), slices.Clone(in.rev)
		e := r.IntN(m)
		caps[e], revs[e] = 0.5, 0
		g.UpdateEdge(e, caps[e], revs[e])
		check(g, "updated", ends, caps, revs)
		g.MaxFlow()
		// Edges added after the solve: arcs below laid, ends above.
		more := append(slices.Clone(ends), [2]int{in.n - 1, 0}, [2]int{1, 2})
		mcaps, mrevs := append(slices.Clone(caps), 1, 0), append(slices.Clone(revs), 0, 2)
		g.AddEdges(more[m:], mcaps[m:], mrevs[m:])
		check(g, "added after the solve", more, mcaps, mrevs)
		g.SetEdge(m, 1.5, 0.25)
		mcaps[m], mrevs[m] = 1.5, 0.25
		check(g, "set before its layout", more, mcaps, mrevs)
		g.MaxFlow()
		check(g, "solved again", more, mcaps, mrevs)
		// Built again in the kept layout: written in place (Clear), or
		// laid out by AddEdges (Release, then other edges).
		g.Clear()
		bulkFill(g, in.n, in, more, mcaps, mrevs)
		if !g.spec {
			t.Fatalf("rep %d: not written in place after Clear", rep)
		}
		check(g, "in place", more, mcaps, mrevs)
		g.MaxFlow()
		check(g, "in place, solved", more, mcaps, mrevs)
		g.Clear()
		bulkFill(g, in.n, in, more[:m], mcaps[:m], mrevs[:m])
		check(g, "in place, fewer", more[:m], mcaps[:m], mrevs[:m])
		g.AddEdge(0, in.n-1, 2, 3)
		check(g, "in place, then one more", append(slices.Clone(more[:m]), [2]int{0, in.n - 1}), append(slices.Clone(mcaps[:m]), 2), append(slices.Clone(mrevs[:m]), 3))
		g.Release()
		other := slices.Clone(more)
		slices.Reverse(other)
		ocaps, orevs := slices.Clone(mcaps), slices.Clone(mrevs)
		slices.Reverse(ocaps)
		slices.Reverse(orevs)
		h := New(in.n, len(other))
		h.AddTerminalNodes(in.src, in.sink)
		h.AddEdges(other, ocaps, orevs)
		check(h, "laid out by AddEdges", other, ocaps, orevs)
		h.UpdateEdges(ocaps, orevs) // nothing changes
		h.MaxFlow()
		check(h, "laid out by AddEdges, solved", other, ocaps, orevs)
		if msg := h.checkInvariants(); msg != "" {
			t.Fatalf("rep %d: %s", rep, msg)
		}
	}
}
