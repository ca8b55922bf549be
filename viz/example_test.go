package viz_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/probably-submodular/crf/viz"
)

// A table of our numbers beside the paper's, as the notebooks show them
// (Show draws it as HTML): Cells gives its text, Rule the rule of its marks.
func ExampleComparison() {
	c := viz.Comparison{
		Title:  "feline retina, 1−Δ_avg (%)",
		Corner: "set",
		Rows:   []string{"C2", "C4", "C2*"},
		Cols:   []string{"ours"},
		Paper:  [][]float64{{95.7}, {96.6}, {math.NaN()}},
		Ours:   [][]float64{{95.1}, {93.9}, {95.3}},
	}
	header, rows := c.Cells()
	fmt.Println(c.Rule())
	fmt.Println(strings.Join(header, " | "))
	for _, r := range rows {
		fmt.Println(strings.Join(r, " | "))
	}
	// Output:
	// Δ = ours − paper; ! marks |Δ| above 1.5
	// set | ours
	// C2 | 95.1 (paper 95.7, Δ -0.6)
	// C4 | 93.9 (paper 96.6, Δ -2.7 !)
	// C2* | 95.3
}

// Lines builds a static chart; ShowPlot displays it in a notebook (outside
// one it prints a note).
func ExampleLines() {
	p, err := viz.Lines("relative gap", "iteration", "gap", []viz.Series{
		{Name: "C4", X: []float64{1, 2, 3}, Y: []float64{1, 0.1, 0.001}},
	}, true)
	if err != nil {
		panic(err)
	}
	png, err := viz.PNG(p, viz.Width, viz.Height)
	fmt.Println(err == nil && len(png) > 1000)
	// Output: true
}
