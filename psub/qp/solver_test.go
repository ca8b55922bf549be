package qp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var tight = Options{Tol: 1e-11, FeasTol: 1e-10, MaxIter: 200000}

func TestBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 300
	if testing.Short() {
		n = 60
	}
	for trial := range n {
		dim := 1 + rng.IntN(4)
		pr := randomProblem(rng, dim, 1+rng.IntN(4), rng.IntN(4), 0.5, 0.15)
		t.Run(fmt.Sprintf("trial%d_dim%d_planes%d_rows%d", trial, dim, len(pr.planes), len(pr.rows)), func(t *testing.T) {
			wBF, _, objBF, ok := bruteForce(pr)
			if !ok {
				t.Fatal("brute force found no feasible active set")
			}
			sol, err := pr.solver().Solve(tight)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sol.Primal-objBF) > 1e-7*(1+objBF) || math.Abs(sol.Dual-objBF) > 1e-7*(1+objBF) {
				t.Errorf("primal %.12g dual %.12g, brute force %.12g", sol.Primal, sol.Dual, objBF)
			}
			for i := range wBF {
				if math.Abs(sol.W[i]-wBF[i]) > 1e-4 {
					t.Errorf("w = %v, brute force %v", sol.W, wBF)
					break
				}
			}
		})
	}
}

// checkKKT verifies the optimality conditions of sol for pr within tol.
func checkKKT(t *testing.T, pr *problem, sol Solution, tol float64) {
	t.Helper()
	d := pr.dim
	scale := 1.0
	for _, x := range sol.W {
		scale = math.Max(scale, math.Abs(x))
	}
	// Dual feasibility.
	sum := 0.0
	for j, a := range sol.Alpha {
		if a < 0 {
			t.Errorf("alpha[%d] = %g < 0", j, a)
		}
		sum += a
	}
	if sum > pr.c*(1+1e-12) {
		t.Errorf("sum alpha = %.15g > C = %g", sum, pr.c)
	}
	for k, m := range sol.Mu {
		if m < 0 {
			t.Errorf("mu[%d] = %g < 0", k, m)
		}
	}
	for i, nu := range sol.Nu {
		st := pr.state[i]
		if (st == lower && nu < 0) || (st == upper && nu > 0) || ((st == free || st == fixed) && nu != 0) {
			t.Errorf("nu[%d] = %g has the wrong sign for state %d", i, nu, st)
		}
	}
	// Stationarity: W = Σα a + Σμ g + ν on the non-fixed coordinates.
	z := make([]float64, d)
	copy(z, sol.Nu)
	for j, a := range pr.planes {
		for i := range z {
			z[i] += sol.Alpha[j] * a[i]
		}
	}
	for k, g := range pr.rows {
		for i := range z {
			z[i] += sol.Mu[k] * g[i]
		}
	}
	for i := range z {
		if pr.state[i] == fixed {
			if sol.W[i] != 0 {
				t.Errorf("fixed w[%d] = %g", i, sol.W[i])
			}
			continue
		}
		if math.Abs(z[i]-sol.W[i]) > tol*scale {
			t.Errorf("stationarity at %d: W = %g, Σαa+Σμg+ν = %g", i, sol.W[i], z[i])
		}
	}
	// Primal feasibility and complementary slackness.
	xi := 0.0
	for j, a := range pr.planes {
		m := dotS(a, sol.W) - pr.b[j]
		xi = math.Max(xi, -m)
		if sol.Alpha[j] > tol && math.Abs(m+sol.Xi) > tol*scale {
			t.Errorf("plane %d: alpha %g but slack a·w − b + ξ = %g", j, sol.Alpha[j], m+sol.Xi)
		}
	}
	if math.Abs(xi-sol.Xi) > 1e-12*scale {
		t.Errorf("Xi = %g, recomputed %g", sol.Xi, xi)
	}
	if pr.c-sum > tol && sol.Xi > tol*scale {
		t.Errorf("slack dual C − Σα = %g > 0 but ξ = %g", pr.c-sum, sol.Xi)
	}
	for k, g := range pr.rows {
		m := dotS(g, sol.W)
		if m < -tol*scale {
			t.Errorf("row %d violated: g·w = %g", k, m)
		}
		if sol.Mu[k] > tol && math.Abs(m) > tol*scale {
			t.Errorf("row %d: mu %g but g·w = %g", k, sol.Mu[k], m)
		}
	}
	for i, st := range pr.state {
		if (st == lower && sol.W[i] < 0) || (st == upper && sol.W[i] > 0) {
			t.Errorf("bound %d violated: w = %g", i, sol.W[i])
		}
		if sol.Nu[i] != 0 && math.Abs(sol.Nu[i]) > tol && math.Abs(sol.W[i]) > tol*scale {
			t.Errorf("bound %d: nu %g but w = %g", i, sol.Nu[i], sol.W[i])
		}
	}
	// Weak duality holds exactly only at a feasible W; a row violation v
	// lets the primal fall below the dual by at most about Σμ·‖g‖·v.
	slackBound := 1e-12 * (1 + math.Abs(sol.Primal))
	for k, g := range pr.rows {
		slackBound += sol.Mu[k] * math.Sqrt(dotS(g, g)) * sol.RowViolation
	}
	if sol.Primal < sol.Dual-slackBound {
		t.Errorf("primal %.15g < dual %.15g (row violation %g)", sol.Primal, sol.Dual, sol.RowViolation)
	}
}

func dotS(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestKKT(t *testing.T) {
	cases := []struct {
		name              string
		dim, planes, rows int
		pBound, pFix      float64
	}{
		{"planes only", 30, 20, 0, 0, 0},
		{"planes and rows", 30, 20, 15, 0, 0},
		{"bounds", 30, 20, 0, 0.6, 0.1},
		{"everything", 40, 25, 20, 0.5, 0.1},
		{"more rows than dims", 10, 8, 25, 0.3, 0},
		{"one plane", 5, 1, 3, 0.4, 0.2},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range cases {
		for rep := range 5 {
			t.Run(fmt.Sprintf("%s/%d", tc.name, rep), func(t *testing.T) {
				pr := randomProblem(rng, tc.dim, tc.planes, tc.rows, tc.pBound, tc.pFix)
				sol, err := pr.solver().Solve(tight)
				if err != nil {
					t.Fatal(err)
				}
				checkKKT(t, pr, sol, 1e-6)
				if gap := sol.Primal - sol.Dual; gap > 1e-9*sol.Primal+1e-12 {
					t.Errorf("gap %g at primal %g", gap, sol.Primal)
				}
				// Coordinate ascent alone is an independent route to the
				// same optimum.
				cd := tight
				cd.NoPolish = true
				solCD, err := pr.solver().Solve(cd)
				if err != nil {
					t.Fatal(err)
				}
				checkKKT(t, pr, solCD, 1e-6)
				if math.Abs(solCD.Primal-sol.Primal) > 1e-8*(1+sol.Primal) {
					t.Errorf("coordinate ascent primal %.12g, with polish %.12g", solCD.Primal, sol.Primal)
				}
			})
		}
	}
}

// TestWarmStart adds planes and rows one call at a time and compares the
// final answer with a cold solve of the same problem; it also checks that
// adding a constraint never lowers the optimum.
func TestWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for rep := range 4 {
		t.Run(fmt.Sprint(rep), func(t *testing.T) {
			pr := randomProblem(rng, 25, 30, 20, 0.4, 0.1)
			warm, _ := New(pr.dim, pr.c)
			for i, st := range pr.state {
				switch st {
				case fixed:
					warm.Fix(i)
				case lower, upper:
					warm.Bound(i, int(st))
				}
			}
			prev := Solution{}
			r := 0
			for j := range pr.planes {
				warm.AddPlane(pr.planes[j], pr.b[j])
				if j%3 == 2 && r < len(pr.rows) {
					warm.AddRow(pr.rows[r])
					r++
				}
				sol, err := warm.Solve(tight)
				if err != nil {
					t.Fatal(err)
				}
				if j > 0 && sol.Primal < prev.Dual-1e-9*(1+prev.Dual) {
					t.Errorf("step %d: optimum fell from ≥ %.12g to ≤ %.12g after adding constraints", j, prev.Dual, sol.Primal)
				}
				prev = sol
			}
			for ; r < len(pr.rows); r++ {
				warm.AddRow(pr.rows[r])
				sol, err := warm.Solve(tight)
				if err != nil {
					t.Fatal(err)
				}
				if sol.Primal < prev.Dual-1e-9*(1+prev.Dual) {
					t.Errorf("row %d: optimum fell from ≥ %.12g to ≤ %.12g", r, prev.Dual, sol.Primal)
				}
				prev = sol
			}
			cold, err := pr.solver().Solve(tight)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(cold.Primal-prev.Primal) > 1e-8*(1+cold.Primal) {
				t.Errorf("warm primal %.12g, cold %.12g", prev.Primal, cold.Primal)
			}
			for i := range cold.W {
				if math.Abs(cold.W[i]-prev.W[i]) > 1e-5 {
					t.Errorf("w[%d]: warm %g, cold %g", i, prev.W[i], cold.W[i])
				}
			}
			checkKKT(t, pr, prev, 1e-6)
		})
	}
}

// TestFixLate fixes and bounds coordinates after planes and rows exist; the
// Gram downdate must give the same optimum as declaring them first.
func TestFixLate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pr := randomProblem(rng, 12, 10, 6, 0.5, 0.2)
	s, _ := New(pr.dim, pr.c)
	pr.addVectors(s)
	if _, err := s.Solve(tight); err != nil {
		t.Fatal(err)
	}
	for i := range pr.state {
		pr.constrain(s, i)
	}
	late, err := s.Solve(tight)
	if err != nil {
		t.Fatal(err)
	}
	early, _ := pr.solver().Solve(tight)
	if math.Abs(late.Primal-early.Primal) > 1e-8*(1+early.Primal) {
		t.Errorf("late primal %.12g, early %.12g", late.Primal, early.Primal)
	}
	checkKKT(t, pr, late, 1e-6)
}

func TestSparseRowsAndRemove(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pr := randomProblem(rng, 15, 12, 8, 0.4, 0.1)
	dense, _ := pr.solver().Solve(tight)

	s, _ := New(pr.dim, pr.c)
	for i, st := range pr.state {
		switch st {
		case fixed:
			s.Fix(i)
		case lower, upper:
			s.Bound(i, int(st))
		}
	}
	for j, a := range pr.planes {
		s.AddPlane(a, pr.b[j])
	}
	for _, g := range pr.rows {
		var idx []int
		var val []float64
		for i := len(g) - 1; i >= 0; i-- { // unsorted on purpose
			if i%4 != 3 {
				idx = append(idx, i)
				val = append(val, g[i])
			} else { // split into two entries that sum to g[i]
				idx = append(idx, i, i)
				val = append(val, 0.25*g[i], 0.75*g[i])
			}
		}
		s.AddRowSparse(idx, val)
	}
	sparse, err := s.Solve(tight)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sparse.Primal-dense.Primal) > 1e-8*(1+dense.Primal) {
		t.Errorf("sparse primal %.12g, dense %.12g", sparse.Primal, dense.Primal)
	}
	// Removing inactive planes does not change the optimum.
	inactive := []int{}
	for j, a := range sparse.Alpha {
		if a == 0 {
			inactive = append(inactive, j)
		}
	}
	s.RemovePlanes(inactive)
	if got, want := s.Planes(), len(pr.planes)-len(inactive); got != want {
		t.Fatalf("Planes() = %d after removal, want %d", got, want)
	}
	after, err := s.Solve(tight)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(after.Primal-dense.Primal) > 1e-8*(1+dense.Primal) {
		t.Errorf("after removing %d inactive planes: primal %.12g, want %.12g", len(inactive), after.Primal, dense.Primal)
	}
	if len(s.ActivePlanes(0)) != s.Planes() && len(inactive) > 0 {
		t.Logf("some kept planes became inactive after re-solve (allowed)")
	}
}

func TestErrors(t *testing.T) {
	if _, err := New(0, 1); err == nil {
		t.Error("New(0, 1): no error")
	}
	for _, c := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := New(3, c); err == nil {
			t.Errorf("New(3, %v): no error", c)
		}
	}
	cases := []struct {
		name string
		do   func(s *Solver)
		want string
	}{
		{"short plane", func(s *Solver) { s.AddPlane([]float64{1, 2}, 1) }, "plane 0 has length 2, want 3"},
		{"NaN plane", func(s *Solver) { s.AddPlane([]float64{1, math.NaN(), 0}, 1) }, "coordinate 1 is NaN"},
		{"Inf offset", func(s *Solver) { s.AddPlane([]float64{1, 0, 0}, math.Inf(1)) }, "offset b is +Inf"},
		{"long row", func(s *Solver) { s.AddRow([]float64{1, 2, 3, 4}) }, "row 0 has length 4, want 3"},
		{"sparse mismatch", func(s *Solver) { s.AddRowSparse([]int{0, 1}, []float64{1}) }, "2 indices but 1 values"},
		{"sparse out of range", func(s *Solver) { s.AddRowSparse([]int{3}, []float64{1}) }, "index 3 out of range"},
		{"fix out of range", func(s *Solver) { s.Fix(-1) }, "Fix(-1)"},
		{"bound sign", func(s *Solver) { s.Bound(0, 0) }, "sign must be +1 or -1"},
		{"remove missing plane", func(s *Solver) { s.RemovePlanes([]int{5}) }, "plane 5 out of range"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(3, 1)
			if err != nil {
				t.Fatal(err)
			}
			tc.do(s)
			_, err = s.Solve(Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Solve error %v, want one containing %q", err, tc.want)
			}
			if s.Err() == nil {
				t.Error("Err() = nil")
			}
		})
	}
}

func TestNotConverged(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pr := randomProblem(rng, 30, 30, 20, 0.3, 0)
	sol, err := pr.solver().Solve(Options{Tol: 1e-14, MaxIter: 1, NoPolish: true})
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("err = %v, want ErrNotConverged", err)
	}
	if sol.Iterations != 1 || len(sol.W) != 30 {
		t.Errorf("solution not filled: %d iterations, len(W) = %d", sol.Iterations, len(sol.W))
	}
}

// TestBoundsOnly checks the closed form: with sign bounds and a single plane
// of b large enough to saturate, w = clip(C·a).
func TestBoundsOnly(t *testing.T) {
	s, _ := New(4, 2)
	s.Bound(0, 1)
	s.Bound(1, 1)
	s.Bound(2, -1)
	s.AddPlane([]float64{1, -1, 1, -1}, 100)
	sol, err := s.Solve(tight)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 0, 0, -2}
	for i := range want {
		if math.Abs(sol.W[i]-want[i]) > 1e-9 {
			t.Fatalf("W = %v, want %v", sol.W, want)
		}
	}
}

// TestSSVMLike runs the learner's pattern on correlated, cows-shaped data
// (planes sharing a direction, submodularity rows (p, −p, −p, p)): warm
// solves after each added plane and batch of rows, then KKT at the end and
// agreement with a cold solve.
func TestSSVMLike(t *testing.T) {
	for _, c := range []float64{0.1, 10, 1000} {
		t.Run(fmt.Sprint("C=", c), func(t *testing.T) {
			g := newSSVMLike(uint64(c*7)+1, 8, 10)
			pr := &problem{dim: g.dim(), c: c, state: make([]int8, g.dim())}
			for i := 2 * g.fu; i < g.dim(); i += 3 {
				pr.state[i] = lower
			}
			pr.state[0] = fixed
			s := pr.solver()
			for it := range 60 {
				a, b := g.plane()
				for i := range a {
					a[i] *= 0.05
				}
				pr.planes = append(pr.planes, a)
				pr.b = append(pr.b, b)
				s.AddPlane(a, b)
				if it%4 == 3 {
					for range 3 {
						r := g.row()
						pr.rows = append(pr.rows, r)
						s.AddRow(r)
					}
				}
				if _, err := s.Solve(tight); err != nil {
					t.Fatal(err)
				}
			}
			warm, _ := s.Solve(tight)
			checkKKT(t, pr, warm, 1e-6)
			cold, err := pr.solver().Solve(tight)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(cold.Primal - warm.Primal); d > 1e-9*(1+cold.Primal) {
				t.Errorf("warm primal %.12g, cold %.12g", warm.Primal, cold.Primal)
			}
			t.Logf("primal %.6g, %d active planes, %d active rows, cold sweeps %d",
				cold.Primal, len(s.ActivePlanes(0)), len(s.ActiveRows(0)), cold.Iterations)
		})
	}
}

// TestIllConditioned covers geometry where coordinate ascent alone stalls
// (it was found by TestBruteForce): constraints that are almost linearly
// dependent, so the multipliers grow large and cancel.
func TestIllConditioned(t *testing.T) {
	cases := []struct {
		name string
		pr   *problem
	}{
		{
			name: "nearly opposite rows",
			pr: &problem{dim: 2, c: 5, state: []int8{free, free},
				planes: [][]float64{{0.13, -0.94}, {-0.09, 0.28}}, b: []float64{1.5, 1.2},
				rows: [][]float64{{0.944, -0.759}, {-0.602, 0.4849}}},
		},
		{
			name: "row almost spanned by sign bounds",
			pr: &problem{dim: 2, c: 3, state: []int8{upper, free},
				planes: [][]float64{{1, 0.001}}, b: []float64{1},
				rows: [][]float64{{-1, -1e-4}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sol, err := tc.pr.solver().Solve(Options{MaxIter: 100})
			if err != nil {
				t.Fatal(err)
			}
			_, xiBF, objBF, _ := bruteForce(tc.pr)
			if math.Abs(sol.Primal-objBF) > 1e-7*objBF || math.Abs(sol.Xi-xiBF) > 1e-6 {
				t.Errorf("primal %.10g ξ %.10g, brute force %.10g ξ %.10g", sol.Primal, sol.Xi, objBF, xiBF)
			}
			checkKKT(t, tc.pr, sol, 1e-6)
		})
	}
}

// TestEdgeCases covers degenerate inputs against the brute-force oracle.
func TestEdgeCases(t *testing.T) {
	f, lo, up, fx := free, lower, upper, fixed
	cases := []struct {
		name string
		pr   *problem
	}{
		{"no planes", &problem{dim: 2, c: 1, state: []int8{f, f}, rows: [][]float64{{1, 2}}}},
		{"all coordinates fixed", &problem{dim: 2, c: 2, state: []int8{fx, fx},
			planes: [][]float64{{1, 2}}, b: []float64{0.5}}},
		{"negative offsets", &problem{dim: 2, c: 1, state: []int8{f, f},
			planes: [][]float64{{1, 0}, {0, 1}}, b: []float64{-1, -0.5}}},
		{"zero plane", &problem{dim: 2, c: 3, state: []int8{f, f},
			planes: [][]float64{{0, 0}, {1, 1}}, b: []float64{0.7, 0.5}}},
		{"duplicate planes", &problem{dim: 2, c: 3, state: []int8{f, lo},
			planes: [][]float64{{1, -1}, {1, -1}, {1, -1}}, b: []float64{1, 1, 0.9}}},
		{"zero row", &problem{dim: 2, c: 1, state: []int8{f, f},
			planes: [][]float64{{1, 1}}, b: []float64{1}, rows: [][]float64{{0, 0}}}},
		{"row equal to a bound", &problem{dim: 2, c: 1, state: []int8{up, f},
			planes: [][]float64{{1, 1}}, b: []float64{1}, rows: [][]float64{{-1, 0}, {-2, 0}}}},
		{"row on a fixed coordinate only", &problem{dim: 2, c: 1, state: []int8{fx, f},
			planes: [][]float64{{1, 1}}, b: []float64{1}, rows: [][]float64{{-1, 0}}}},
		{"opposite rows (equality)", &problem{dim: 3, c: 4, state: []int8{f, f, f},
			planes: [][]float64{{1, 2, 0}, {0, 1, 1}}, b: []float64{1, 1},
			rows: [][]float64{{1, -1, 0}, {-1, 1, 0}}}},
		{"huge C", &problem{dim: 2, c: 1e6, state: []int8{f, f},
			planes: [][]float64{{1, 0}, {0.5, 1}}, b: []float64{1, 2}}},
		{"tiny C", &problem{dim: 2, c: 1e-6, state: []int8{f, f},
			planes: [][]float64{{1, 0}, {0.5, 1}}, b: []float64{1, 2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, objBF, ok := bruteForce(tc.pr)
			if !ok {
				t.Fatal("brute force failed")
			}
			// Coordinate ascent alone stops on the gap, so its KKT
			// residuals are only O(√gap): a looser tolerance.
			for _, mode := range []struct {
				noPolish bool
				kktTol   float64
			}{{false, 1e-6}, {true, 1e-5}} {
				t.Run(fmt.Sprint("NoPolish=", mode.noPolish), func(t *testing.T) {
					opt := tight
					opt.NoPolish = mode.noPolish
					sol, err := tc.pr.solver().Solve(opt)
					if err != nil {
						t.Fatal(err)
					}
					if math.Abs(sol.Primal-objBF) > 1e-8*(1+objBF) {
						t.Errorf("primal %.12g, brute force %.12g", sol.Primal, objBF)
					}
					checkKKT(t, tc.pr, sol, mode.kktTol)
				})
			}
		})
	}
}

// TestBoundsInStages adds the bounds and fixes in three batches with a solve
// after each, so that the vectors' cached bound entries (vec.bent) are made
// under one set of bounds and must be rebuilt under the next; the last
// solve must match a solver that had all bounds from the start.
func TestBoundsInStages(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for c := 0; c < 20; c++ {
		pr := randomProblem(rng, 12, 10, 6, 0.5, 0.2)
		s, _ := New(pr.dim, pr.c)
		pr.addVectors(s)
		for stage := 0; stage < 3; stage++ {
			for i := stage; i < len(pr.state); i += 3 {
				pr.constrain(s, i)
			}
			if _, err := s.Solve(tight); err != nil {
				t.Fatal(err)
			}
		}
		late, err := s.Solve(tight)
		if err != nil {
			t.Fatal(err)
		}
		early, _ := pr.solver().Solve(tight)
		if math.Abs(late.Primal-early.Primal) > 1e-8*(1+early.Primal) {
			t.Fatalf("case %d: staged primal %.12g, all bounds from the start %.12g", c, late.Primal, early.Primal)
		}
		checkKKT(t, pr, late, 1e-6)
	}
}

// A Solver rebuilt from Plane, the rows and Duals (a checkpoint) starts at
// the old solution: its first Solve returns the same optimum within two
// sweeps (the sign-bound duals are not saved; one bound sweep restores them).
// Infeasible warm starts are errors.
func TestRebuildFromDuals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pr := randomProblem(rng, 20, 12, 8, 0.3, 0.1)
	s := pr.solver()
	sol, err := s.Solve(tight)
	if err != nil {
		t.Fatal(err)
	}
	re, _ := New(pr.dim, pr.c)
	for i := range pr.state {
		pr.constrain(re, i)
	}
	for j := 0; j < s.Planes(); j++ {
		a, b := s.Plane(j)
		for i, st := range pr.state {
			if want := pr.planes[j][i]; st != fixed && a[i] != want {
				t.Fatalf("plane %d coordinate %d: %v, want %v", j, i, a[i], want)
			}
		}
		re.AddPlane(a, b)
	}
	for _, g := range pr.rows {
		re.AddRow(g)
	}
	alpha, mu := s.Duals()
	if err := re.WarmStart(alpha, mu); err != nil {
		t.Fatal(err)
	}
	a2, m2 := re.Duals()
	for j := range alpha {
		if a2[j] != alpha[j] {
			t.Errorf("plane %d: warm dual %v, want %v", j, a2[j], alpha[j])
		}
	}
	for k := range mu {
		if m2[k] != mu[k] {
			t.Errorf("row %d: warm dual %v, want %v", k, m2[k], mu[k])
		}
	}
	got, err := re.Solve(tight)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Primal-sol.Primal) > 1e-9*(1+sol.Primal) || got.Iterations > 2 {
		t.Errorf("rebuilt: primal %.12g after %d sweeps, original %.12g after %d", got.Primal, got.Iterations, sol.Primal, sol.Iterations)
	}
	for _, tc := range []struct {
		name      string
		alpha, mu []float64
	}{
		{"short", alpha[1:], mu},
		{"negative", append([]float64{-1}, alpha[1:]...), mu},
		{"above C", append([]float64{2 * pr.c}, alpha[1:]...), mu},
		{"NaN row", alpha, append([]float64{math.NaN()}, mu[1:]...)},
	} {
		if err := re.WarmStart(tc.alpha, tc.mu); err == nil {
			t.Errorf("%s warm start accepted", tc.name)
		}
	}
}
