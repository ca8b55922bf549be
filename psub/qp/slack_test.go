package qp

import (
	"math"
	"testing"
)

// TestSlackLeavesInPathStep runs the SSVM pattern of BenchmarkSequence300
// (one new plane per warm Solve, a few hard rows every tenth, no sign
// bounds, so every polish round is a Cholesky round with path steps). When
// the slack α_0 blocks a path step it must leave the free set, as a
// blocking plane does: left in, every later round solved for the same α_0 < 0
// again, took a step of length 0, and the polish ran to its round cap and
// gave up to the sweeps (the cows-shaped C4 fit: 73 rounds per polish
// instead of 4). The test requires every polish to end at a KKT point and
// the last warm solution to match a cold one.
func TestSlackLeavesInPathStep(t *testing.T) {
	g := newSSVMLike(1, 20, 20)
	g.scale = 0.003
	pr := &problem{dim: g.dim(), c: 100, state: make([]int8, g.dim())}
	s := pr.solver()
	var sol Solution
	for it := range 120 {
		a, b := g.plane()
		pr.planes, pr.b = append(pr.planes, a), append(pr.b, b)
		s.AddPlane(a, b)
		if it%10 == 9 {
			for range 5 {
				r := g.row()
				pr.rows = append(pr.rows, r)
				s.AddRow(r)
			}
		}
		var err error
		if sol, err = s.Solve(tight); err != nil {
			t.Fatal(err)
		}
	}
	if s.gaveUp > 0 {
		t.Errorf("%d polishes ended before a KKT point", s.gaveUp)
	}
	checkKKT(t, pr, sol, 1e-6)
	cold, err := pr.solver().Solve(tight)
	if err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(cold.Primal - sol.Primal); d > 1e-9*(1+cold.Primal) {
		t.Errorf("warm primal %.12g, cold %.12g", sol.Primal, cold.Primal)
	}
}
