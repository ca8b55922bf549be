package maxflow

import (
	"fmt"
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
