package maxflow

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTerminalsAfterZeroTerminals: a graph built with zero terminal
// capacities is solved without laying its arcs out and without looking
// for terminal capacity (Graph.terms is false). Every way of then giving
// nodes terminal capacity must make the next solve lay the arcs out and
// find the roots: were one to leave terms false, MaxFlow would skip the
// layout and report a flow of 0 (or index the unsized queue). Flows are
// checked against Edmonds–Karp, fresh and after Clear and Release.
func TestTerminalsAfterZeroTerminals(t *testing.T) {
	type give func(g *Graph, in *instance)
	ways := []struct {
		name string
		f    give
	}{
		{"AddTerminal", func(g *Graph, in *instance) {
			for i := range in.n {
				g.AddTerminal(i, in.src[i], in.sink[i])
			}
		}},
		{"SetTerminal", func(g *Graph, in *instance) {
			for i := range in.n {
				g.SetTerminal(i, in.src[i], in.sink[i])
			}
		}},
		{"UpdateTerminal", func(g *Graph, in *instance) {
			for i := range in.n {
				g.UpdateTerminal(i, in.src[i], in.sink[i])
			}
		}},
		{"AddTerminals", func(g *Graph, in *instance) { g.AddTerminals(0, in.src, in.sink) }},
		{"UpdateTerminals", func(g *Graph, in *instance) { g.UpdateTerminals(in.src, in.sink) }},
		{"one-node", func(g *Graph, in *instance) {
			// A single node with capacity, the last: the search for it
			// must not stop early.
			g.AddTerminal(in.n-1, in.src[in.n-1]+1, 0)
			in.src[in.n-1]++
		}},
	}
	r := rand.New(rand.NewPCG(28, 1))
	for _, w := range ways {
		for _, how := range []string{"new", "clear", "release"} {
			for rep := range 10 {
				in := gridInstance(r, 3+rep%4, 2+rep%3)
				if w.name == "one-node" {
					for i := range in.n {
						in.src[i], in.sink[i] = 0, 0
					}
					in.sink[0] = 2 // the flow goes from the last node to the first
				}
				zero := make([]float64, in.n)
				var g *Graph
				switch how {
				case "new":
					g = New(in.n, len(in.from))
				case "clear":
					g = in.build()
					g.MaxFlow()
					g.Clear()
				case "release":
					h := in.build()
					h.MaxFlow()
					h.Release()
					g = New(in.n, len(in.from))
				}
				g.AddNodes(in.n)
				g.AddTerminals(0, zero, zero)
				if w.name == "one-node" {
					g.AddTerminal(0, 0, in.sink[0])
				}
				g.AddEdges(edgesOf(in), in.cap, in.rev)
				what := fmt.Sprintf("%s %s rep %d", w.name, how, rep)
				if w.name != "one-node" {
					if f := g.MaxFlow(); f != 0 {
						t.Fatalf("%s: zero terminals: flow %v", what, f)
					}
				}
				w.f(g, in)
				checkSolved(t, what, in, g, g.MaxFlow())
			}
		}
	}
}
