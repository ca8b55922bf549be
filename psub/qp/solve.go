package qp

import (
	"fmt"
	"math"
)

// Options controls Solve. The zero value means the defaults.
type Options struct {
	// Tol is the target relative duality gap: Solve stops when
	// Primal − Dual ≤ Tol·Primal (plus a floor of 1e-13·C·max_j b_j for
	// problems whose optimum is 0). Default 1e-6, two orders below the
	// 1e-4 SSVM stopping rule it has to certify.
	Tol float64
	// FeasTol bounds the violation of hard rows at the dual iterate:
	// g_k·w ≥ −FeasTol·‖g_k‖·√(2·Primal) for every row (√(2·Primal) ≥ ‖w‖
	// is the scale of w). Default 1e-9. Gap and violation at the level of
	// floating-point rounding are accepted too (see doc.go).
	FeasTol float64
	// MaxIter caps the number of sweeps (one sweep: a round of SMO steps on
	// the planes, one pass over the rows, one pass over the sign bounds).
	// Default 10000.
	MaxIter int
	// NoPolish turns off the active-set polish and leaves coordinate ascent
	// alone (for tests and ablations; slower on ill-conditioned problems).
	NoPolish bool
}

func (o Options) withDefaults() Options {
	if o.Tol <= 0 {
		o.Tol = 1e-6
	}
	if o.FeasTol <= 0 {
		o.FeasTol = 1e-9
	}
	if o.MaxIter <= 0 {
		o.MaxIter = 10000
	}
	return o
}

// Solution is the result of Solve.
type Solution struct {
	// W is the weight vector: the dual iterate w(α, μ, ν) with sign-bounded
	// coordinates clipped to their bound (so fixed and sign constraints hold
	// exactly). Hard rows hold up to RowViolation.
	W []float64
	// Xi = max(0, max_j b_j − a_j·W), the slack that W needs.
	Xi float64
	// Primal = ½‖W‖² + C·Xi, the objective at W. Dual is the dual objective
	// at (Alpha, Mu, Nu), a certified lower bound on the optimum. When
	// RowViolation = 0, W is feasible and Primal ≥ optimum ≥ Dual.
	Primal, Dual float64
	// RowViolation = max_k max(0, −g_k·W)/‖g_k‖: the largest Euclidean
	// distance from W to a hard row's half-space (0 when W is feasible).
	RowViolation float64
	// Alpha are the plane duals (α_j ≥ 0, Σα ≤ C), by plane index.
	Alpha []float64
	// Mu are the hard-row duals (μ_k ≥ 0), by row index.
	Mu []float64
	// Nu are the sign-bound duals per coordinate: ν_i ≥ 0 for w_i ≥ 0,
	// ν_i ≤ 0 for w_i ≤ 0, 0 for free and fixed coordinates.
	Nu []float64
	// Iterations is the number of sweeps done.
	Iterations int
	// RoundOff is set when Solve stopped only on its allowances (see
	// status.ok) for rounding error and for optima near 0 (the floor of
	// Options.Tol): the relative gap or the row violation is above what
	// Options asked for, at the level this problem's numbers can resolve.
	// The solution is as usable as a converged one, but it did not meet its
	// relative tolerance; callers that certify a result say so.
	RoundOff bool
	// Resolution is the relative gap that cannot be resolved at these
	// multipliers, (16ε·N² + floor)/Primal with N = Σ_p |λ_p|·‖r_p‖ (the
	// allowances of the stopping test): Primal − Dual is certain only to
	// about Resolution·Primal.
	Resolution float64
}

// Gap returns Primal − Dual.
func (sol *Solution) Gap() float64 { return sol.Primal - sol.Dual }

type entry struct {
	i int32
	v float64
}

// work is the per-Solve state in the Gram space: v_p = r_p·w for every plane
// and row, u_b = s_b·w_{i_b} for every sign bound, and the sparse coupling
// between general vectors and bounds.
type work struct {
	s      *Solver
	bc     []int     // bounded coordinates
	sg     []float64 // their signs ±1
	beta   []float64 // their duals ≥ 0
	u      []float64 // s_b w_{i_b}
	rowEnt [][]entry // per vector p: (bound b, s_b·r_p[i_b]) for non-zeros
	colEnt [][]entry // per bound b: (vector p, s_b·r_p[i_b])
	v      []float64 // r_p·w
	alpha0 float64   // slack dual C − Σα
	tau    float64   // curvature floor for degenerate SMO pairs
	nnz    int       // non-zeros of all vectors (primalCost), 0 until needed
	// wbuf is the primal w of refreshPrimal. A lean solver keeps it equal
	// to w(λ, β) throughout and keeps v up to date for the planes only: a
	// step on vector q moves w by r_q (O(nnz)) and the planes' v through
	// their Gram rows (O(planes)); the rows' v are recomputed from w when
	// read (syncRows) and are stale in between.
	wbuf  []float64
	stale bool
}

func (s *Solver) newWork() *work {
	w := &work{s: s}
	var bidx []int32
	for i, st := range s.state {
		if st == lower || st == upper {
			if bidx == nil {
				bidx = make([]int32, s.dim)
				for t := range bidx {
					bidx[t] = -1
				}
			}
			bidx[i] = int32(len(w.bc))
			w.bc = append(w.bc, i)
			w.sg = append(w.sg, float64(st))
			w.beta = append(w.beta, s.beta[i])
		}
	}
	n := len(s.vecs)
	w.rowEnt = make([][]entry, n)
	w.colEnt = make([][]entry, len(w.bc))
	if len(w.bc) > 0 {
		// A vector's bound entries depend only on the vector and the set
		// of bounds: kept with the vector between solves (vec.bent).
		count := make([]int, len(w.bc))
		for p := range s.vecs {
			r := &s.vecs[p]
			if r.bver != s.bver+1 {
				var ents []entry
				if r.dense != nil {
					for b, i := range w.bc {
						if x := r.dense[i]; x != 0 {
							ents = append(ents, entry{int32(b), w.sg[b] * x})
						}
					}
				} else {
					for k, i := range r.idx {
						if b := bidx[i]; b >= 0 && r.val[k] != 0 {
							ents = append(ents, entry{b, w.sg[b] * r.val[k]})
						}
					}
				}
				r.bent, r.bver = ents, s.bver+1
			}
			w.rowEnt[p] = r.bent
			for _, e := range r.bent {
				count[e.i]++
			}
		}
		total := 0
		for _, c := range count {
			total += c
		}
		flat := make([]entry, 0, total)
		for b, c := range count {
			w.colEnt[b], flat = flat[len(flat):len(flat):len(flat)+c], flat[:len(flat)+c]
		}
		for p := range s.vecs {
			for _, e := range w.rowEnt[p] {
				w.colEnt[e.i] = append(w.colEnt[e.i], entry{int32(p), e.v})
			}
		}
	}
	// Recompute v and u from scratch so rounding drift does not carry over
	// between Solve calls.
	w.refresh()
	sum := 0.0
	maxDiag := 0.0
	for p := range s.vecs {
		if s.isPlane[p] {
			sum += s.lam[p]
			maxDiag = math.Max(maxDiag, s.diag[p])
		}
	}
	w.alpha0 = math.Max(0, s.c-sum)
	w.tau = 1e-12 * math.Max(maxDiag, 1e-300)
	return w
}

// refresh recomputes v and u from the duals, by whichever way is cheaper:
// through the Gram rows of the non-zero duals (O(|λ ≠ 0|·|vecs|)) or through
// the primal w = Σ_p λ_p r_p + Σ_b β_b s_b e_{i_b}, v_p = r_p·w and
// u_b = s_b w_{i_b} (O(non-zeros of all vectors)). With thousands of active
// sparse hard rows (multi-label C4) the second is far cheaper.
func (w *work) refresh() {
	s := w.s
	if len(w.v) != len(s.vecs) {
		w.v = make([]float64, len(s.vecs))
	}
	if len(w.u) != len(w.bc) {
		w.u = make([]float64, len(w.bc))
	}
	nz := 0
	for _, l := range s.lam {
		if l != 0 {
			nz++
		}
	}
	if s.lean || nz*len(s.vecs) > w.primalCost() {
		w.refreshPrimal()
	} else {
		w.refreshGram()
	}
}

// refreshGram is refresh through the Gram rows.
func (w *work) refreshGram() {
	s := w.s
	// v = Σ_q λ_q K_q (K is symmetric) over the non-zero duals only: most
	// hard rows and many planes are inactive, so this is a few columns.
	clear(w.v)
	for q, l := range s.lam {
		if l == 0 {
			continue
		}
		for p, k := range s.gram[q] {
			w.v[p] += l * k
		}
	}
	for p := range w.v {
		for _, e := range w.rowEnt[p] {
			w.v[p] += e.v * w.beta[e.i]
		}
	}
	for b := range w.u {
		x := w.beta[b]
		for _, e := range w.colEnt[b] {
			x += e.v * s.lam[e.i]
		}
		w.u[b] = x
	}
}

// primalCost is the work of refreshPrimal: the non-zeros of every vector,
// counted twice (w is built from the active ones, then every one is
// multiplied), plus the dimension.
func (w *work) primalCost() int {
	if w.nnz == 0 {
		for p := range w.s.vecs {
			if r := &w.s.vecs[p]; r.dense != nil {
				w.nnz += len(r.dense)
			} else {
				w.nnz += len(r.idx)
			}
		}
	}
	return 2*w.nnz + w.s.dim
}

// refreshPrimal is refresh through the primal w.
func (w *work) refreshPrimal() {
	s := w.s
	if len(w.wbuf) != s.dim {
		w.wbuf = make([]float64, s.dim)
	}
	x := w.wbuf
	clear(x)
	for p, l := range s.lam {
		s.vecs[p].addTo(x, l)
	}
	for b, i := range w.bc {
		x[i] += w.sg[b] * w.beta[b]
	}
	for p := range s.vecs {
		w.v[p] = s.vecs[p].dotDense(x)
	}
	for b, i := range w.bc {
		w.u[b] = w.sg[b] * x[i]
	}
	w.stale = false
}

// syncRows recomputes the rows' v from w when a lean solver has moved w
// since (a no-op otherwise).
func (w *work) syncRows() {
	if !w.stale {
		return
	}
	for _, p := range w.s.rows {
		w.v[p] = w.s.vecs[p].dotDense(w.wbuf)
	}
	w.stale = false
}

// addVec changes the dual of vector q by d and updates v and u.
func (w *work) addVec(q int, d float64) {
	w.s.lam[q] += d
	w.moveVec(q, d)
}

// moveVec updates v and u for a change d of the dual of vector q.
func (w *work) moveVec(q int, d float64) {
	s := w.s
	switch {
	case !s.lean:
		for p, k := range s.gram[q] {
			w.v[p] += d * k
		}
	case s.gram[q] != nil: // a plane
		s.vecs[q].addTo(w.wbuf, d)
		g := s.gram[q]
		for _, p := range s.planes {
			w.v[p] += d * g[p]
		}
		w.stale = true
	default:
		s.vecs[q].addTo(w.wbuf, d)
		for _, p := range s.planes {
			w.v[p] += d * s.gram[p][q]
		}
		w.stale = true
	}
	for _, e := range w.rowEnt[q] {
		w.u[e.i] += d * e.v
	}
}

// addBound changes the dual of bound b by d and updates u and v.
func (w *work) addBound(b int, d float64) {
	w.beta[b] += d
	w.moveBound(b, d)
}

// moveBound updates u and v for a change d of the dual of bound b.
func (w *work) moveBound(b int, d float64) {
	w.u[b] += d
	for _, e := range w.colEnt[b] {
		w.v[e.i] += d * e.v
	}
	if w.s.lean {
		w.wbuf[w.bc[b]] += d * w.sg[b]
		w.stale = true
	}
}

// planeStep does one SMO step on the simplex {α ≥ 0, α_0 + Σα = C}, where
// α_0 is the implicit slack plane (a_0 = 0, b_0 = 0). The receiving plane is
// the one of largest G_j = b_j − a_j·w (∂Dual/∂α_j); the donor, among planes
// with α > 0, maximises the second-order gain (G_up − G_i)²/η (LIBSVM's WSS2).
// It returns the maximal KKT violation max G − min_{α>0} G before the step.
func (w *work) planeStep() float64 {
	s := w.s
	up, gUp := -1, 0.0 // −1 is the slack
	for _, p := range s.planes {
		if g := s.rhs[p] - w.v[p]; g > gUp {
			up, gUp = p, g
		}
	}
	kUU := 0.0
	var kU []float64
	if up >= 0 {
		kUU = s.diag[up]
		kU = s.gram[up]
	}
	low, gLowMin, best, bestEta := -2, math.Inf(1), 0.0, 0.0
	consider := func(p int, g, eta float64) {
		if g < gLowMin {
			gLowMin = g
		}
		diff := gUp - g
		if diff <= 0 {
			return
		}
		if eta <= w.tau {
			eta = w.tau
		}
		if gain := diff * diff / eta; gain > best {
			low, best, bestEta = p, gain, eta
		}
	}
	if up >= 0 && w.alpha0 > 0 {
		consider(-1, 0, kUU)
	}
	for _, p := range s.planes {
		if p == up || s.lam[p] <= 0 {
			continue
		}
		eta := kUU + s.diag[p]
		if kU != nil {
			eta -= 2 * kU[p]
		}
		consider(p, s.rhs[p]-w.v[p], eta)
	}
	if up < 0 && w.alpha0 > 0 && gLowMin > 0 {
		gLowMin = 0
	}
	if low == -2 {
		return math.Max(0, gUp-gLowMin)
	}
	gLow := 0.0
	avail := w.alpha0
	if low >= 0 {
		gLow = s.rhs[low] - w.v[low]
		avail = s.lam[low]
	}
	d := (gUp - gLow) / bestEta
	empty := d >= avail
	if empty {
		d = avail
	}
	if up >= 0 {
		w.addVec(up, d)
	} else {
		w.alpha0 += d
	}
	if low >= 0 {
		w.addVec(low, -d)
		if empty {
			s.lam[low] = 0
		}
	} else {
		w.alpha0 -= d
		if empty {
			w.alpha0 = 0
		}
	}
	return gUp - gLowMin
}

// rowSweep does one exact coordinate-ascent step on every hard row that
// violates its KKT conditions: μ_k ← max(0, μ_k − g_k·w/‖g_k‖²).
func (w *work) rowSweep() {
	s := w.s
	for _, p := range s.rows {
		mu, v := s.lam[p], w.v[p]
		if s.lean {
			v = s.vecs[p].dotDense(w.wbuf)
			w.v[p] = v
		}
		if (mu == 0 && v >= 0) || v == 0 {
			continue
		}
		kpp := s.diag[p]
		if kpp <= 0 {
			continue // g_k = 0 on the free coordinates: always satisfied
		}
		d := -v / kpp
		if mu+d <= 0 {
			d = -mu
		}
		w.addVec(p, d)
		if s.lam[p] < 0 || d == -mu {
			s.lam[p] = 0
		}
	}
}

// boundSweep does the same for the sign bounds (‖e_i‖ = 1).
func (w *work) boundSweep() {
	for b := range w.bc {
		be, u := w.beta[b], w.u[b]
		if (be == 0 && u >= 0) || u == 0 {
			continue
		}
		d := -u
		if be+d <= 0 {
			d = -be
		}
		w.addBound(b, d)
		if d == -be {
			w.beta[b] = 0
		}
	}
}

// status is the state of the dual iterate as seen from the Gram space.
type status struct {
	primal, dual float64 // at w = w(α, μ, ν) with ξ = max(0, max_j G_j)
	viol         float64 // max_k −g_k·w/‖g_k‖ and max_i −s_i w_i, ≥ 0
	noise        float64 // Σ_p |λ_p|‖r_p‖ + Σβ: the rounding scale of w
}

func (w *work) measure() status {
	s := w.s
	w.syncRows()
	xi, lin, wn2, noise := 0.0, 0.0, 0.0, 0.0
	for p := range s.vecs {
		wn2 += s.lam[p] * w.v[p]
		noise += math.Abs(s.lam[p]) * math.Sqrt(s.diag[p])
		if s.isPlane[p] {
			lin += s.lam[p] * s.rhs[p]
			xi = math.Max(xi, s.rhs[p]-w.v[p])
		}
	}
	for b := range w.bc {
		wn2 += w.beta[b] * w.u[b]
		noise += math.Abs(w.beta[b])
	}
	wn2 = math.Max(wn2, 0)
	st := status{primal: 0.5*wn2 + s.c*xi, dual: lin - 0.5*wn2, noise: noise}
	for _, p := range s.rows {
		if v := w.v[p]; v < 0 && s.diag[p] > 0 {
			st.viol = math.Max(st.viol, -v/math.Sqrt(s.diag[p]))
		}
	}
	for b := range w.bc {
		st.viol = math.Max(st.viol, -w.u[b])
	}
	return st
}

// machEps is the unit roundoff of float64.
const machEps = 0x1p-52

// ok is the stopping test: relative gap ≤ tol and row violation ≤
// feasTol·√(2·primal) (√(2·primal) ≥ ‖w‖ is the scale of w and does not
// vanish with w). Both also accept values at the level of the rounding error
// of w = Σλ_p r_p, 16·ε·N for w and 16·ε·N² for ‖w‖², where N = noise: on
// nearly dependent constraints the multipliers can be large and cancel, and
// no float64 computation can certify beyond that.
func (st status) ok(tol, feasTol, floor float64) bool {
	round := 16 * machEps * st.noise
	return st.primal-st.dual <= tol*st.primal+floor+round*st.noise &&
		st.viol <= feasTol*math.Sqrt(2*st.primal)+round
}

// strict is ok without the allowances for rounding error and for optima
// near 0 (the floor): the relative tolerances as asked.
func (st status) strict(tol, feasTol float64) bool {
	return st.primal-st.dual <= tol*st.primal && st.viol <= feasTol*math.Sqrt(2*st.primal)
}

// Solve maximises the dual from the current duals (warm start; planes and
// rows added since the last call start at 0) and returns the solution. It
// returns a wrapped ErrNotConverged, with a usable Solution, when MaxIter
// sweeps were not enough, and the sticky construction error if there is one.
func (s *Solver) Solve(opt Options) (Solution, error) {
	if s.err != nil {
		return Solution{}, s.err
	}
	opt = opt.withDefaults()
	w := s.newWork()
	maxB := 0.0
	for _, p := range s.planes {
		maxB = math.Max(maxB, s.rhs[p])
	}
	floor := 1e-13 * s.c * maxB
	nPlaneSteps := 2*len(s.planes) + 2

	done := func() bool { return w.measure().ok(opt.Tol, opt.FeasTol, floor) }
	iter, converged, nextPolish := 0, false, 1
	for iter < opt.MaxIter {
		iter++
		if iter == nextPolish && !opt.NoPolish {
			nextPolish *= 2
			if w.polish(done) {
				converged = true
				break
			}
		}
		epsP := 0.5 * opt.Tol * w.measure().primal / s.c
		for t := 0; t < nPlaneSteps; t++ {
			if w.planeStep() <= epsP {
				break
			}
		}
		w.rowSweep()
		w.boundSweep()
		if done() {
			converged = true
			break
		}
	}
	st := w.measure()
	roundOff := converged && !st.strict(opt.Tol, opt.FeasTol)
	sol := s.solution(w)
	sol.Iterations, sol.RoundOff = iter, roundOff
	if st.primal > 0 {
		sol.Resolution = (16*machEps*st.noise*st.noise + floor) / st.primal
	}
	if !converged {
		return sol, fmt.Errorf("%w after %d sweeps: gap %.3g (primal %.6g), row violation %.3g",
			ErrNotConverged, iter, sol.Primal-sol.Dual, sol.Primal, sol.RowViolation)
	}
	return sol, nil
}

// solution recomputes w from the duals explicitly (no accumulated rounding),
// stores the bound duals back, clips to the sign bounds and evaluates the
// primal at the clipped W.
func (s *Solver) solution(w *work) Solution {
	sol := Solution{
		W:     make([]float64, s.dim),
		Alpha: make([]float64, len(s.planes)),
		Mu:    make([]float64, len(s.rows)),
		Nu:    make([]float64, s.dim),
	}
	for i := range s.beta {
		s.beta[i] = 0
	}
	for b, i := range w.bc {
		s.beta[i] = w.beta[b]
		sol.Nu[i] = w.sg[b] * w.beta[b]
	}
	W := sol.W
	copy(W, sol.Nu)
	lin := 0.0
	for p := range s.vecs {
		s.vecs[p].addTo(W, s.lam[p])
		if s.isPlane[p] {
			lin += s.lam[p] * s.rhs[p]
		}
	}
	wn2 := 0.0
	for _, x := range W {
		wn2 += x * x
	}
	sol.Dual = lin - 0.5*wn2
	for i, st := range s.state {
		switch {
		case st == fixed:
			W[i] = 0
		case st == lower && W[i] < 0, st == upper && W[i] > 0:
			W[i] = 0
		}
	}
	for j, p := range s.planes {
		sol.Alpha[j] = s.lam[p]
		sol.Xi = math.Max(sol.Xi, s.rhs[p]-s.vecs[p].dotDense(W))
	}
	for k, p := range s.rows {
		sol.Mu[k] = s.lam[p]
		if g := s.vecs[p].dotDense(W); g < 0 && s.diag[p] > 0 {
			sol.RowViolation = math.Max(sol.RowViolation, -g/math.Sqrt(s.diag[p]))
		}
	}
	wn2 = 0
	for _, x := range W {
		wn2 += x * x
	}
	sol.Primal = 0.5*wn2 + s.c*sol.Xi
	return sol
}
