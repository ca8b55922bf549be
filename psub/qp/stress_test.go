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
// polish's path step is for; the test checks that it drops many at once and that
// the warm-started, polished result agrees with a cold coordinate-ascent
// solve of the same constraints.
func TestConeFaces(t *testing.T) {
	s, pr, sol, rounds := coneFaces(t, coneShape{blocks: 10, bdim: 12, feats: 200, planes: 20, addK: 10}, 11)
	t.Logf("%d rounds, %d rows, %d multi-row drops", rounds, len(pr.rows), s.multiDrops)
	checkAgainstCold(t, pr, sol, rounds)
	if s.multiDrops == 0 {
		t.Errorf("after %d rounds (%d rows): no path step dropped more than one row", rounds, len(pr.rows))
	}
}

// TestConeFacesLazyPlanes is TestConeFaces with the planes entering one at a
// time: after each new plane hundreds of active rows must leave the free
// set, and the polish must get there without giving up to coordinate
// sweeps (which had yeast C4 stall for minutes per solve).
func TestConeFacesLazyPlanes(t *testing.T) {
	s, pr, sol, rounds := coneFaces(t, coneShape{blocks: 30, bdim: 20, feats: 300, planes: 8, addK: 50, lazyPlanes: true}, 5)
	t.Logf("%d rounds, %d rows, %d multi-row drops, %d polishes gave up", rounds, len(pr.rows), s.multiDrops, s.gaveUp)
	checkAgainstCold(t, pr, sol, rounds)
	if s.gaveUp > 0 {
		t.Errorf("after %d rounds (%d rows): %d polishes ended before a KKT point", rounds, len(pr.rows), s.gaveUp)
	}
}

// TestConeFacesManyGroups is TestConeFacesLazyPlanes on 40 blocks: after
// a new plane the violated rows span more than 2·enterGroups groups, so the
// polish enters up to maxEnter rows per group per round (entering). The
// warm-started, polished result must agree with a cold coordinate-ascent
// solve, every polish must end at a KKT point, and the wide entries must
// have happened.
func TestConeFacesManyGroups(t *testing.T) {
	s, pr, sol, rounds := coneFaces(t, coneShape{blocks: 40, bdim: 20, feats: 100, planes: 8, addK: 80, span: 5, lazyPlanes: true}, 7)
	t.Logf("%d rounds, %d rows, %d wide entries, %d multi-row drops, %d polishes gave up", rounds, len(pr.rows), s.wideEnters, s.multiDrops, s.gaveUp)
	checkAgainstCold(t, pr, sol, rounds)
	if s.gaveUp > 0 {
		t.Errorf("after %d rounds (%d rows): %d polishes ended before a KKT point", rounds, len(pr.rows), s.gaveUp)
	}
	if s.wideEnters == 0 {
		t.Errorf("after %d rounds (%d rows): no polish round entered more than %d constraints", rounds, len(pr.rows), maxEnter)
	}
}

// checkAgainstCold checks the KKT conditions of the warm-started, polished
// result of coneFaces and that a cold coordinate-ascent solve of the same
// constraints reaches the same primal.
func checkAgainstCold(t *testing.T, pr *problem, sol Solution, rounds int) {
	t.Helper()
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
}

// coneShape sizes the problem of coneFaces. With lazyPlanes the planes enter
// one at a time, each once the rows of the previous ones are all satisfied,
// as in 1-slack cutting-plane training: a new plane moves w far, and many
// rows that were active leave at once.
type coneShape struct {
	blocks, bdim, feats, planes, addK int
	span                              int // > 0: rows b ⊗ f with f of span values
	lazyPlanes                        bool
}

// coneFaces builds the problem of TestConeFaces and runs constraint
// generation to the end: solve, add the addK most violated (block, feature)
// rows not yet in the QP, until none is violated. It returns the solver, the
// problem as added, the last solution and the number of solves.
func coneFaces(tb testing.TB, sh coneShape, seed uint64) (*Solver, *problem, Solution, int) {
	rng := rand.New(rand.NewPCG(seed, 12))
	dim := sh.blocks * sh.bdim
	pr := &problem{dim: dim, c: 5, state: make([]int8, dim)}
	var planes [][]float64
	var rhs []float64
	for range sh.planes {
		a := make([]float64, dim)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		planes, rhs = append(planes, a), append(rhs, 1+rng.Float64())
	}
	queued := 0 // planes not yet in the QP
	if sh.lazyPlanes {
		queued = sh.planes - 1
	}
	pr.planes, pr.b = planes[:sh.planes-queued], rhs[:sh.planes-queued]
	// The cone's generators are shared by the blocks: non-negative
	// features, or with span > 0 the pairwise rows b ⊗ f of the
	// submodularity constraints, f ≥ 0 of span values and b = (1, −1, −1,
	// 1, …) over the bdim/span label pairs, so that the rows of a block lie
	// in a span-dimensional subspace and the free set is rank deficient.
	var cone [][]float64
	for range sh.feats {
		f := make([]float64, sh.bdim)
		if sh.span == 0 {
			for i := range f {
				f[i] = math.Max(0, rng.NormFloat64())
			}
		} else {
			for i := range sh.span {
				x := math.Max(0, rng.NormFloat64())
				for k := range sh.bdim / sh.span {
					f[k*sh.span+i] = x * float64(1-2*((k^k>>1)&1))
				}
			}
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
		if len(cs) == 0 && queued == 0 {
			return s, pr, sol, round
		}
		if len(cs) == 0 {
			j := sh.planes - queued
			queued--
			pr.planes, pr.b = planes[:j+1], rhs[:j+1]
			s.AddPlane(planes[j], rhs[j])
			continue
		}
		slices.SortFunc(cs, func(x, y cand) int { return cmp.Compare(x.m, y.m) })
		for _, c := range cs[:min(sh.addK, len(cs))] {
			g := make([]float64, dim)
			copy(g[c.b*sh.bdim:], cone[c.f])
			added[[2]int{c.b, c.f}] = true
			pr.rows = append(pr.rows, g)
			// Sparse, as the learner adds them (one block's values).
			var idx []int
			var val []float64
			for i, x := range g {
				if x != 0 {
					idx, val = append(idx, i), append(val, x)
				}
			}
			s.AddRowSparse(idx, val)
		}
	}
}

// TestPathStep checks the polish's path step against a scan of the dual
// along the projected path x(τ) = max(λ + τ·(λ* − λ), 0) (rows clipped,
// planes and α_0 not): the chosen point is at least the blocked step, the
// dual does not decrease on the way to it (a first local maximum, up to the
// grid), it lies on the path, and every row clipped to 0 left the free set.
// The free sets are random, with rows entering at 0, on problems with more
// rows than dimensions so that many restricted multipliers are negative.
func TestPathStep(t *testing.T) {
	tested, scanned := 0, 0
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 21))
		dim := 4 + rng.IntN(12)
		pr := randomProblem(rng, dim, 1+rng.IntN(4), dim+rng.IntN(3*dim), 0, 0)
		s := pr.solver()
		w := s.newWork()
		// Random feasible duals: planes on the simplex Σα + α_0 = C, rows ≥ 0,
		// a quarter of the rows free at 0 (as candidates that just entered).
		inS := make([]bool, len(s.vecs))
		sum := 0.0
		for _, p := range s.planes {
			s.lam[p] = rng.Float64()
			sum += s.lam[p]
			inS[p] = true
		}
		slackIn := rng.IntN(2) == 0
		scale := s.c / sum
		if slackIn {
			scale *= rng.Float64()
		}
		for _, p := range s.planes {
			s.lam[p] *= scale
		}
		w.alpha0 = 0
		if slackIn {
			w.alpha0 = s.c - sum*scale
		}
		for _, p := range s.rows {
			if u := rng.Float64(); u < 0.5 {
				s.lam[p], inS[p] = rng.Float64(), true
			} else if u < 0.75 {
				inS[p] = true
			}
		}
		w.refresh()
		s.chol = newActiveChol(s, 1e-11)
		lamStar := make([]float64, len(s.vecs))
		a0Star, _, ok := w.solveActiveChol(s.chol, inS, !slackIn, lamStar)
		if !ok {
			continue
		}
		start := slices.Clone(s.lam)
		a0 := w.alpha0
		dual := func(lam []float64) float64 {
			d := 0.0
			for p := range lam {
				for q := range lam {
					d -= 0.5 * lam[p] * lam[q] * s.k(p, q)
				}
				if s.isPlane[p] {
					d += lam[p] * s.rhs[p]
				}
			}
			return d
		}
		// The path (planes and α_0 unclipped) and its end τ_end.
		tauEnd, tBlock := 1.0, 1.0
		for p := range s.vecs {
			if inS[p] && lamStar[p] < 0 {
				tau := start[p] / (start[p] - lamStar[p])
				tBlock = math.Min(tBlock, tau)
				if s.isPlane[p] {
					tauEnd = math.Min(tauEnd, tau)
				}
			}
		}
		if slackIn && a0Star < 0 {
			tauEnd = math.Min(tauEnd, a0/(a0-a0Star))
			tBlock = math.Min(tBlock, tauEnd)
		}
		if tBlock >= 1 {
			continue // no blocked step
		}
		inBefore := slices.Clone(inS)
		path := func(tau float64) []float64 {
			x := make([]float64, len(start))
			for p := range x {
				if inBefore[p] {
					x[p] = start[p] + tau*(lamStar[p]-start[p])
					if !s.isPlane[p] {
						x[p] = math.Max(x[p], 0)
					}
				}
			}
			return x
		}
		w.pathStep(&freeSet{inS: inS, lamStar: lamStar, slackIn: slackIn, a0Star: a0Star, pend: make([]float64, len(s.vecs))})
		tested++
		got := dual(s.lam)
		tol := 1e-9 * (1 + math.Abs(got))
		if blocked := dual(path(tBlock)); got < blocked-tol {
			t.Errorf("seed %d: path step dual %.12g below the blocked step's %.12g", seed, got, blocked)
		}
		// Which τ did it take? Read it off the multiplier that moves most
		// and is not clipped at the chosen point.
		tau, move := -1.0, 1e-6
		for p := range s.vecs {
			if d := lamStar[p] - start[p]; inBefore[p] && s.lam[p] > 0 && math.Abs(d) > move {
				tau, move = (s.lam[p]-start[p])/d, math.Abs(d)
			}
		}
		if tau < 0 { // planes did not move: τ not identifiable, dual checked above
		}
		if tau > tauEnd+1e-9 {
			t.Errorf("seed %d: τ = %.6g past the path's end %.6g", seed, tau, tauEnd)
		}
		want := path(tau)
		for p := range want {
			if math.Abs(s.lam[p]-want[p]) > 1e-9*(1+math.Abs(want[p])) {
				t.Fatalf("seed %d: multiplier %d = %.12g, path at τ = %.6g gives %.12g", seed, p, s.lam[p], tau, want[p])
			}
			if !s.isPlane[p] && inBefore[p] && lamStar[p] < 0 && start[p]+tau*(lamStar[p]-start[p]) <= 0 && inS[p] {
				t.Errorf("seed %d: row %d clipped to 0 but still free", seed, p)
			}
		}
		scanned++
		prev := dual(path(0))
		for k := 1; k <= 200; k++ {
			d := dual(path(tau * float64(k) / 200))
			if d < prev-tol {
				t.Fatalf("seed %d: the dual falls along the path before τ = %.6g (at %.6g: %.12g after %.12g; blocked step at %.6g, end %.6g)", seed, tau, tau*float64(k)/200, d, prev, tBlock, tauEnd)
			}
			prev = d
		}
	}
	if tested < 30 || scanned < 20 {
		t.Fatalf("only %d of 200 random states had a blocked step, %d with τ identified", tested, scanned)
	}
	t.Logf("%d states with a blocked step, %d with the path scanned", tested, scanned)
}

// TestRefreshPaths checks that the two ways of recomputing v = K·λ (+ bound
// terms) and u agree: through the Gram rows and through the primal w, on
// random duals with dense planes, sparse rows, sign bounds and fixes.
func TestRefreshPaths(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 33))
		dim := 5 + rng.IntN(30)
		pr := randomProblem(rng, dim, 1+rng.IntN(5), 0, 0.4, 0.1)
		s := pr.solver()
		for range 1 + rng.IntN(40) { // sparse rows
			var idx []int
			var val []float64
			for i := range dim {
				if rng.IntN(4) == 0 {
					idx, val = append(idx, i), append(val, rng.NormFloat64())
				}
			}
			s.AddRowSparse(idx, val)
		}
		for p := range s.lam {
			if rng.IntN(3) > 0 {
				s.lam[p] = rng.Float64()
			}
		}
		w := s.newWork()
		for b := range w.beta {
			w.beta[b] = rng.Float64()
		}
		w.refreshGram()
		gramV, gramU := slices.Clone(w.v), slices.Clone(w.u)
		w.refreshPrimal()
		for p := range gramV {
			if d := math.Abs(gramV[p] - w.v[p]); d > 1e-12*(1+math.Abs(gramV[p])) {
				t.Fatalf("seed %d: v[%d] = %.15g through the Gram rows, %.15g through w", seed, p, gramV[p], w.v[p])
			}
		}
		for b := range gramU {
			if d := math.Abs(gramU[b] - w.u[b]); d > 1e-12*(1+math.Abs(gramU[b])) {
				t.Fatalf("seed %d: u[%d] = %.15g through the Gram rows, %.15g through w", seed, b, gramU[b], w.u[b])
			}
		}
	}
}
