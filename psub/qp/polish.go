package qp

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// maxPolish caps the number of planes and rows in the free set that polish
// solves for with a dense LU (rounds with free sign bounds, O(n³) each), and
// maxPolishChol with the updated Cholesky factor (rounds without them, O(n²)
// each and n(n+1)/2 floats of memory). Multi-label C4 (yeast: 91 edges
// with up to 40 independent rows each) keeps well over 800 rows active.
const (
	maxPolish     = 800
	maxPolishChol = 5000
)

// proxRel is the polish's proximal term relative to each vector's squared
// norm (proxEps): large enough to keep the factor of dependent vectors
// positive definite, small enough that a few refinement rounds undo it.
const proxRel = 1e-11

// maxPolishRounds caps the restricted solves of one polish; maxEnter is how
// many of the most violated constraints enter the free set per round, and
// per group of rows when the violated rows span many groups (see
// entering): up to maxEnter more per enterGroups groups priced.
const (
	maxPolishRounds = 400
	maxEnter        = 8
	enterGroups     = 8
)

// viol is a constraint whose multiplier should enter the free set: p ≥ 0 a
// plane or row, p < 0 bound −1−p, and the size of its KKT violation.
type viol struct {
	p int
	d float64
}

// freeSet is the state of one polish: the free set F, the restricted
// solution of the current round and the dual changes not yet applied.
type freeSet struct {
	inS     []bool // planes and rows in F
	inB     []bool // sign bounds in F
	slackIn bool   // the slack α_0 in F
	// The restricted solution: the duals that solve the KKT equalities of
	// the dual on F (zero outside F, negative where a multiplier should
	// leave), α_0, and ξ, the multiplier of Σα = C when α_0 is not free.
	lamStar, betaStar []float64
	a0Star, xi        float64
	// Dual changes not yet applied to v and u (refresh at the end catches
	// those of the last rounds).
	pend, pendB []float64
	// maxB is the largest |b_j| of the planes, the scale of ξ.
	maxB float64
	// Rounds without free sign bounds share one Cholesky factor, updated as
	// F changes (activeChol), and kept for the next Solve; useChol turns
	// it off for the rest of the polish once it has failed.
	useChol bool
}

// polish finishes the solve with a primal active-set method on the dual QP,
// started from the coordinate-ascent iterate. The free set F holds the
// multipliers currently > 0 (planes, rows, bounds and the slack α_0). Each
// round solves the KKT equalities of the dual restricted to F exactly
// (solveRestricted), moves from the current duals towards that solution as
// far as λ ≥ 0 allows (stepLength, step, or pathStep along the projected
// path) and drops from F the multipliers that hit 0; when the restricted
// solution is reached it prices the constraints outside F (violations) and
// adds the most violated to F (enter). Every iterate is dual feasible and
// the dual value never decreases, so unlike a naive guess-and-check of the
// active set it cannot wander. polish returns whether the result passes
// done (the sweeps' stopping test); the improved duals are kept either way.
//
// Why: coordinate ascent converges slowly when constraints are nearly
// linearly dependent (two almost opposite rows, a row almost spanned by sign
// bounds, many almost parallel planes), but it gets close to the active set
// early, and from there the active-set method needs a few exact solves.
func (w *work) polish(done func() bool) bool {
	f := w.newFreeSet()
	kkt := false
	for range maxPolishRounds {
		cholRound, ok := w.solveRestricted(f)
		if !ok {
			break
		}
		t := w.stepLength(f)
		if t < 1 && cholRound {
			w.pathStep(f)
			continue
		}
		w.step(f, t)
		if t < 1 {
			continue // blocked: a multiplier left F, solve again
		}
		w.applyPending(f)
		cand := w.violations(f)
		if len(cand) == 0 && (f.slackIn || f.xi >= -1e-12*f.maxB) {
			kkt = true
			break // KKT point of the whole dual
		}
		if !f.slackIn && f.xi < -1e-12*f.maxB {
			f.slackIn = true // ξ < 0: the slack constraint ξ ≥ 0 binds
		}
		if !w.enter(f, cand) {
			break
		}
	}
	if !kkt {
		w.s.gaveUp++
	}
	w.refresh() // drop the rounding drift of the incremental updates
	return done()
}

// newFreeSet starts F at the multipliers that are > 0.
func (w *work) newFreeSet() *freeSet {
	s := w.s
	f := &freeSet{
		inS:      make([]bool, len(s.vecs)),
		inB:      make([]bool, len(w.bc)),
		slackIn:  w.alpha0 > 0,
		lamStar:  make([]float64, len(s.vecs)),
		betaStar: make([]float64, len(w.bc)),
		pend:     make([]float64, len(s.vecs)),
		pendB:    make([]float64, len(w.bc)),
		useChol:  true,
	}
	for p := range s.vecs {
		f.inS[p] = s.lam[p] > 0
	}
	for b := range w.bc {
		f.inB[b] = w.beta[b] > 0
	}
	for _, p := range s.planes {
		f.maxB = math.Max(f.maxB, math.Abs(s.rhs[p]))
	}
	return f
}

// solveRestricted computes the restricted solution on F: through the kept
// Cholesky factor when F has no free sign bound (cholRound), otherwise, or
// when the factor fails, with a dense LU (solveActive). ok is false when
// neither gives a usable solution.
func (w *work) solveRestricted(f *freeSet) (cholRound, ok bool) {
	s := w.s
	if !slices.ContainsFunc(s.planes, func(p int) bool { return f.inS[p] }) {
		f.slackIn = true // α_0 = C − Σα must then carry all of C
	}
	if f.useChol && !slices.Contains(f.inB, true) {
		if s.chol == nil {
			s.chol = newActiveChol(s, proxRel)
		}
		f.a0Star, f.xi, ok = w.solveActiveChol(s.chol, f.inS, !f.slackIn, f.lamStar)
		clear(f.betaStar)
		if ok {
			return true, true
		}
		s.chol, f.useChol = nil, false // start afresh next time, with an ε for today's norms
	}
	f.a0Star, f.xi, ok = w.solveActive(f.inS, f.inB, !f.slackIn, f.lamStar, f.betaStar)
	return false, ok
}

// stepLength is the ratio test: the longest step t ≤ 1 from the current
// duals towards the restricted solution that keeps every multiplier in F
// (and α_0) ≥ 0.
func (w *work) stepLength(f *freeSet) float64 {
	s := w.s
	t := 1.0
	for p := range s.vecs {
		if f.inS[p] && f.lamStar[p] < 0 {
			t = math.Min(t, s.lam[p]/(s.lam[p]-f.lamStar[p]))
		}
	}
	for b := range w.bc {
		if f.inB[b] && f.betaStar[b] < 0 {
			t = math.Min(t, w.beta[b]/(w.beta[b]-f.betaStar[b]))
		}
	}
	if f.slackIn && f.a0Star < 0 {
		t = math.Min(t, w.alpha0/(w.alpha0-f.a0Star))
	}
	return t
}

// step moves the duals in F by t towards the restricted solution, keeping
// the changes pending for v and u (applyPending). When the step is blocked
// (t < 1) the blocking multipliers are set to exactly 0 and leave F.
func (w *work) step(f *freeSet, t float64) {
	s := w.s
	blocked := t < 1
	for p := range s.vecs {
		if !f.inS[p] {
			continue
		}
		next := s.lam[p] + t*(f.lamStar[p]-s.lam[p])
		if f.lamStar[p] < 0 && (next <= 0 || (blocked && next <= 1e-15*math.Abs(f.lamStar[p]))) {
			next, f.inS[p] = 0, false
		}
		f.pend[p] += next - s.lam[p]
		s.lam[p] = next
	}
	for b := range w.bc {
		if !f.inB[b] {
			continue
		}
		next := w.beta[b] + t*(f.betaStar[b]-w.beta[b])
		if f.betaStar[b] < 0 && (next <= 0 || (blocked && next <= 1e-15*math.Abs(f.betaStar[b]))) {
			next, f.inB[b] = 0, false
		}
		f.pendB[b] += next - w.beta[b]
		w.beta[b] = next
	}
	if f.slackIn {
		w.alpha0 += t * (f.a0Star - w.alpha0)
		if f.a0Star < 0 && (w.alpha0 <= 0 || (blocked && w.alpha0 <= 1e-15*math.Abs(f.a0Star))) {
			w.alpha0, f.slackIn = 0, false
		}
	} else {
		w.alpha0 = 0
	}
}

// applyPending brings v and u up to the duals. They follow the duals only
// at the restricted optimum, where they are read: most rounds are blocked.
// Each update costs O(k) per moved dual; when many moved, recomputing them
// through the primal w is cheaper.
func (w *work) applyPending(f *freeSet) {
	moved := 0
	for _, d := range f.pend {
		if d != 0 {
			moved++
		}
	}
	// (A lean solver's updates cost O(nnz + planes) each, and the rows' v
	// are recomputed from w when read: updating is never dearer.)
	if !w.s.lean && moved*len(w.s.vecs) > w.primalCost() {
		w.refreshPrimal()
		clear(f.pend)
		clear(f.pendB)
	}
	for p, d := range f.pend {
		if d != 0 {
			w.moveVec(p, d)
			f.pend[p] = 0
		}
	}
	for b, d := range f.pendB {
		if d != 0 {
			w.moveBound(b, d)
			f.pendB[b] = 0
		}
	}
}

// violations prices the constraints outside F at the restricted optimum:
// the planes, rows and sign bounds that violate their KKT condition, with
// the size of the violation. The threshold sits above the rounding noise of
// w, which scales with Σ|λ_p|‖r_p‖, so that tight constraints with zero
// multiplier do not flip in and out.
func (w *work) violations(f *freeSet) []viol {
	s := w.s
	st := w.measure()
	thr := 1e-11 * (math.Sqrt(2*st.primal) + st.noise)
	var cand []viol
	for _, p := range s.planes {
		nrm := math.Sqrt(s.diag[p])
		if d := s.rhs[p] - w.v[p] - f.xi; !f.inS[p] && d > thr*nrm+1e-12*math.Abs(s.rhs[p]) {
			cand = append(cand, viol{p, d / math.Max(nrm, 1e-300)})
		}
	}
	for _, p := range s.rows {
		nrm := math.Sqrt(s.diag[p])
		if !f.inS[p] && w.v[p] < -thr*nrm {
			cand = append(cand, viol{p, -w.v[p] / nrm})
		}
	}
	for b := range w.bc {
		if !f.inB[b] && w.u[b] < -thr {
			cand = append(cand, viol{-1 - b, -w.u[b]})
		}
	}
	return cand
}

// enter adds the most violated few of cand (entering) to F at 0 (the point
// does not move). It returns false, leaving F as it is, when F would
// outgrow what the next round's solve takes (maxPolishChol, or maxPolish
// when that round has free sign bounds and so a dense LU) already with the
// maxEnter most violated; past that many, entering takes as many as fit.
func (w *work) enter(f *freeSet, cand []viol) bool {
	cand = w.entering(cand)
	nS := 0
	for p := range w.s.vecs {
		if f.inS[p] {
			nS++
		}
	}
	limit := maxPolishChol
	if slices.Contains(f.inB, true) || slices.ContainsFunc(cand, func(v viol) bool { return v.p < 0 }) {
		limit = maxPolish
	}
	if nS+len(cand) > limit {
		if nS+min(len(cand), maxEnter) > limit {
			return false
		}
		cand = cand[:limit-nS]
	}
	if len(cand) > maxEnter {
		w.s.wideEnters++
	}
	for _, c := range cand {
		if c.p >= 0 {
			f.inS[c.p] = true
		} else {
			f.inB[-1-c.p] = true
		}
	}
	return true
}

// entering sorts cand by violation, largest first, and returns those of
// it that enter F, in that order. When the violated rows span fewer than
// 2·enterGroups groups (every segmentation fit: one group) that is the
// maxEnter most violated, as it always was. With more groups (multi-label
// C4: one per label pair, 91 for yeast), a new plane leaves violated rows
// in most of them, about a thousand in all, and entering 8 per round took
// over a hundred rounds, each a full restricted solve and a pricing pass;
// but a row's entry costs only its own block of the factor. So then up to
// maxEnter rows of each group enter, the most violated first, at most
// maxEnter·⌊g/enterGroups⌋ in all for g groups among the violated rows
// (planes and sign bounds count towards that total only). The rows that
// should not have entered leave again in the path step, several per round.
func (w *work) entering(cand []viol) []viol {
	sort.Slice(cand, func(x, y int) bool { return cand[x].d > cand[y].d })
	s := w.s
	// The groups of the violated rows, with the rows taken from each.
	var groups map[int]int
	nGroups := 0
	for _, c := range cand {
		if c.p < 0 || s.isPlane[c.p] {
			continue
		}
		if groups == nil {
			groups = make(map[int]int)
		}
		g := s.group(c.p)
		if _, ok := groups[g]; !ok {
			groups[g] = 0
			nGroups++
		}
	}
	total := maxEnter * max(1, nGroups/enterGroups)
	if total <= maxEnter {
		return cand[:min(len(cand), maxEnter)]
	}
	out := make([]viol, 0, total)
	for _, c := range cand {
		if len(out) == total {
			break
		}
		if c.p >= 0 && !s.isPlane[c.p] {
			g := s.group(c.p)
			if groups[g] == maxEnter {
				continue
			}
			groups[g]++
		}
		out = append(out, c)
	}
	return out
}

// pathStep replaces the blocked step of a round without free sign bounds.
// The blocked step moves from λ towards the restricted solution λ* only as
// far as the first row multiplier reaching 0, and drops that one (one
// O(|F|²) solve per dropped row). pathStep instead follows the projected
// path x(τ) = max(λ + τ·(λ* − λ), 0) over the rows for τ ∈ [0, τ_end],
// where τ_end ≤ 1 is where the first plane multiplier or α_0 reaches 0
// (those cannot be clipped: Σα + α_0 = C must hold), and stops at the
// path's first local maximum of the dual (the generalised Cauchy point of
// gradient projection methods, here along the restricted Newton direction).
// Between breakpoints (τ where a row reaches 0) the path is a line and the
// dual a concave parabola, so the point is exact and found in O(|F|) per
// breakpoint passed, from K·λ and K·λ* of the restricted solve. The path
// starts as the blocked step's segment, on which the dual increases, so the
// result is never below the blocked step: the dual stays monotone and the
// method still ends at a KKT point. Every row past its breakpoint leaves F
// at once, which matters when a new plane or row turns a whole face of a
// cone inactive (multi-label C4: hundreds of rows in one round instead of
// one per round). It must follow solveActiveChol on the same free set.
func (w *work) pathStep(f *freeSet) {
	s, c := w.s, w.s.chol
	inS, lamStar, slackIn, a0Star, pend := f.inS, f.lamStar, f.slackIn, f.a0Star, f.pend
	n := c.n()
	x, d := c.buf(bufPathX, n), c.buf(bufPathD, n)
	tauEnd, stop := 1.0, -1 // stop: the position of the blocking plane, −2 for α_0
	brks := c.brks[:0]
	for a, p := range c.ord {
		x[a], d[a] = s.lam[p], lamStar[p]-s.lam[p]
		if lamStar[p] >= 0 {
			continue
		}
		tau := x[a] / -d[a]
		if s.isPlane[p] {
			if tau < tauEnd {
				tauEnd, stop = tau, a
			}
		} else {
			brks = append(brks, pathBreak{tau, a, p})
		}
	}
	if slackIn && a0Star < 0 {
		if tau := w.alpha0 / (w.alpha0 - a0Star); tau < tauEnd {
			tauEnd, stop = tau, -2
		}
	}
	c.brks = brks // kept for the next call
	sort.Slice(brks, func(i, j int) bool { return brks[i].tau < brks[j].tau })
	// g = ∂D/∂τ and q = −∂²D/∂τ² along the current direction d, where
	// ∇D(x) = b∘1_planes − K·x; K·λ and K·λ* come from the restricted solve.
	kx, kd := c.buf(bufPathKx, n), c.buf(bufPathKd, n)
	copy(kx, c.kLam)
	floats.SubTo(kd, c.kStar, c.kLam)
	g, q := 0.0, floats.Dot(d, kd)
	for a, p := range c.ord {
		if s.isPlane[p] {
			g += d[a] * s.rhs[p]
		}
	}
	g -= floats.Dot(d, kx)
	col := c.buf(bufPathCol, n) // column of K_SS
	tau := 0.0
	for k := 0; ; k++ {
		end := tauEnd
		if k < len(brks) && brks[k].tau < tauEnd {
			end = brks[k].tau
		}
		// On this segment the dual is D(x(τ)) + g·σ − ½q·σ², σ ∈ [0, end − τ].
		// Stop at its maximum unless that is the segment's end.
		span := end - tau
		sig := span
		if q > 0 {
			sig = math.Min(span, math.Max(0, g/q))
		} else if g <= 0 {
			sig = 0
		}
		if k == 0 {
			// The dual rises to τ = 1 along the first segment: at least
			// the blocked step, also when rounding in g or q says less.
			sig = span
		}
		if sig < span || end == tauEnd {
			tau += sig
			break
		}
		// Move to the breakpoint, then take the row out of the direction.
		g -= q * span
		floats.AddScaled(kx, span, kd)
		tau = end
		a := brks[k].a
		da := d[a]
		// Row a's column of K_SS: zero outside its own block and the
		// border (rows of other groups are orthogonal to it), so only
		// those positions are formed and moved.
		o, e := c.span(brks[k].p)
		nR := c.nBlocks()
		s.kRow(brks[k].p, c.ord[o:e], col[o:e])
		s.kRow(brks[k].p, c.ord[nR:], col[nR:])
		// With row a's component gone: g loses d_a·∂D/∂x_a = d_a·(−(Kx)_a);
		// q = dᵀKd loses 2·d_a·(Kd)_a − d_a²·K_aa.
		g += da * kx[a]
		q += -2*da*kd[a] + da*da*col[a]
		floats.AddScaled(kd[o:e], -da, col[o:e])
		floats.AddScaled(kd[nR:], -da, col[nR:])
		d[a] = 0
	}
	// Apply: rows whose breakpoint the chosen point reached are exactly 0
	// and leave F (also at τ = 0: a row that entered at 0 and whose
	// restricted multiplier is negative); the blocking plane (or α_0)
	// leaves when the point is its breakpoint.
	dropped := c.drops[:0]
	for range n {
		dropped = append(dropped, false)
	}
	c.drops = dropped
	nDropped := 0
	for _, b := range brks {
		if b.tau > tau {
			break
		}
		dropped[b.a] = true
		nDropped++
	}
	atStop := tau >= tauEnd && tauEnd < 1
	for a, p := range c.ord {
		next := s.lam[p] + tau*(lamStar[p]-s.lam[p])
		if dropped[a] || next < 0 || (atStop && a == stop) {
			next, inS[p] = 0, false
		}
		pend[p] += next - s.lam[p]
		s.lam[p] = next
	}
	if slackIn {
		w.alpha0 += tau * (a0Star - w.alpha0)
		if w.alpha0 < 0 || (atStop && stop == -2) {
			w.alpha0 = 0
		}
		if atStop && stop == -2 {
			// α_0 leaves F as a blocking plane does (step does the same):
			// left in, the next round solves for the same α_0 < 0 and
			// stops at τ = 0 again until the round cap.
			f.slackIn = false
		}
	}
	if nDropped > 1 {
		s.multiDrops++
	}
}

// solveActive solves the KKT equalities of the dual restricted to the free
// set (inS, inB, and the slack unless xiFree) and writes the restricted
// solution to lamOut and betaOut (zero outside the free set; entries can be
// negative). With free bounds B the coordinates in B are eliminated (w_i = 0
// there), so the system matrix is the Gram matrix on the other coordinates,
// M = K_FF − E Eᵀ with E_pb = s_b·r_p[i_b]:
//
//	M λ + ξ·1_planes = t   (t = b_j for planes, 0 for rows)
//	Σ_planes λ = C         (ξ free: the slack α_0 is 0)
//	ξ = 0                  (slack free: α_0 = C − Σλ)
//
// M is singular when the free vectors are linearly dependent; w is then
// unique but λ is not, and the restricted dual may even be unbounded along a
// null direction. A proximal term Σ_p ε_p(λ_p − λ_cur,p)² (ε_p = proxEps:
// relative to K_pp), iterated a few times,
// returns the solution nearest the current duals in the first case; in the
// second the rounds diverge, and solveActive returns α_0, ξ and false (as
// it does for non-finite values), leaving the duals to coordinate ascent.
func (w *work) solveActive(inS, inB []bool, xiFree bool, lamOut, betaOut []float64) (a0, xi float64, ok bool) {
	s := w.s
	var S []int
	nPlanes := 0
	for p := range s.vecs {
		lamOut[p] = 0
		if inS[p] {
			S = append(S, p)
			if s.isPlane[p] {
				nPlanes++
			}
		}
	}
	for b := range betaOut {
		betaOut[b] = 0
	}
	if nPlanes == 0 {
		xiFree = false // Σα = C has no solution without planes
	}
	bpos := make([]int, len(w.bc))
	var freeB []int // the bound of each column of E
	for b := range w.bc {
		bpos[b] = -1
		if inB[b] {
			bpos[b] = len(freeB)
			freeB = append(freeB, b)
		}
	}
	nb := len(freeB)
	ns := len(S)
	n := ns
	if xiFree {
		n++
	}
	if n == 0 {
		return s.c, 0, true
	}
	// E (ns × nb, row-major): E_ab = s_b·r_p[i_b] for free vector p = S[a].
	// The planes are dense, so E is too; its products go through BLAS.
	var e blas64.General
	if nb > 0 && ns > 0 {
		e = blas64.General{Rows: ns, Cols: nb, Stride: nb, Data: make([]float64, ns*nb)}
		for a, p := range S {
			for _, en := range w.rowEnt[p] {
				if c := bpos[en.i]; c >= 0 {
					e.Data[a*nb+c] = en.v
				}
			}
		}
	}
	m := make([]float64, n*n)
	t := make([]float64, n)
	for a, p := range S {
		s.kRow(p, S, m[a*n:a*n+ns])
		t[a] = s.rhs[p]
		if xiFree && s.isPlane[p] {
			m[a*n+ns] = 1
			m[ns*n+a] = 1
		}
	}
	if xiFree {
		t[ns] = s.c
	}
	if e.Data != nil {
		// M_SS −= E Eᵀ: a symmetric rank-nb update (half the flops of a
		// general product) into the upper triangle, then mirrored.
		blas64.Syrk(blas.NoTrans, -1, e, 1, blas64.Symmetric{Uplo: blas.Upper, N: ns, Stride: n, Data: m})
		for a := 0; a < ns; a++ {
			for c := a + 1; c < ns; c++ {
				m[c*n+a] = m[a*n+c]
			}
		}
	}
	m0 := append([]float64(nil), m...)
	// The proximal term is relative to each vector's norm (proxEps), taken
	// before the bounds' elimination, which can leave a dependent row with
	// a zero diagonal.
	for a, p := range S {
		m[a*n+a] += proxEps(proxRel, s.diag[p])
	}
	var lu denseLU
	if !lu.factorize(m, n) {
		return 0, 0, false
	}
	x := make([]float64, n)
	for a, p := range S {
		x[a] = s.lam[p]
	}
	// Residual form of the proximal iteration, x ← x + (M+εD)⁻¹(t − M x):
	// algebraically the same as x ← (M+εD)⁻¹(t + εD·x), but it also refines
	// away the cancellation of the bordered system when C ≪ b_j.
	r := make([]float64, n)
	d := make([]float64, n)
	for range 6 {
		for a := range r {
			r[a] = t[a] - floats.Dot(m0[a*n:(a+1)*n], x)
		}
		lu.solve(d, r)
		for a := range x {
			x[a] += d[a]
		}
	}
	sum, ok := w.takeRestricted(S, x, lamOut)
	if !ok {
		return 0, 0, false
	}
	a0 = s.c - sum
	if xiFree {
		xi, a0 = x[ns], 0
	}
	// β_b makes w_{i_b} = 0: β_b = −Σ_p λ_p s_b r_p[i_b].
	if e.Data != nil {
		beta := make([]float64, nb)
		blas64.Gemv(blas.Trans, 1, e, blas64.Vector{N: ns, Inc: 1, Data: x[:ns]}, 0, blas64.Vector{N: nb, Inc: 1, Data: beta})
		for c, b := range freeB {
			betaOut[b] = -beta[c]
		}
	}
	return a0, xi, true
}

// takeRestricted checks the proximal rounds' result x (the duals of S in
// its order, possibly followed by ξ) and writes the duals to lamOut,
// returning their sum over planes. A restricted dual that is unbounded
// along a null direction makes the rounds grow by ~1/ε each: such a step
// is not a usable solution (ok is false; the caller leaves the duals to
// coordinate ascent), nor is a non-finite one.
func (w *work) takeRestricted(S []int, x, lamOut []float64) (planeSum float64, ok bool) {
	s := w.s
	scale := s.c
	for _, p := range S {
		scale = math.Max(scale, math.Abs(s.lam[p]))
	}
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e8*scale {
			return 0, false
		}
	}
	for a, p := range S {
		lamOut[p] = x[a]
		if s.isPlane[p] {
			planeSum += x[a]
		}
	}
	return planeSum, true
}

// pathBreak is a breakpoint of pathStep: the τ at which the row at
// position a (general index p) reaches 0.
type pathBreak struct {
	tau  float64
	a, p int
}
