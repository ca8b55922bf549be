package inference_test

import (
	"fmt"

	"github.com/probably-submodular/crf/psub/inference"
)

// A chain of three pixels: the ends prefer label 1, the middle weakly
// prefers 0, and attractive (submodular) edges pull it along.
func ExampleGraphCut() {
	e := inference.NewEnergy(3, 2, [][2]int{{0, 1}, {1, 2}})
	copy(e.Unary, []float64{
		2, 0, // node 0: θ(0)=2, θ(1)=0
		0, 1, // node 1
		2, 0, // node 2
	})
	for j := range e.Edges {
		copy(e.Table(j), []float64{0, 1, 1, 0}) // Potts: 1 if labels differ
	}
	r, err := inference.GraphCut{}.Minimize(e)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Labels, r.Energy, r.Exact)
	// Output: [1 1 1] 1 true
}

// A repulsive edge is not submodular: GraphCut refuses it, TGC truncates it
// (θ01 and θ10 raised by 1.5) and reports the energy of its labelling under
// the original energy. Here truncation costs optimality: [1 0] and [0 1]
// have energy 1.
func ExampleTruncatedGraphCut() {
	e := inference.NewEnergy(2, 2, [][2]int{{0, 1}})
	copy(e.Unary, []float64{0, 1, 0, 1})
	copy(e.Table(0), []float64{3, 0, 0, 0}) // both 0 costs 3
	_, err := inference.GraphCut{}.Minimize(e)
	fmt.Println(err)
	r, _ := inference.TruncatedGraphCut{}.Minimize(e)
	fmt.Println(r.Labels, r.Energy, r.Truncated, r.Exact)
	// Output:
	// graphcut: edge 0 (0,1) is not submodular: θ00+θ11 = 3 > θ01+θ10 = 0 (use TruncatedGraphCut or QPBO for non-submodular energies)
	// [1 1] 2 1 false
}

// A frustrated triangle (every edge prefers disagreement) leaves roof
// duality undecided; adding a strong unary on node 0 resolves all three.
func ExampleQPBOPartial() {
	e := inference.NewEnergy(3, 2, [][2]int{{0, 1}, {1, 2}, {2, 0}})
	for j := range e.Edges {
		copy(e.Table(j), []float64{1, 0, 0, 1})
	}
	x, _ := inference.QPBOPartial(e)
	fmt.Println(x)
	e.Unary[0*2+1] = 5 // node 0 label 1 costs 5
	x, _ = inference.QPBOPartial(e)
	fmt.Println(x)
	// Output:
	// [-1 -1 -1]
	// [0 -1 -1]
}

// TRW-S on a 3-label chain is exact: the lower bound meets the energy.
func ExampleTRWS() {
	e := inference.NewEnergy(3, 3, [][2]int{{0, 1}, {1, 2}})
	copy(e.Unary, []float64{0, 2, 2, 2, 2, 0, 2, 0, 2})
	for j := range e.Edges {
		t := e.Table(j)
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				if a != b {
					t[a*3+b] = 1
				}
			}
		}
	}
	r, _ := inference.TRWS{}.Minimize(e)
	fmt.Println(r.Labels, r.Energy, r.LowerBound, r.Exact)
	// Output: [0 2 1] 2 2 true
}

// α-expansion on a 4-label Potts energy over a 2×2 grid.
func ExampleAlphaExpansion() {
	e := inference.NewEnergy(4, 4, [][2]int{{0, 1}, {2, 3}, {0, 2}, {1, 3}})
	for i := 0; i < 4; i++ {
		for k := 0; k < 4; k++ {
			e.Unary[i*4+k] = 1
		}
		e.Unary[i*4+i] = 0 // node i prefers label i
	}
	e.Unary[3*4+3] = 0.9 // node 3 prefers label 3 only a little less
	for j := range e.Edges {
		t := e.Table(j)
		for a := 0; a < 4; a++ {
			for b := 0; b < 4; b++ {
				if a != b {
					t[a*4+b] = 0.8
				}
			}
		}
	}
	r, _ := inference.AlphaExpansion{}.Minimize(e)
	fmt.Println(r.Labels, r.Energy)
	// Output: [0 0 0 0] 3
}
