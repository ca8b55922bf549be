package inference

import (
	"math"
	"math/rand/v2"
	"testing"
)

// truncatedLinearEnergy has metric tables min(|α−β|, cap)·w.
func truncatedLinearEnergy(rng *rand.Rand, n, labels int, edges [][2]int, capv float64) *Energy {
	return distanceEnergy(rng, n, labels, edges, func(a, b int) float64 {
		return math.Min(math.Abs(float64(a-b)), capv)
	})
}

// splitEnergy returns the unary and pairwise parts of E(y).
func splitEnergy(e *Energy, y []int) (un, pw float64) {
	L := e.Labels
	for i, k := range y {
		un += e.Unary[i*L+k]
	}
	return un, e.Eval(y) - un
}

// bestMove returns the lowest energy over all 2^n labellings where node i
// takes c0[i] or c1[i] (independent of max-flow).
func bestMove(e *Energy, c0, c1 []int) float64 {
	best := math.Inf(1)
	y := make([]int, len(c0))
	allLabellings(len(c0), 2, func(s []int) {
		for i, b := range s {
			y[i] = c0[i]
			if b == 1 {
				y[i] = c1[i]
			}
		}
		best = math.Min(best, e.Eval(y))
	})
	return best
}

func TestMovesBoundAndLocalOptimality(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 30))
	for _, tc := range []struct {
		name   string
		labels int
		capv   float64 // truncated-linear cap; 1 is Potts
	}{
		{"potts 3", 3, 1},
		{"potts 4", 4, 1},
		{"truncated linear 4 cap 2", 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.capv // max/min ratio of the nonzero distances
			for k := 0; k < cases(30, 200); k++ {
				n := 2 + rng.IntN(5)
				if tc.labels == 3 {
					n = 2 + rng.IntN(7)
				}
				e := truncatedLinearEnergy(rng, n, tc.labels, randomGraph(rng, n, rng.IntN(2*n)), tc.capv)
				opt, opts := optimum(e, 0)
				un, pw := splitEnergy(e, opts[0])
				exp, err := AlphaExpansion{}.Minimize(e)
				if err != nil {
					t.Fatal(err)
				}
				swp, err := AlphaBetaSwap{}.Minimize(e)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, "expansion", e, exp)
				checkResult(t, "swap", e, swp)
				if exp.Truncated != 0 || swp.Truncated != 0 {
					t.Fatalf("case %d: metric energy gave truncations %d, %d", k, exp.Truncated, swp.Truncated)
				}
				// Boykov–Veksler–Zabih: E(ŷ) <= E_unary(y*) + 2c·E_pairwise(y*).
				if exp.Energy > un+2*c*pw+1e-9 || exp.Energy < opt-1e-9 {
					t.Fatalf("case %d: expansion %v, optimum %v (unary %v, pairwise %v)", k, exp.Energy, opt, un, pw)
				}
				if swp.Energy < opt-1e-9 {
					t.Fatalf("case %d: swap %v below optimum %v", k, swp.Energy, opt)
				}
				// Local optimality with respect to every expansion / swap move.
				c0, c1 := make([]int, n), make([]int, n)
				for a := 0; a < tc.labels; a++ {
					copy(c0, exp.Labels)
					for i := range c1 {
						c1[i] = a
					}
					if v := bestMove(e, c0, c1); v < exp.Energy-1e-9 {
						t.Fatalf("case %d: expansion on %d improves %v to %v", k, a, exp.Energy, v)
					}
					for b := a + 1; b < tc.labels; b++ {
						for i, l := range swp.Labels {
							c0[i], c1[i] = l, l
							if l == a || l == b {
								c0[i], c1[i] = a, b
							}
						}
						if v := bestMove(e, c0, c1); v < swp.Energy-1e-9 {
							t.Fatalf("case %d: swap %d-%d improves %v to %v", k, a, b, swp.Energy, v)
						}
					}
				}
			}
		})
	}
}

// On binary submodular energies one expansion move is the whole problem.
func TestExpansionBinaryIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	for k := 0; k < cases(100, 500); k++ {
		n := 1 + rng.IntN(9)
		e := randomEnergy(rng, n, 2, randomGraph(rng, n, rng.IntN(2*n)))
		makeSubmodular(e)
		opt, _ := optimum(e, 0)
		for _, m := range []Method{AlphaExpansion{}, AlphaBetaSwap{}} {
			r, err := m.Minimize(e)
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.Energy, opt) {
				t.Fatalf("case %d %s: %v, optimum %v", k, m.Name(), r.Energy, opt)
			}
		}
	}
}

// On non-metric energies moves are truncated, but the energy never goes up.
func TestMovesNonMetricNeverWorsen(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	sawTrunc := false
	for k := 0; k < cases(50, 300); k++ {
		n := 2 + rng.IntN(15)
		e := randomEnergy(rng, n, 3, randomGraph(rng, n, rng.IntN(2*n)))
		init := make([]int, n)
		for i := range init {
			init[i] = rng.IntN(3)
		}
		for _, m := range []Method{AlphaExpansion{Init: init}, AlphaBetaSwap{Init: init}} {
			r, err := m.Minimize(e)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, m.Name(), e, r)
			if r.Energy > e.Eval(init)+1e-12 {
				t.Fatalf("case %d %s: energy rose from %v to %v", k, m.Name(), e.Eval(init), r.Energy)
			}
			sawTrunc = sawTrunc || r.Truncated > 0
		}
	}
	if !sawTrunc {
		t.Fatal("no truncation exercised")
	}
}

// Reusing one Solver on energies with the same edges gives the same results
// as fresh solves (the partial labelling of QPBO is even flow-independent).
func TestSolverReuseEqualsFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 33))
	edges := randomGraph(rng, 40, 80)
	for _, m := range []Method{GraphCut{}, TruncatedGraphCut{}, QPBO{}, AlphaExpansion{}, AlphaBetaSwap{}} {
		t.Run(m.Name(), func(t *testing.T) {
			s := NewSolver(m)
			L := 2
			if m.Name() == "expansion" || m.Name() == "swap" {
				L = 3
			}
			for k := 0; k < cases(10, 50); k++ {
				var e *Energy
				if L == 2 {
					e = randomEnergy(rng, 40, 2, edges)
					if m.Name() == "graphcut" {
						makeSubmodular(e)
					}
				} else {
					e = pottsEnergy(rng, 40, L, edges)
				}
				a, err := s.Minimize(e)
				if err != nil {
					t.Fatal(err)
				}
				b, err := m.Minimize(e)
				if err != nil {
					t.Fatal(err)
				}
				if !near(a.Energy, b.Energy) || a.Unlabelled != b.Unlabelled || a.Truncated != b.Truncated {
					t.Fatalf("case %d: reused %+v, fresh %+v", k, a, b)
				}
			}
		})
	}
}
