package qp

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// polish tries to jump to the exact optimum: it guesses the active set from
// the current duals (planes with α > 0, rows with μ > 0, bounds with β > 0,
// and whether ξ is free, i.e. Σα = C) and solves the KKT equalities on it in
// the Gram space, then corrects the guess for a few rounds (drop constraints
// whose multiplier came out negative, add constraints the new w violates), as
// a primal–dual active-set method does. If the rounds end on a consistent
// active set the new duals are kept (and polish reports whether they pass
// done, the sweeps' stopping test); otherwise the duals are restored and
// coordinate ascent continues.
//
// Why: coordinate ascent converges slowly when constraints are nearly
// linearly dependent (two almost opposite rows, a row almost spanned by sign
// bounds); the active set is usually right long before the duals are.
// maxPolish caps the number of planes and rows in the active set that
// polish solves for (a dense LU of that size).
const maxPolish = 800

// viol is a violated constraint: p ≥ 0 a plane or row, p < 0 bound −1−p.
type viol struct {
	p int
	d float64
}

func (w *work) polish(done func() bool) bool {
	s := w.s
	saveLam := append([]float64(nil), s.lam...)
	saveBeta := append([]float64(nil), w.beta...)
	saveA0 := w.alpha0
	saveV := append([]float64(nil), w.v...)
	saveU := append([]float64(nil), w.u...)

	inS := make([]bool, len(s.vecs))
	for p := range s.vecs {
		inS[p] = s.lam[p] > 0
	}
	inB := make([]bool, len(w.bc))
	for b := range w.bc {
		inB[b] = w.beta[b] > 0
	}
	xiFree := w.alpha0 <= 0
	for range 12 {
		xi, ok := w.solveActive(inS, inB, xiFree, saveLam)
		if !ok {
			break
		}
		// Wrong signs: leave the active set.
		changed := false
		for p := range s.vecs {
			if inS[p] && s.lam[p] < 0 {
				inS[p], changed = false, true
			}
		}
		for b := range w.bc {
			if inB[b] && w.beta[b] < 0 {
				inB[b], changed = false, true
			}
		}
		if xiFree && xi < 0 {
			xiFree, changed = false, true
		} else if !xiFree && w.alpha0 < 0 {
			xiFree, changed = true, true
		}
		if changed {
			continue
		}
		w.refresh()
		// Violated constraints enter the active set. The threshold sits
		// above the rounding noise of w, which scales with Σ|λ_p|‖r_p‖ (large
		// when nearly opposite constraints cancel), so that tight
		// constraints with zero multiplier do not flip in and out.
		st := w.measure()
		thr := 1e-11 * (math.Sqrt(2*st.primal) + st.noise)
		// Add the most violated ones, at most max(8, |S|) per round so a
		// cold start does not turn into one huge dense solve.
		var cand []viol
		for _, p := range s.planes {
			if d := s.rhs[p] - w.v[p] - xi; !inS[p] && d > thr*math.Sqrt(s.gram[p][p])+1e-12*math.Abs(s.rhs[p]) {
				cand = append(cand, viol{p, d / math.Sqrt(math.Max(s.gram[p][p], 1e-300))})
			}
		}
		for _, p := range s.rows {
			if !inS[p] && w.v[p] < -thr*math.Sqrt(s.gram[p][p]) {
				cand = append(cand, viol{p, -w.v[p] / math.Sqrt(s.gram[p][p])})
			}
		}
		for b := range w.bc {
			if !inB[b] && w.u[b] < -thr {
				cand = append(cand, viol{-1 - b, -w.u[b]})
			}
		}
		sort.Slice(cand, func(x, y int) bool { return cand[x].d > cand[y].d })
		nS := 0
		for p := range s.vecs {
			if inS[p] {
				nS++
			}
		}
		if len(cand) > max(8, nS) {
			cand = cand[:max(8, nS)]
		}
		if nS+len(cand) > maxPolish {
			break
		}
		for _, c := range cand {
			if c.p >= 0 {
				inS[c.p] = true
			} else {
				inB[-1-c.p] = true
			}
		}
		changed = len(cand) > 0
		if !changed {
			// A consistent active set: keep the point even if done()
			// fails (it is at least as accurate as the sweeps' iterate).
			return done()
		}
	}
	copy(s.lam, saveLam)
	copy(w.beta, saveBeta)
	w.alpha0 = saveA0
	copy(w.v, saveV)
	copy(w.u, saveU)
	return false
}

// solveActive solves the KKT equalities for the active set (inS, inB,
// xiFree) and writes the duals (possibly negative) into lam, beta and
// alpha0. With active bounds B the coordinates in B are eliminated, so the
// system matrix is the Gram matrix on the other coordinates,
// M = K_SS − E Eᵀ with E_pb = s_b·r_p[i_b]:
//
//	M λ + ξ·1_planes = t   (t = b_j for planes, 0 for rows)
//	Σ_planes λ = C         (only when ξ is free; otherwise ξ = 0)
//
// cur holds the duals to stay near when the system is singular. It returns
// ξ, and false if the solve produced non-finite values.
func (w *work) solveActive(inS, inB []bool, xiFree bool, cur []float64) (float64, bool) {
	s := w.s
	var S []int
	nPlanes := 0
	for p := range s.vecs {
		if inS[p] {
			S = append(S, p)
			if s.isPlane[p] {
				nPlanes++
			}
		}
	}
	if nPlanes == 0 {
		xiFree = false // Σα = C has no solution without planes
	}
	bpos := make([]int, len(w.bc))
	nb := 0
	for b := range w.bc {
		bpos[b] = -1
		if inB[b] {
			bpos[b] = nb
			nb++
		}
	}
	ns := len(S)
	n := ns
	if xiFree {
		n++
	}
	for p := range s.lam {
		s.lam[p] = 0
	}
	for b := range w.beta {
		w.beta[b] = 0
	}
	if n == 0 {
		w.alpha0 = s.c
		return 0, true
	}
	var e *mat.Dense
	if nb > 0 {
		e = mat.NewDense(ns, nb, nil)
		for a, p := range S {
			for _, en := range w.rowEnt[p] {
				if c := bpos[en.i]; c >= 0 {
					e.Set(a, c, en.v)
				}
			}
		}
	}
	m := mat.NewDense(n, n, nil)
	t := mat.NewVecDense(n, nil)
	for a, p := range S {
		for c, q := range S {
			m.Set(a, c, s.gram[p][q])
		}
		t.SetVec(a, s.rhs[p])
		if xiFree && s.isPlane[p] {
			m.Set(a, ns, 1)
			m.Set(ns, a, 1)
		}
	}
	if xiFree {
		t.SetVec(ns, s.c)
	}
	if e != nil {
		var eet mat.Dense
		eet.Mul(e, e.T())
		for a := 0; a < ns; a++ {
			for c := 0; c < ns; c++ {
				m.Set(a, c, m.At(a, c)-eet.At(a, c))
			}
		}
	}
	// M is singular when the active vectors are linearly dependent (more
	// active constraints than free dimensions, duplicate planes): w is still
	// unique but λ is not. A proximal term ε‖λ − λ_cur‖² picks the solution
	// nearest the current duals; iterating it (iterative refinement of the
	// proximal point) removes the O(ε) bias on the non-null components.
	maxDiag := 0.0
	for a := 0; a < ns; a++ {
		maxDiag = math.Max(maxDiag, m.At(a, a))
	}
	eps := 1e-11 * math.Max(maxDiag, 1e-300)
	for a := 0; a < ns; a++ {
		m.Set(a, a, m.At(a, a)+eps)
	}
	var lu mat.LU
	lu.Factorize(m)
	x := mat.NewVecDense(n, nil)
	for a, p := range S {
		x.SetVec(a, cur[p])
	}
	rhs := mat.NewVecDense(n, nil)
	for range 6 {
		for a := 0; a < n; a++ {
			r := t.AtVec(a)
			if a < ns {
				r += eps * x.AtVec(a)
			}
			rhs.SetVec(a, r)
		}
		if err := lu.SolveVecTo(x, false, rhs); err != nil {
			if _, ok := err.(mat.Condition); !ok {
				return 0, false
			}
		}
	}
	for a := 0; a < n; a++ {
		if v := x.AtVec(a); math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, false
		}
	}
	sum := 0.0
	for a, p := range S {
		s.lam[p] = x.AtVec(a)
		if s.isPlane[p] {
			sum += s.lam[p]
		}
	}
	w.alpha0 = s.c - sum
	xi := 0.0
	if xiFree {
		xi = x.AtVec(ns)
		w.alpha0 = 0
	}
	// β_b makes w_{i_b} = 0: β_b = −Σ_p λ_p s_b r_p[i_b].
	if e != nil {
		var beta mat.VecDense
		beta.MulVec(e.T(), x.SliceVec(0, ns))
		for b := range w.bc {
			if c := bpos[b]; c >= 0 {
				w.beta[b] = -beta.AtVec(c)
			}
		}
	}
	return xi, true
}
