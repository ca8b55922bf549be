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

// Build from arrays, as a segmentation does for each image: the nodes
// with their terminal capacities in one call, the edges in another, then
// Release when done, so that the next New takes the storage.
func ExampleGraph_AddTerminalNodes() {
	source := []float64{5, 2, 0, 2} // cost of each pixel in T
	sink := []float64{1, 6, 3, 0}   // cost in S
	ends := [][2]int{{0, 1}, {1, 2}, {2, 3}}
	caps := []float64{1, 1, 1}
	g := maxflow.New(len(source), len(ends))
	g.AddTerminalNodes(source, sink)
	g.AddEdges(ends, caps, caps)
	fmt.Println("min cut:", g.MaxFlow())
	inS := make([]bool, len(source))
	for i := range inS {
		inS[i] = g.InSourceSide(i)
	}
	fmt.Println("in S:", inS)
	g.Release()
	// Output:
	// min cut: 5
	// in S: [true false false true]
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
