package cut_test

import (
	"fmt"
	"math"
	"math/rand/v2"
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

// energy is the normal-form energy Σ lin_i·y_i + Σ pair_e·(1−y_a)·y_b.
func energy(edges [][2]int, lin, pair []float64, y []int) float64 {
	e := 0.0
	for i, l := range lin {
		e += l * float64(y[i])
	}
	for j, ed := range edges {
		if y[ed[0]] == 0 && y[ed[1]] == 1 {
			e += pair[j]
		}
	}
	return e
}

// bruteMin is the minimum of energy over every labelling.
func bruteMin(edges [][2]int, lin, pair []float64) float64 {
	n := len(lin)
	best := math.Inf(1)
	y := make([]int, n)
	for m := 0; m < 1<<n; m++ {
		for i := range y {
			y[i] = m >> i & 1
		}
		best = math.Min(best, energy(edges, lin, pair, y))
	}
	return best
}

// A fixed-edges solver (NewFixedSolver) reaches the brute-force minimum on
// a sequence of energies over one edge slice, then over another slice (a
// different graph, which it must rebuild for), then over a copy of the
// first (compared edge by edge), with and without dynamic reuse.
func TestFixedSolverMinimises(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	graph := func(n, m int) [][2]int {
		var edges [][2]int
		for len(edges) < m {
			a, b := rng.IntN(n), rng.IntN(n)
			if a != b {
				edges = append(edges, [2]int{a, b})
			}
		}
		return edges
	}
	const n = 9
	g1, g2 := graph(n, 16), graph(n, 16) // same length: only the slices tell them apart
	for _, dynamic := range []bool{false, true} {
		s := cut.NewFixedSolver(false, dynamic)
		for step := 0; step < 60; step++ {
			edges := g1
			switch {
			case step >= 20 && step < 40:
				edges = g2
			case step >= 40:
				edges = append([][2]int(nil), g1...)
			}
			lin, pair := make([]float64, n), make([]float64, len(edges))
			for i := range lin {
				lin[i] = rng.NormFloat64()
			}
			for j := range pair {
				pair[j] = rng.Float64()
			}
			want := bruteMin(edges, lin, pair)
			l0, p0 := append([]float64(nil), lin...), append([]float64(nil), pair...)
			y := make([]int, n)
			if _, err := s.Solve(edges, lin, pair, y); err != nil {
				t.Fatal(err)
			}
			if got := energy(edges, l0, p0, y); math.Abs(got-want) > 1e-9 {
				t.Fatalf("dynamic %v, step %d: energy %v, minimum %v", dynamic, step, got, want)
			}
		}
	}
}
