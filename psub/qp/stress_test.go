package qp

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRandomCones solves random problems of every shape, including many
// more rows and sign bounds than dimensions (thin or trivial feasible cones,
// where the optimum is degenerate and the multipliers are large and cancel),
// with default options, and checks the KKT conditions.
func TestRandomCones(t *testing.T) {
	n := uint64(80)
	if testing.Short() {
		n = 20
	}
	for seed := range n {
		rng := rand.New(rand.NewPCG(seed, 1))
		dim := 5 + rng.IntN(40)
		pr := randomProblem(rng, dim, 1+rng.IntN(40), rng.IntN(60), rng.Float64(), 0.2*rng.Float64())
		t.Run(fmt.Sprintf("seed%d_dim%d_planes%d_rows%d", seed, dim, len(pr.planes), len(pr.rows)), func(t *testing.T) {
			sol, err := pr.solver().Solve(Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkKKT(t, pr, sol, 1e-5)
		})
	}
}

// TestConeFaces has the shape of multi-label C4: the weights split into
// blocks (one per edge), every block constrained by the same cone of
// non-negative features, rows added in batches of the most violated as
// constraint generation does, with dense planes coupling the blocks. A new
// row turns many rows of its block inactive at once, which is what the
// polish's projected step is for; the test checks that it is taken and that
// the warm-started, polished result agrees with a cold coordinate-ascent
// solve of the same constraints.
func TestConeFaces(t *testing.T) {
	s, pr, sol, rounds := coneFaces(t, coneShape{blocks: 10, bdim: 12, feats: 200, planes: 20, addK: 10}, 11)
	t.Logf("%d rounds, %d rows, %d projected steps", rounds, len(pr.rows), s.projected)
	checkKKT(t, pr, sol, 1e-6)
	cold := tight
	cold.NoPolish = true
	ref, err := pr.solver().Solve(cold)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ref.Primal-sol.Primal) > 1e-8*(1+sol.Primal) {
		t.Errorf("after %d rounds: warm polished primal %.12g, cold coordinate ascent %.12g", rounds, sol.Primal, ref.Primal)
	}
	if s.projected == 0 {
		t.Errorf("after %d rounds (%d rows): the projected step was never taken", rounds, len(pr.rows))
	}
}

type coneShape struct{ blocks, bdim, feats, planes, addK int }

// coneFaces builds the problem of TestConeFaces and runs constraint
// generation to the end: solve, add the addK most violated (block, feature)
// rows not yet in the QP, until none is violated. It returns the solver, the
// problem as added, the last solution and the number of solves.
func coneFaces(tb testing.TB, sh coneShape, seed uint64) (*Solver, *problem, Solution, int) {
	rng := rand.New(rand.NewPCG(seed, 12))
	dim := sh.blocks * sh.bdim
	pr := &problem{dim: dim, c: 5, state: make([]int8, dim)}
	for range sh.planes {
		a := make([]float64, dim)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		pr.planes = append(pr.planes, a)
		pr.b = append(pr.b, 1+rng.Float64())
	}
	var cone [][]float64 // shared non-negative features
	for range sh.feats {
		f := make([]float64, sh.bdim)
		for i := range f {
			f[i] = math.Max(0, rng.NormFloat64())
		}
		cone = append(cone, f)
	}
	s := pr.solver()
	added := map[[2]int]bool{}
	for round := 1; ; round++ {
		sol, err := s.Solve(tight)
		if err != nil {
			tb.Fatal(err)
		}
		type cand struct {
			b, f int
			m    float64
		}
		var cs []cand
		for b := range sh.blocks {
			for f, x := range cone {
				if m := dotS(sol.W[b*sh.bdim:(b+1)*sh.bdim], x); m < -1e-9 && !added[[2]int{b, f}] {
					cs = append(cs, cand{b, f, m})
				}
			}
		}
		if len(cs) == 0 {
			return s, pr, sol, round
		}
		slices.SortFunc(cs, func(x, y cand) int { return cmp.Compare(x.m, y.m) })
		for _, c := range cs[:min(sh.addK, len(cs))] {
			g := make([]float64, dim)
			copy(g[c.b*sh.bdim:], cone[c.f])
			added[[2]int{c.b, c.f}] = true
			pr.rows = append(pr.rows, g)
			s.AddRow(g)
		}
	}
}
