package cut_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/internal/cut"
)

// (Solver's labels and truncations against TGC and brute force on random
// energies: psub/inference, TestNormalFormCut.)

func TestSolverErrors(t *testing.T) {
	y := make([]int, 3)
	_, err := cut.NewSolver(false, false).Solve([][2]int{{0, 1}, {1, 2}}, []float64{1, -1, 0}, []float64{1, -0.5}, y)
	if err == nil || !strings.Contains(err.Error(), "edge 1 (1,2) is not submodular") {
		t.Errorf("non-submodular edge without truncation: %v", err)
	}
	for _, edges := range [][][2]int{{{0, 3}}, {{1, 1}}, {{-1, 0}}} {
		_, err := cut.NewSolver(true, true).Solve(edges, []float64{1, -1, 0}, []float64{1}, y)
		if err == nil || !strings.Contains(err.Error(), "edge 0") {
			t.Errorf("edges %v: %v", edges, err)
		}
	}
	if _, err := cut.NewSolver(true, false).Solve([][2]int{{0, 1}}, []float64{1, -1, 0}, []float64{1, 2}, y); err == nil {
		t.Error("two pairwise sums for one edge accepted")
	}
}

// A chain of three nodes in the normal form of graph cuts: per node
// Lin = θ(1)−θ(0) plus, for each edge (a,b), θ10−θ00 at a and θ11−θ10 at b;
// per edge Pair = θ01+θ10−θ00−θ11. The unaries prefer 1 at the ends
// (θ(1)−θ(0) = −2) and weakly 0 in the middle (+1); each edge costs 1 when
// its ends disagree (θ01 = θ10 = 1: Pair = 2), so all three nodes take
// label 1 (psub/inference's ExampleGraphCut, from its tables).
func ExampleSolver() {
	edges := [][2]int{{0, 1}, {1, 2}}
	lin := []float64{-2 + 1, 1 - 1 + 1, -2 - 1}
	pair := []float64{2, 2}
	y := make([]int, 3)
	s := cut.NewSolver(true, true)
	truncated, err := s.Solve(edges, lin, pair, y)
	fmt.Println(y, truncated, err)
	// Output: [1 1 1] 0 <nil>
}
