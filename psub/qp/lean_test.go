package qp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// setLeanRows sets the row count above which solvers go lean and returns
// the function that restores it (the tests run sequentially).
func setLeanRows(n int) func() {
	old := leanRows
	leanRows = n
	return func() { leanRows = old }
}

// TestLeanAll runs the solver's oracle, KKT, warm-start, removal, stress
// and path tests again with every solver lean from its first row: the
// rows' products then come from kRow and the rows' margins from w instead
// of the Gram matrix, and the results must pass the same checks (brute
// force, KKT, cold against warm) as the dense path.
func TestLeanAll(t *testing.T) {
	defer setLeanRows(0)()
	for _, tc := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"BruteForce", TestBruteForce},
		{"KKT", TestKKT},
		{"WarmStart", TestWarmStart},
		{"FixLate", TestFixLate},
		{"SparseRowsAndRemove", TestSparseRowsAndRemove},
		{"NotConverged", TestNotConverged},
		{"BoundsOnly", TestBoundsOnly},
		{"SSVMLike", TestSSVMLike},
		{"IllConditioned", TestIllConditioned},
		{"EdgeCases", TestEdgeCases},
		{"BoundsInStages", TestBoundsInStages},
		{"RebuildFromDuals", TestRebuildFromDuals},
		{"RandomCones", TestRandomCones},
		{"ConeFaces", TestConeFaces},
		{"ConeFacesLazyPlanes", TestConeFacesLazyPlanes},
		{"ConeFacesManyGroups", TestConeFacesManyGroups},
		{"PathStep", TestPathStep},
		{"RowScaleInvariance", TestRowScaleInvariance},
		{"RoundOffReported", TestRoundOffReported},
		{"RemoveActiveRows", TestRemoveActiveRows},
	} {
		t.Run(tc.name, tc.f)
	}
}

// multiLabelLike draws a QP shaped like multi-label C4 (data.BuildMultiLabel
// with psub's C4 rows): a unary part and, per edge e of groups, four
// pairwise blocks of f features; a hard row is (p, −p, −p, p) on one edge's
// blocks with a non-negative, partly one-hot p, so rows of different edges
// are orthogonal and an edge's rows have rank ≤ f. Planes are dense and
// correlated, as successive cutting planes are.
type multiLabelLike struct {
	rng              *rand.Rand
	unary, groups, f int
	base             []float64
	scale            float64
	sparseRows       bool
	negativeFeatures bool
	pBound, pFix     float64
	boundFrom        int // sign bounds only on coordinates ≥ boundFrom
}

func (g *multiLabelLike) dim() int { return g.unary + 4*g.groups*g.f }

func (g *multiLabelLike) plane() ([]float64, float64) {
	if g.base == nil {
		g.base = make([]float64, g.dim())
		for i := range g.base {
			g.base[i] = g.rng.NormFloat64()
		}
	}
	a := make([]float64, g.dim())
	for i := range a {
		a[i] = g.scale * (g.base[i] + 0.5*g.rng.NormFloat64())
	}
	return a, 0.2 + 0.8*g.rng.Float64()
}

// row returns a hard row of a random edge as indices and values.
func (g *multiLabelLike) row() ([]int, []float64) {
	e := g.rng.IntN(g.groups)
	off := g.unary + 4*g.f*e
	var idx []int
	var val []float64
	for k := range g.f {
		if g.rng.IntN(2) == 0 {
			continue
		}
		p := g.rng.Float64()
		if g.negativeFeatures {
			p = g.rng.NormFloat64()
		}
		for blk, sgn := range []float64{1, -1, -1, 1} {
			idx, val = append(idx, off+blk*g.f+k), append(val, sgn*p)
		}
	}
	return idx, val
}

// dense turns a sparse row into a dense one.
func dense(dim int, idx []int, val []float64) []float64 {
	g := make([]float64, dim)
	for t, i := range idx {
		g[i] += val[t]
	}
	return g
}

// TestLeanMatchesDense grows multi-label-shaped QPs to many more rows than
// the dimension, as the learner does (a plane, then rounds of rows, a warm
// Solve after each; inactive rows and planes removed now and then), with a
// dense solver and one that goes lean at 40 rows, and checks at every
// Solve that both are optimal to the tolerance: each one's objective is
// within the other's certified bounds (Primal ≥ optimum ≥ Dual), and their
// weights are within √(2·gap) of each other (the primal is 1-strongly
// convex, so ½‖W − w*‖² ≤ Primal − Dual). At the end both pass the KKT
// check against the problem in plain form.
func TestLeanMatchesDense(t *testing.T) {
	for seed := range uint64(6) {
		g := &multiLabelLike{rng: rand.New(rand.NewPCG(seed, 7)), unary: 6, groups: 4 + int(seed), f: 3,
			scale: 0.02 + 0.1*float64(seed%3), sparseRows: seed%2 == 0, negativeFeatures: seed%3 == 2}
		if seed >= 4 {
			g.pBound, g.pFix = 0.3, 0.1
		}
		c := []float64{0.1, 1, 10}[seed%3]
		t.Run(fmt.Sprintf("seed%d_groups%d_C%g", seed, g.groups, c), func(t *testing.T) {
			dim := g.dim()
			pr := &problem{dim: dim, c: c, state: make([]int8, dim)}
			for i := range pr.state {
				switch u := g.rng.Float64(); {
				case u < g.pFix:
					pr.state[i] = fixed
				case u < g.pFix+g.pBound:
					pr.state[i] = lower
				}
			}
			restore := setLeanRows(1 << 30)
			dn := pr.solver()
			leanRows = 40
			ln := pr.solver()
			restore()
			opt := Options{Tol: 1e-9, FeasTol: 1e-9}
			for it := range 40 {
				a, b := g.plane()
				pr.planes, pr.b = append(pr.planes, a), append(pr.b, b)
				dn.AddPlane(a, b)
				ln.AddPlane(a, b)
				for range 4 + g.rng.IntN(16) {
					idx, val := g.row()
					pr.rows = append(pr.rows, dense(dim, idx, val))
					if g.sparseRows {
						dn.AddRowSparse(idx, val)
						ln.AddRowSparse(idx, val)
					} else {
						dn.AddRow(pr.rows[len(pr.rows)-1])
						ln.AddRow(pr.rows[len(pr.rows)-1])
					}
				}
				sd, err := dn.Solve(opt)
				if err != nil {
					t.Fatalf("iteration %d, dense: %v", it, err)
				}
				sl, err := ln.Solve(opt)
				if err != nil {
					t.Fatalf("iteration %d, lean: %v", it, err)
				}
				compareSolutions(t, it, sd, sl)
				if it%10 == 9 {
					// Drop the rows and planes inactive in both, as
					// pruneRows and prunePlanes do.
					var rows, planes []int
					for k := range sd.Mu {
						if sd.Mu[k] == 0 && sl.Mu[k] == 0 && g.rng.IntN(4) == 0 {
							rows = append(rows, k)
						}
					}
					for j := range sd.Alpha {
						if sd.Alpha[j] == 0 && sl.Alpha[j] == 0 {
							planes = append(planes, j)
						}
					}
					dn.RemoveRows(rows)
					ln.RemoveRows(rows)
					dn.RemovePlanes(planes)
					ln.RemovePlanes(planes)
					pr.rows = removeIdx(pr.rows, rows)
					pr.planes = removeIdx(pr.planes, planes)
					pr.b = removeIdx(pr.b, planes)
				}
			}
			if !ln.lean || dn.lean {
				t.Fatalf("lean solver lean = %v, dense solver lean = %v", ln.lean, dn.lean)
			}
			if ln.Rows() <= dim {
				t.Fatalf("%d rows, want more than the dimension %d", ln.Rows(), dim)
			}
			sl, err := ln.Solve(tight)
			if err != nil {
				t.Fatal(err)
			}
			checkKKT(t, pr, sl, 1e-6)
			t.Logf("dim %d, %d planes, %d rows (%d active), primal %.6g", dim, ln.Planes(), ln.Rows(), len(ln.ActiveRows(0)), sl.Primal)
		})
	}
}

// compareSolutions checks that two solutions of the same QP are both
// optimal within their certified gaps.
func compareSolutions(t *testing.T, it int, a, b Solution) {
	t.Helper()
	slack := 1e-12 * (1 + math.Abs(a.Primal))
	if a.Primal < b.Dual-slack || b.Primal < a.Dual-slack {
		t.Fatalf("iteration %d: dense [%.15g, %.15g], lean [%.15g, %.15g]: the bounds exclude each other",
			it, a.Dual, a.Primal, b.Dual, b.Primal)
	}
	d2 := 0.0
	for i := range a.W {
		d2 += (a.W[i] - b.W[i]) * (a.W[i] - b.W[i])
	}
	bound := math.Sqrt(2*math.Max(a.Gap(), 0)) + math.Sqrt(2*math.Max(b.Gap(), 0)) + 1e-9*(1+math.Sqrt(2*a.Primal))
	if d := math.Sqrt(d2); d > bound {
		t.Fatalf("iteration %d: ‖W_dense − W_lean‖ = %.3g, above √(2·gap) bounds %.3g", it, d, bound)
	}
}

// removeIdx drops the entries at the increasing indices idx.
func removeIdx[T any](a []T, idx []int) []T {
	out := a[:0]
	k := 0
	for i, x := range a {
		if k < len(idx) && idx[k] == i {
			k++
			continue
		}
		out = append(out, x)
	}
	return out
}

// TestKRow checks the lean solver's products of two vectors (rows of the
// same group, of different groups, dense and sparse rows, planes, after
// Fix) against the dot products of the vectors in plain form.
func TestKRow(t *testing.T) {
	defer setLeanRows(3)()
	rng := rand.New(rand.NewPCG(5, 5))
	g := &multiLabelLike{rng: rng, unary: 4, groups: 3, f: 4, scale: 1}
	dim := g.dim()
	s, _ := New(dim, 1)
	var vs [][]float64
	for k := range 30 {
		if k%7 == 0 {
			a, b := g.plane()
			s.AddPlane(a, b)
			vs = append(vs, a)
			continue
		}
		idx, val := g.row()
		d := dense(dim, idx, val)
		if k%5 == 0 {
			s.AddRow(d)
		} else {
			s.AddRowSparse(idx, val)
		}
		vs = append(vs, d)
	}
	check := func(when string) {
		all := make([]int, len(vs))
		for p := range all {
			all[p] = p
		}
		out := make([]float64, len(vs))
		for p := range vs {
			s.kRow(p, all, out)
			for q := range vs {
				want := dotS(vs[p], vs[q])
				if math.Abs(out[q]-want) > 1e-12*(1+math.Abs(want)) || math.Abs(s.k(p, q)-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("%s: K[%d][%d] = %g (kRow), %g (k), want %g", when, p, q, out[q], s.k(p, q), want)
				}
			}
		}
		for p := range s.scatter {
			if s.scatter[p] != 0 {
				t.Fatalf("%s: scatter buffer left dirty at %d", when, p)
			}
		}
	}
	if !s.lean {
		t.Fatal("solver did not go lean")
	}
	check("lean")
	fixAt := g.unary + 1 // a pairwise coordinate of edge 0
	s.Fix(fixAt)
	for _, v := range vs {
		v[fixAt] = 0
	}
	check("after Fix")
}
