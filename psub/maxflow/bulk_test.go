package maxflow

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBulkMatchesSingle: AddTerminals and AddEdges build the graph
// AddTerminal and AddEdge build, and UpdateTerminals and UpdateEdges leave
// the graph, and MaxFlowReuse the flow, bit for bit where the single
// updates of the changed nodes and edges do.
func TestBulkMatchesSingle(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 0))
	for rep := range 100 {
		in := randomInstance(r, 2+r.IntN(30), r.IntN(90), fracCaps)
		g := in.build()
		h := New(0, 0)
		h.AddNodes(in.n)
		h.AddTerminals(0, in.src, in.sink)
		ends := make([][2]int, len(in.from))
		for e := range ends {
			ends[e] = [2]int{in.from[e], in.to[e]}
		}
		if first := h.AddEdges(ends, in.cap, in.rev); first != 0 {
			t.Fatalf("rep %d: first edge %d", rep, first)
		}
		if d := sameGraph(g, h); d != "" {
			t.Fatalf("rep %d: %s", rep, d)
		}
		if f, want := h.MaxFlow(), g.MaxFlow(); f != want {
			t.Fatalf("rep %d: flow %v, want %v", rep, f, want)
		}
		for round := range 5 {
			next := randomCaps(r, in, fracCaps)
			for i := range in.n { // some nodes and edges keep their capacities
				if r.IntN(3) == 0 {
					next.src[i], next.sink[i] = in.src[i], in.sink[i]
				}
			}
			for e := range in.from {
				if r.IntN(3) == 0 {
					next.cap[e], next.rev[e] = in.cap[e], in.rev[e]
				}
			}
			for i := range in.n {
				if s, t := g.Terminal(i); s != next.src[i] || t != next.sink[i] {
					g.UpdateTerminal(i, next.src[i], next.sink[i])
				}
			}
			for e := range in.from {
				if c, rv := g.Capacities(e); c != next.cap[e] || rv != next.rev[e] {
					g.UpdateEdge(e, next.cap[e], next.rev[e])
				}
			}
			h.UpdateTerminals(next.src, next.sink)
			h.UpdateEdges(next.cap, next.rev)
			if d := sameGraph(g, h); d != "" {
				t.Fatalf("rep %d round %d: %s", rep, round, d)
			}
			what := fmt.Sprintf("rep %d round %d", rep, round)
			fg, fh := g.MaxFlowReuse(), h.MaxFlowReuse()
			checkSolved(t, what, next, h, fh)
			if fg != fh {
				t.Fatalf("%s: flow %v, single updates %v", what, fh, fg)
			}
			in = next
		}
	}
}

// TestBulkRejectsBadInput: the bulk functions panic on what the single ones
// panic on, naming the element, and change nothing.
func TestBulkRejectsBadInput(t *testing.T) {
	nan := nan()
	cases := []struct {
		name string
		f    func(g *Graph)
		msg  string
	}{
		{"terminal NaN", func(g *Graph) { g.AddTerminals(0, []float64{1, nan}, []float64{0, 0}) }, "node 1"},
		{"terminals out of range", func(g *Graph) { g.AddTerminals(2, []float64{1, 2}, []float64{0, 0}) }, "range"},
		{"terminal lengths", func(g *Graph) { g.AddTerminals(0, []float64{1}, []float64{0, 0}) }, "lengths"},
		{"edge self loop", func(g *Graph) { g.AddEdges([][2]int{{0, 1}, {2, 2}}, []float64{1, 1}, []float64{1, 1}) }, "edge 1"},
		{"edge node range", func(g *Graph) { g.AddEdges([][2]int{{0, 5}}, []float64{1}, []float64{1}) }, "edge 0"},
		{"edge negative", func(g *Graph) { g.AddEdges([][2]int{{0, 1}}, []float64{-1}, []float64{1}) }, ">= 0"},
		{"edge NaN after good ones", func(g *Graph) {
			g.AddEdges([][2]int{{0, 1}, {1, 2}, {2, 0}}, []float64{1, 1, 1}, []float64{1, 1, nan})
		}, "edge 2"},
		{"edge lengths", func(g *Graph) { g.AddEdges([][2]int{{0, 1}}, []float64{1, 2}, []float64{1}) }, "capacities"},
		{"update terminal Inf", func(g *Graph) { g.UpdateTerminals([]float64{0, 0, 0}, []float64{0, 1 / zero(), 0}) }, "node 1"},
		{"update terminal lengths", func(g *Graph) { g.UpdateTerminals([]float64{0}, []float64{0}) }, "3 nodes"},
		{"update edge negative", func(g *Graph) { g.UpdateEdges([]float64{1}, []float64{-2}) }, "edge 0"},
		{"update edge lengths", func(g *Graph) { g.UpdateEdges(nil, nil) }, "1 edges"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := New(3, 1)
			g.AddNodes(3)
			g.AddTerminal(0, 2, 0)
			g.AddTerminal(2, 0, 2)
			g.AddEdge(0, 1, 1, 1)
			before := New(3, 1)
			before.AddNodes(3)
			before.AddTerminal(0, 2, 0)
			before.AddTerminal(2, 0, 2)
			before.AddEdge(0, 1, 1, 1)
			func() {
				defer func() {
					r := recover()
					if r == nil || !strings.Contains(fmt.Sprint(r), c.msg) {
						t.Fatalf("recovered %v, want a panic containing %q", r, c.msg)
					}
				}()
				c.f(g)
			}()
			if d := sameGraph(before, g); d != "" || len(g.changed) != 0 {
				t.Fatalf("the graph changed: %s (%d marked)", d, len(g.changed))
			}
			for i := range g.nodes {
				if g.nodes[i].deg != before.nodes[i].deg {
					t.Fatalf("node %d: degree %d, want %d", i, g.nodes[i].deg, before.nodes[i].deg)
				}
			}
		})
	}
}

func zero() float64 { return 0 }

// TestAddTerminalNodes: AddTerminalNodes gives what AddNodes followed by
// AddTerminals gives, bit for bit (terminal capacities, flow constant,
// residual capacities, hence the flow), after nodes the graph has already,
// in new storage, in a released solved graph's storage (whose nodes are
// not zero) and in a cleared one's; capacities of every sign, -0 and 0
// included. A bad capacity panics and leaves the graph as it was.
func TestAddTerminalNodes(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 0))
	vals := []float64{0, negZero(), 1.5, -2.25, 3, 0.1}
	for rep := range 300 {
		in := randomInstance(r, 2+r.IntN(30), r.IntN(60), fracCaps)
		for i := range in.n { // some of the special values, some negative
			if r.IntN(4) == 0 {
				in.src[i], in.sink[i] = vals[r.IntN(len(vals))], vals[r.IntN(len(vals))]
			}
		}
		pre := r.IntN(3) // nodes added before, with capacities
		build := func(g *Graph, fused bool) {
			g.AddNodes(pre)
			for i := range pre {
				g.AddTerminal(i, 0.5, 0.25)
			}
			if fused {
				if first := g.AddTerminalNodes(in.src, in.sink); first != pre {
					t.Fatalf("rep %d: first node %d, want %d", rep, first, pre)
				}
			} else {
				g.AddNodes(in.n)
				g.AddTerminals(pre, in.src, in.sink)
			}
			ends := edgesOf(in)
			for e := range ends {
				ends[e][0] += pre
				ends[e][1] += pre
			}
			g.AddEdges(ends, in.cap, in.rev)
		}
		want := New(0, 0)
		build(want, false)
		var g *Graph
		switch rep % 3 {
		case 0:
			g = New(0, 0)
		case 1: // a released graph's storage, its nodes left as its solve left them
			old := New(in.n+pre, len(in.from))
			build(old, true)
			old.MaxFlow()
			for released.Get() != nil {
			}
			old.Release()
			g = New(in.n+pre, len(in.from))
		case 2:
			g = New(0, 0)
			build(g, false)
			g.MaxFlow()
			g.Clear()
		}
		build(g, true)
		if d := sameGraph(want, g); d != "" {
			t.Fatalf("rep %d: %s", rep, d)
		}
		for i := range g.Nodes() {
			if a, b := g.nodes[i], want.nodes[i]; a.rCap != b.rCap || bits(a.rCap) != bits(b.rCap) || a.parent != noParent || a.marked || a.active {
				t.Fatalf("rep %d: node %d: %+v, want %+v", rep, i, a, b)
			}
		}
		if g.terms != want.terms {
			t.Fatalf("rep %d: terms %v, want %v", rep, g.terms, want.terms)
		}
		if f, w := g.MaxFlow(), want.MaxFlow(); f != w {
			t.Fatalf("rep %d: flow %v, want %v", rep, f, w)
		}
		if msg := g.checkInvariants(); msg != "" {
			t.Fatalf("rep %d: %s", rep, msg)
		}
	}
	// Between AddTerminalNodes and the solve, whatever else touches the
	// nodes: the graph reads as unsolved (every node in S) until the
	// solve, and the solve gives what the same calls after AddNodes and
	// AddTerminals give, which is Edmonds–Karp's flow.
	for rep := range 400 {
		in := randomInstance(r, 2+r.IntN(30), 1+r.IntN(60), fracCaps)
		op := rep % 10
		e, i := r.IntN(len(in.from)), r.IntN(in.n)
		calls := func(g *Graph, fused bool) {
			if fused {
				g.AddTerminalNodes(in.src, in.sink)
			} else {
				g.AddNodes(in.n)
				g.AddTerminals(0, in.src, in.sink)
			}
			for k := range g.Nodes() {
				if !g.InSourceSide(k) || g.ReachesSink(k) || g.ReachableFromSource(k) {
					t.Fatalf("rep %d: node %d reads as solved before the solve", rep, k)
				}
			}
			switch op {
			case 1:
				g.AddTerminal(i, 0.5, 2)
			case 2:
				g.UpdateTerminal(i, 0, 0)
			case 3:
				g.SetTerminal(i, 3, 0)
			case 4:
				g.AddNodes(1)
				g.AddEdge(g.Nodes()-1, 0, 1, 1)
			}
			if op == 5 { // one at a time: laid out by the solve
				for k := range in.from {
					g.AddEdge(in.from[k], in.to[k], in.cap[k], in.rev[k])
				}
			} else {
				g.AddEdges(edgesOf(in), in.cap, in.rev)
			}
			switch op {
			case 6:
				g.UpdateEdge(e, 0, in.rev[e]+1)
			case 7:
				g.SetEdge(e, in.cap[e]+1, 0)
			case 8:
				g.Prepare()
			case 9: // laid out: the update marks its ends, nothing else
				g.Prepare()
				g.UpdateEdge(e, in.cap[e]+1, in.rev[e]+1)
			}
		}
		g, want := New(0, 0), New(0, 0)
		calls(g, true)
		calls(want, false)
		f, w := g.MaxFlow(), want.MaxFlow()
		if f != w {
			t.Fatalf("rep %d op %d: flow %v, want %v", rep, op, f, w)
		}
		for k := range g.Nodes() {
			if g.InSourceSide(k) != want.InSourceSide(k) || g.ReachesSink(k) != want.ReachesSink(k) {
				t.Fatalf("rep %d op %d: node %d on another side", rep, op, k)
			}
			if g.nodes[k].marked != want.nodes[k].marked {
				t.Fatalf("rep %d op %d: node %d marked %v after the solve", rep, op, k, g.nodes[k].marked)
			}
		}
		if op == 0 {
			checkSolved(t, fmt.Sprintf("rep %d", rep), in, g, f)
		}
		// Nodes marked before the solve are unmarked by it: a dynamic
		// update after it repairs the trees around the nodes it marks.
		for _, h := range []*Graph{g, want} {
			h.UpdateTerminal(i, 1, 0.5)
			h.UpdateEdge(e, 0.25, 0.25)
		}
		if f, w := g.MaxFlowReuse(), want.MaxFlowReuse(); f != w {
			t.Fatalf("rep %d op %d: flow after the update %v, want %v", rep, op, f, w)
		}
		if msg := g.checkInvariants(); msg != "" {
			t.Fatalf("rep %d: %s", rep, msg)
		}
	}
	// A bad capacity: a panic naming the node, and the graph as it was.
	for _, bad := range []float64{nan(), math.Inf(1), math.Inf(-1)} {
		g := New(0, 0)
		g.AddNodes(2)
		g.AddTerminal(1, 1, 0)
		src, snk := []float64{1, 2, 3}, []float64{0, 0, 0}
		snk[2] = bad
		msg := func() (msg string) {
			defer func() { msg = fmt.Sprint(recover()) }()
			g.AddTerminalNodes(src, snk)
			return ""
		}()
		if !strings.Contains(msg, "node 4") || g.Nodes() != 2 || g.Flow() != 0 {
			t.Fatalf("bad %v: %q, %d nodes, flow %v", bad, msg, g.Nodes(), g.Flow())
		}
		if f := g.MaxFlow(); f != 0 {
			t.Fatalf("bad %v: flow %v after the rejected nodes", bad, f)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("AddTerminalNodes with 2 sources and 1 sink did not panic")
			}
		}()
		New(0, 0).AddTerminalNodes([]float64{1, 2}, []float64{1})
	}()
}

func negZero() float64 { return math.Copysign(0, -1) }
