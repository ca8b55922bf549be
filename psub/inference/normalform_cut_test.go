package inference

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/probably-submodular/crf/psub/internal/cut"
)

// normalForm writes the energy's unary and pairwise tables as the sums
// cut.Solver (the learner's fast path) takes, computed here from the
// tables independently of build.
func normalForm(e *Energy) (lin, pair []float64) {
	n := e.Nodes()
	lin = make([]float64, n)
	for i := range lin {
		lin[i] = e.Unary[2*i+1] - e.Unary[2*i]
	}
	pair = make([]float64, len(e.Edges))
	for j, ed := range e.Edges {
		t := e.Pairwise[4*j : 4*j+4]
		lin[ed[0]] += t[2] - t[0]
		lin[ed[1]] += t[3] - t[2]
		pair[j] = t[1] + t[2] - t[0] - t[3]
	}
	return lin, pair
}

// The normal form minimised by cut.Solver gives the brute-force minimiser
// with the fewest 1s on submodular energies, and TGC's labels and
// truncation count on arbitrary ones, fresh and with a reused dynamic solver.
func TestNormalFormCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	dyn := cut.NewSolver(true, true)
	var dynEdges [][2]int
	for c := 0; c < cases(300, 3000); c++ {
		n := 1 + rng.IntN(10)
		edges := randomGraph(rng, n, rng.IntN(2*n))
		if c%3 != 0 || dynEdges == nil {
			dynEdges = edges // every third case reuses the last graph
		}
		n = 0
		for _, ed := range dynEdges {
			n = max(n, ed[0]+1, ed[1]+1)
		}
		e := randomEnergy(rng, max(n, 1), 2, dynEdges)
		sub := c%2 == 0
		if sub {
			makeSubmodular(e)
		}
		want, err := TruncatedGraphCut{}.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []*cut.Solver{cut.NewSolver(true, false), dyn} {
			lin, pair := normalForm(e)
			y := make([]int, e.Nodes())
			tr, err := s.Solve(e.Edges, lin, pair, y)
			if err != nil {
				t.Fatalf("case %d: %v", c, err)
			}
			if !slices.Equal(y, want.Labels) || tr != want.Truncated {
				t.Fatalf("case %d: normal form %v (%d truncated), TGC %v (%d)", c, y, tr, want.Labels, want.Truncated)
			}
		}
		if sub {
			opt, opts := optimum(e, 1e-9)
			if !near(e.Eval(want.Labels), opt) || !slices.ContainsFunc(opts, func(o []int) bool { return slices.Equal(o, want.Labels) }) {
				t.Fatalf("case %d: labels %v are not a minimiser (optimum %v)", c, want.Labels, opt)
			}
		}
	}
}
