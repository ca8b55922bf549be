package maxflow_test

import (
	"fmt"
	"strings"

	"github.com/probably-submodular/crf/psub/maxflow"
)

// A two-pixel segmentation: pixel 0 prefers the source label, pixel 1 the
// sink label, and a smoothness edge makes disagreeing cost 1 each way.
func Example() {
	g := maxflow.New(2, 1)
	g.AddNodes(2)
	g.AddTerminal(0, 5, 1) // cost 5 if pixel 0 is in T, 1 if in S
	g.AddTerminal(1, 2, 6)
	g.AddEdge(0, 1, 1, 1)
	fmt.Println("min cut:", g.MaxFlow())
	fmt.Println("pixel 0 in S:", g.InSourceSide(0), "pixel 1 in S:", g.InSourceSide(1))
	// Output:
	// min cut: 4
	// pixel 0 in S: true pixel 1 in S: false
}

// Dynamic graph cuts: change a capacity and re-solve reusing the search
// trees; the answer is that of a fresh solve.
func ExampleGraph_MaxFlowReuse() {
	g := maxflow.New(2, 1)
	g.AddNodes(2)
	g.AddTerminal(0, 5, 1)
	g.AddTerminal(1, 2, 6)
	e := g.AddEdge(0, 1, 1, 1)
	g.MaxFlow()
	g.UpdateTerminal(1, 9, 6) // pixel 1 now prefers S too
	g.UpdateEdge(e, 3, 3)
	fmt.Println("min cut:", g.MaxFlowReuse(), "pixel 1 in S:", g.InSourceSide(1))
	// Output:
	// min cut: 7 pixel 1 in S: true
}

// Reuse one graph across solves with different capacities (the structured
// SVM pattern) without reallocating.
func ExampleGraph_ResetCapacities() {
	g := maxflow.New(2, 1)
	g.AddNodes(2)
	e := g.AddEdge(0, 1, 0, 0)
	for _, unary := range [][2]float64{{3, 1}, {1, 3}} {
		g.ResetCapacities()
		g.SetTerminal(0, unary[0], unary[1])
		g.SetTerminal(1, 2, 2)
		g.SetEdge(e, 1, 1)
		fmt.Println(g.MaxFlow(), g.InSourceSide(0))
	}
	// Output:
	// 3 true
	// 3 false
}

func ExampleRead() {
	p, err := maxflow.Read(strings.NewReader(`c a 4-node example
p max 4 5
n 1 s
n 4 t
a 1 2 3
a 1 3 2
a 2 3 1
a 2 4 2
a 3 4 3
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	g := p.Build()
	fmt.Println(g.Nodes(), "nodes,", g.Edges(), "edges, flow", g.MaxFlow())
	// Output:
	// 2 nodes, 1 edges, flow 5
}
