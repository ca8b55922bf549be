package maxflow

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestClearRebuildInPlace: a graph built again after Clear (or Release and
// New, which takes its storage and layout back), where AddEdges
// writes the capacities into the arcs kept from before while the edges are
// the old ones (Graph.prev), is the graph a new Graph gets from the same
// calls, whatever the calls: the same edges (the in-place path, which the
// test checks is taken), an edge that differs, fewer or more edges or
// nodes, the edges in several batches or some one at a time, capacities
// changed before the solve, a bad edge rejected half-way, edges added after
// the solve. Flows bit for bit at every solve, cuts, edge flows, degrees,
// the layout and the search invariants.
func TestClearRebuildInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 0))
	for rep := range 300 {
		in := randomInstance(r, 3+r.IntN(25), 2+r.IntN(80), fracCaps)
		g := New(0, 0)
		bulkFill(g, in.n, in, edgesOf(in), in.cap, in.rev)
		g.MaxFlow()
		for variant := range 13 {
			next := randomCaps(r, in, fracCaps)
			n, ends := in.n, edgesOf(in)
			caps, revs := next.cap, next.rev
			var ops func(g *Graph) []float64
			inPlace := false
			switch variant {
			case 0: // the same edges: the in-place path
				inPlace = true
			case 1: // one edge differs
				k := r.IntN(len(ends))
				ends[k] = [2]int{ends[k][1], ends[k][0]}
			case 2: // fewer edges
				m := r.IntN(len(ends))
				ends, caps, revs = ends[:m], caps[:m], revs[:m]
			case 3: // more edges
				ends = append(ends, [2]int{0, n - 1}, [2]int{1, 2})
				caps, revs = append(caps, 1, 2), append(revs, 0.5, 0)
			case 4: // a node more
				n++
				next.src, next.sink = append(next.src, 1), append(next.sink, 0)
			case 5: // a node less, and its edges
				n--
				next.src, next.sink = next.src[:n], next.sink[:n]
				var e2 [][2]int
				var c2, r2 []float64
				for e, ij := range ends {
					if ij[0] < n && ij[1] < n {
						e2, c2, r2 = append(e2, ij), append(c2, caps[e]), append(r2, revs[e])
					}
				}
				ends, caps, revs = e2, c2, r2
			}
			// The graph under test gets its nodes from AddTerminalNodes
			// every other time, the new graph it is compared with always
			// from AddNodes and AddTerminals.
			fused := false
			fill := func(g *Graph) {
				if fused {
					g.AddTerminalNodes(next.src, next.sink)
					return
				}
				g.AddNodes(n)
				g.AddTerminals(0, next.src, next.sink)
			}
			m := len(ends)
			k := r.IntN(m + 1)     // where the batches split
			j := k + r.IntN(m-k+1) // ...
			e := r.IntN(max(m, 1)) // the edge changed before the solve
			switch variant {
			case 6: // the edges in three batches
				ops = func(g *Graph) []float64 {
					fill(g)
					g.AddEdges(ends[:k], caps[:k], revs[:k])
					g.AddEdges(ends[k:j], caps[k:j], revs[k:j])
					g.AddEdges(ends[j:], caps[j:], revs[j:])
					return []float64{g.MaxFlow()}
				}
				inPlace = true
			case 7: // some edges one at a time
				ops = func(g *Graph) []float64 {
					fill(g)
					g.AddEdges(ends[:k], caps[:k], revs[:k])
					for e := k; e < m && e < k+2; e++ {
						g.AddEdge(ends[e][0], ends[e][1], caps[e], revs[e])
					}
					if k+2 < m {
						g.AddEdges(ends[k+2:], caps[k+2:], revs[k+2:])
					}
					return []float64{g.MaxFlow()}
				}
			case 8, 9, 10: // capacities changed before the solve
				ops = func(g *Graph) []float64 {
					fill(g)
					g.AddEdges(ends, caps, revs)
					switch variant {
					case 8:
						g.SetEdge(e, 3, 0.25)
					case 9:
						c, rv := append([]float64(nil), caps...), append([]float64(nil), revs...)
						c[e], rv[e] = 0, 7
						g.UpdateEdges(c, rv)
					case 10:
						g.ResetCapacities()
						g.AddTerminals(0, next.src, next.sink) // edges left at 0
					}
					return []float64{g.MaxFlow()}
				}
			case 11: // a bad edge rejected half-way, then the edges
				ops = func(g *Graph) []float64 {
					fill(g)
					bad := append([][2]int(nil), ends...)
					bad[k%m] = [2]int{0, 0}
					func() {
						defer func() { _ = recover() }()
						g.AddEdges(bad, caps, revs)
					}()
					g.AddEdges(ends, caps, revs)
					return []float64{g.MaxFlow()}
				}
			case 12: // edges added after the solve
				ops = func(g *Graph) []float64 {
					fill(g)
					g.AddEdges(ends, caps, revs)
					f := g.MaxFlow()
					g.AddEdges([][2]int{{n - 1, 0}, {2, 1}}, []float64{1.5, 0}, []float64{0, 2.5})
					g.AddEdge(1, 0, 0.75, 0.75)
					return []float64{f, g.MaxFlow()}
				}
			}
			if ops == nil {
				ops = func(g *Graph) []float64 {
					fill(g)
					g.AddEdges(ends, caps, revs)
					return []float64{g.MaxFlow()}
				}
			}
			what := fmt.Sprintf("rep %d variant %d", rep, variant)
			// Odd reps: Release and New instead of Clear, which keep the
			// layout the same way (when the pool gives the storage back).
			viaRelease := rep%2 == 1
			if viaRelease {
				for released.Get() != nil { // empty the pool: g's storage is the one there
				}
				g.Release()
				g = New(0, 0)
			} else {
				g.Clear()
			}
			spec := g.spec
			fused = (rep+variant)%2 == 1
			got := ops(g)
			fused = false
			want := New(0, 0)
			flows := ops(want)
			if variant == 0 && !spec && !(viaRelease && raceEnabled) {
				t.Fatalf("%s: Clear (or Release, New: %v) of a laid-out graph kept no layout", what, viaRelease)
			}
			for s := range flows {
				if got[s] != flows[s] {
					t.Fatalf("%s: solve %d: flow %v, a new graph's %v", what, s, got[s], flows[s])
				}
			}
			if d := sameGraph(want, g); d != "" {
				t.Fatalf("%s: %s", what, d)
			}
			if s := g.checkInvariants(); s != "" {
				t.Fatalf("%s: %s", what, s)
			}
			for i := range g.Nodes() {
				if g.InSourceSide(i) != want.InSourceSide(i) {
					t.Fatalf("%s: node %d on the other side", what, i)
				}
			}
			for e := range g.Edges() {
				if g.EdgeFlow(e) != want.EdgeFlow(e) {
					t.Fatalf("%s: edge %d: flow %v, want %v", what, e, g.EdgeFlow(e), want.EdgeFlow(e))
				}
			}
			wrote := g.degStale // in place, and laid out by prev
			if inPlace && !wrote && !(viaRelease && raceEnabled) {
				t.Fatalf("%s: the edges were not written in place", what)
			}
			for _, h := range []*Graph{g, want} {
				if h.degStale {
					h.countDegrees(len(h.edge))
				}
			}
			for i := range g.nodes {
				if g.nodes[i].deg != want.nodes[i].deg {
					t.Fatalf("%s: node %d: degree %d, want %d", what, i, g.nodes[i].deg, want.nodes[i].deg)
				}
			}
			in = &instance{n: n, src: next.src, sink: next.sink, cap: caps, rev: revs}
			for _, ij := range ends {
				in.from, in.to = append(in.from, ij[0]), append(in.to, ij[1])
			}
			if len(ends) < 2 || n < 3 {
				// Start again from a graph big enough for the variants.
				in = randomInstance(r, 3+r.IntN(25), 2+r.IntN(80), fracCaps)
				g = New(0, 0)
				bulkFill(g, in.n, in, edgesOf(in), in.cap, in.rev)
				g.MaxFlow()
			}
		}
	}
}

// edgesOf returns the instance's edges as AddEdges takes them.
func edgesOf(in *instance) [][2]int {
	ends := make([][2]int, len(in.from))
	for e := range ends {
		ends[e] = [2]int{in.from[e], in.to[e]}
	}
	return ends
}

// bulkFill adds n nodes, the instance's terminal capacities and the edges
// with the bulk calls.
func bulkFill(g *Graph, n int, in *instance, ends [][2]int, caps, revs []float64) {
	g.AddNodes(n)
	g.AddTerminals(0, in.src, in.sink)
	g.AddEdges(ends, caps, revs)
}

// TestReleaseReusesStorage: New takes the storage of a released graph of
// about its size and builds in it what a graph in new storage builds; two
// graphs never share one storage; a released graph is an empty, usable one;
// storage far too large for the hints is not taken.
func TestReleaseReusesStorage(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 0))
	build := func(g *Graph, in *instance) float64 {
		bulkFill(g, in.n, in, edgesOf(in), in.cap, in.rev)
		return g.MaxFlow()
	}
	reused := 0
	for rep := range 200 {
		a, b := randomInstance(r, 2+r.IntN(30), 1+r.IntN(90), fracCaps), randomInstance(r, 2+r.IntN(30), 1+r.IntN(90), fracCaps)
		for released.Get() != nil { // empty the pool: old's storage is the one there
		}
		old := New(a.n, len(a.from))
		build(old, a)
		nodes := &old.nodes[:1][0]
		old.Release()
		if old.Nodes() != 0 || old.Edges() != 0 || old.Flow() != 0 {
			t.Fatalf("rep %d: released graph has %d nodes, %d edges, flow %v", rep, old.Nodes(), old.Edges(), old.Flow())
		}
		old.Release() // twice: nothing more to give
		g, h := New(a.n, len(a.from)), New(b.n, len(b.from))
		if cap(g.nodes) > 0 && &g.nodes[:1][0] == nodes {
			reused++
		}
		fg, fh := build(g, a), build(h, b)
		checkSolved(t, fmt.Sprintf("rep %d, reused storage", rep), a, g, fg)
		checkSolved(t, fmt.Sprintf("rep %d, second graph", rep), b, h, fh)
		if want := build(New(0, 0), a); fg != want {
			t.Fatalf("rep %d: flow %v in released storage, %v in new", rep, fg, want)
		}
		checkSolved(t, fmt.Sprintf("rep %d, released graph used again", rep), b, old, build(old, b))
		checkSolved(t, fmt.Sprintf("rep %d, reused storage after that", rep), a, g, g.Flow())
		g.Release()
		h.Release()
		old.Release()
	}
	// sync.Pool drops some of what it is given under the race detector,
	// and all of it at the second collection after.
	if reused < 100 && !raceEnabled {
		t.Fatalf("released storage taken again in %d of 200 reps", reused)
	}
	big := New(100000, 100000)
	big.AddNodes(100000)
	big.Release()
	for range 10 {
		if g := New(10, 10); cap(g.nodes) > 4*10+1024 {
			t.Fatalf("New(10, 10) took storage for %d nodes", cap(g.nodes))
		}
	}
}

// TestReleaseConcurrently: graphs made, solved and released at once in
// several goroutines, through the one pool, each solve what a graph of its
// own solves (the race detector sees any storage two of them share).
func TestReleaseConcurrently(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 0))
	type job struct {
		in   *instance
		flow float64
	}
	jobs := make([]job, 8)
	for k := range jobs {
		in := randomInstance(r, 2+r.IntN(40), 1+r.IntN(120), fracCaps)
		g := New(0, 0)
		bulkFill(g, in.n, in, edgesOf(in), in.cap, in.rev)
		jobs[k] = job{in, g.MaxFlow()}
	}
	errs := make(chan string, 4)
	for w := range 4 {
		go func() {
			msg := ""
			for rep := range 50 {
				jb := jobs[(w+rep)%len(jobs)]
				g := New(jb.in.n, len(jb.in.from))
				bulkFill(g, jb.in.n, jb.in, edgesOf(jb.in), jb.in.cap, jb.in.rev)
				if f := g.MaxFlow(); f != jb.flow && msg == "" {
					msg = fmt.Sprintf("worker %d rep %d: flow %v, want %v", w, rep, f, jb.flow)
				}
				g.Release()
			}
			errs <- msg
		}()
	}
	for range 4 {
		if msg := <-errs; msg != "" {
			t.Error(msg)
		}
	}
}
