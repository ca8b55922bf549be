package feature

// Convex hull and convex cone membership (the geometry of the paper's §4,
// "Sample complexity of probably submodular constraints").
//
// C3 and C4 constrain w only on the training edges: ⟨w_c, p⟩ ≥ 0 for every
// training pairwise feature p (w_c = w_aa + w_bb − w_ab − w_ba for C4). Any
// test feature q in the convex cone of the training features, q = Σ λ_j p_j
// with λ ≥ 0, then satisfies ⟨w_c, q⟩ = Σ λ_j ⟨w_c, p_j⟩ ≥ 0 for EVERY w of the
// set: the fraction of test features outside the cone bounds the fraction of
// non-submodular test edges of any C3/C4 model. The paper bounds the cone by
// the convex hull (hull ⊆ cone), whose uncovered probability mass goes to 0
// as the training set grows.
//
// Both memberships are decided by non-negative least squares (NNLS):
//
//	q ∈ cone(P)  ⇔  min_{λ≥0} ‖Pλ − q‖ = 0
//	q ∈ conv(P)  ⇔  min_{λ≥0} ‖Pλ − q‖² + s²(1ᵀλ − 1)² = 0
//
// (the hull adds a row of ones, weighted by the scale s of the data so that
// both terms have the same units). The NNLS solver is Lawson & Hanson's
// active-set method (1974, ch. 23) with the passive columns kept in an
// incrementally updated QR factorisation.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"github.com/probably-submodular/crf/internal/panics"
)

// DefaultHullTol is the default relative tolerance of the membership tests.
const DefaultHullTol = 1e-8

// Hull holds a fixed set of points P = {p_1 … p_n} in R^d and answers
// whether a query point lies in their convex hull conv(P) or their convex
// cone cone(P) = {Σ λ_j p_j : λ ≥ 0}.
//
// Tolerance: the NNLS residual r is compared with Tol·s, where s is the
// largest norm among the points and the query (so the test is invariant to
// a common scaling of the data): InCone(q) ⇔ r_cone ≤ Tol·s, InHull(q) ⇔
// r_hull ≤ Tol·s. Points on the boundary are inside up to round-off.
//
// A Hull is read-only after NewHull and safe for concurrent queries.
type Hull struct {
	// Tol is the relative residual tolerance (0 means DefaultHullTol).
	Tol float64

	dim, n int
	cols   []float64 // point j at cols[j*dim:(j+1)*dim]
	scale  float64   // max ‖p_j‖
	work   int       // working set size (0: workingSize's default)
}

// NewHull copies the points (one per row, all of the same dimension, finite).
func NewHull(points [][]float64) (*Hull, error) {
	if len(points) == 0 {
		return nil, errors.New("hull: no points")
	}
	d := len(points[0])
	if d == 0 {
		return nil, errors.New("hull: point 0 has dimension 0")
	}
	h := &Hull{dim: d, n: len(points), cols: make([]float64, 0, d*len(points))}
	for j, p := range points {
		if len(p) != d {
			return nil, fmt.Errorf("hull: point %d has dimension %d, expected %d", j, len(p), d)
		}
		for k, v := range p {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("hull: point %d, coordinate %d is %v", j, k, v)
			}
		}
		h.cols = append(h.cols, p...)
		h.scale = math.Max(h.scale, norm(p))
	}
	return h, nil
}

// Dim is the dimension of the points; Len their number.
func (h *Hull) Dim() int { return h.dim }

// Len is the number of points.
func (h *Hull) Len() int { return h.n }

// ConeResidual is min_{λ≥0} ‖Pλ − q‖, the distance from q to cone(P).
func (h *Hull) ConeResidual(q []float64) (float64, error) {
	if err := h.checkQuery(q); err != nil {
		return 0, err
	}
	_, r, err := h.nnls(q, false)
	return r, err
}

// HullResidual is min_{λ≥0} (‖Pλ − q‖² + s²(1ᵀλ − 1)²)^½ with s the scale
// of the points and q: zero exactly when q ∈ conv(P). It is not the
// Euclidean distance to the hull (it is at most that distance), only a
// certificate of membership.
func (h *Hull) HullResidual(q []float64) (float64, error) {
	if err := h.checkQuery(q); err != nil {
		return 0, err
	}
	_, r, err := h.nnls(q, true)
	return r, err
}

// InCone reports whether q lies in the convex cone of the points, within
// the tolerance (see Hull).
func (h *Hull) InCone(q []float64) (bool, error) {
	r, err := h.ConeResidual(q)
	if err != nil {
		return false, err
	}
	return r <= h.tol()*h.scaleWith(q), nil
}

// InHull reports whether q lies in the convex hull of the points, within
// the tolerance (see Hull).
func (h *Hull) InHull(q []float64) (bool, error) {
	r, err := h.HullResidual(q)
	if err != nil {
		return false, err
	}
	return r <= h.tol()*h.scaleWith(q), nil
}

func (h *Hull) tol() float64 {
	if h.Tol > 0 {
		return h.Tol
	}
	return DefaultHullTol
}

func (h *Hull) scaleWith(q []float64) float64 {
	s := math.Max(h.scale, norm(q))
	if s == 0 {
		return 1
	}
	return s
}

func (h *Hull) checkQuery(q []float64) error {
	if len(q) != h.dim {
		return fmt.Errorf("hull: query has dimension %d, expected %d", len(q), h.dim)
	}
	for k, v := range q {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("hull: query coordinate %d is %v", k, v)
		}
	}
	return nil
}

// nnls solves min_{λ≥0} ‖Aλ − b‖ with A = P (cone) or A = [P; s·1ᵀ] and
// b = [q; s] (hull) by Lawson–Hanson, and returns λ and the residual norm.
func (h *Hull) nnls(q []float64, affine bool) ([]float64, float64, error) {
	m := h.dim
	s := h.scaleWith(q)
	if affine {
		m++
	}
	b := make([]float64, m)
	copy(b, q)
	if affine {
		b[h.dim] = s
	}
	col := func(j int, dst []float64) []float64 {
		copy(dst, h.cols[j*h.dim:(j+1)*h.dim])
		if affine {
			dst[h.dim] = s
		}
		return dst
	}
	bnorm := norm(b)
	if bnorm == 0 {
		return make([]float64, h.n), 0, nil // q = 0 (cone only: the hull row makes b ≠ 0)
	}
	// A dual value w_j = a_jᵀ(b − Aλ) counts as positive above this: a few
	// hundred ulps of the products it sums.
	colMax := s
	if affine {
		colMax = s * math.Sqrt2
	}
	wtol := 1e-13 * float64(m) * colMax * bnorm
	// Near the minimum that fixed bound is too coarse: with a small
	// positive residual every dual can fall below it (a test edge of
	// notebook 06 inside the hull stopped at 23 times the membership
	// tolerance). By convexity ‖r*‖² ≥ ‖r‖² − 2 (max_j w_j) 1ᵀλ*, so the
	// bound follows ‖r‖², keeping the residual within a fraction of a
	// percent of the minimum, down to a floor above the products'
	// round-off.
	floor := 1e-15 * float64(m) * colMax * bnorm
	threshold := func(x []float64, set []int, r []float64) float64 {
		sum := 1.0
		for _, j := range set {
			sum += x[j]
		}
		return min(wtol, max(floor, 0.004*dot(r, r)/sum))
	}

	x := make([]float64, h.n)    // λ
	passive := make([]bool, h.n) // P of Lawson–Hanson
	skip := make([]bool, h.n)    // columns found numerically dependent on P
	var set []int                // passive indices, in QR column order
	qr := newIncQR(m)
	r := append([]float64(nil), b...) // residual b − Aλ
	a := make([]float64, m)
	z := make([]float64, 0, m)

	// Pricing, the scan of every point's dual variable, is n·d per outer
	// iteration and the whole cost of a test on a large set. From
	// partialPricingDim dimensions it runs over a working set of
	// candidates, refilled from a full scan only when the working set has
	// no positive dual variable left. A full scan that
	// finds none is Lawson–Hanson's optimality test, so the minimum, and
	// the answer, are those of pricing every point every time.
	dual := func(j int) float64 {
		w := dot(h.cols[j*h.dim:(j+1)*h.dim], r[:h.dim])
		if affine {
			w += s * r[h.dim]
		}
		return w
	}
	work := h.workingSize(m)
	partial := h.dim >= partialPricingDim || h.work > 0
	var cand []int          // the working set
	var viol []pricedColumn // a full scan's positive duals
	maxOuter := 3*h.n + 3*m + 10
	for outer := 0; ; outer++ {
		if outer > maxOuter {
			return nil, 0, fmt.Errorf("hull: NNLS did not converge in %d iterations (%d points, dimension %d)", maxOuter, h.n, h.dim)
		}
		if len(set) == m {
			break
		}
		// Most positive dual variable among the working set's zero set.
		thr := threshold(x, set, r)
		best, bestW := -1, thr
		for _, j := range cand {
			if passive[j] || skip[j] {
				continue
			}
			if w := dual(j); w > bestW {
				best, bestW = j, w
			}
		}
		if best < 0 {
			// Full scan; with partial pricing the working set becomes its
			// most positive duals.
			viol = viol[:0]
			for j := 0; j < h.n; j++ {
				if passive[j] || skip[j] {
					continue
				}
				if w := dual(j); w > thr {
					if partial {
						viol = append(viol, pricedColumn{j, w})
					}
					if w > bestW {
						best, bestW = j, w
					}
				}
			}
			if best < 0 {
				break
			}
			if partial {
				if len(viol) > work {
					viol = largest(viol, work)
				}
				cand = cand[:0]
				for _, v := range viol {
					cand = append(cand, v.j)
				}
			}
		}
		if !qr.add(col(best, a)) {
			skip[best] = true // in the span of P up to round-off: no descent
			continue
		}
		passive[best] = true
		set = append(set, best)
		// Inner loop: move towards the unconstrained least-squares solution
		// on P, dropping the columns whose coefficient would turn negative.
		stalled := false
		for {
			z = qr.solve(b, z)
			alpha, block := math.Inf(1), -1
			for i, j := range set {
				if z[i] <= 0 {
					if t := x[j] / (x[j] - z[i]); t < alpha {
						alpha, block = t, i
					}
				}
			}
			if block < 0 {
				for i, j := range set {
					x[j] = z[i]
				}
				break
			}
			if alpha <= 0 && set[block] == best {
				// round-off: the column just added cannot enter
				stalled = true
			}
			keep := set[:0]
			for i, j := range set {
				x[j] += alpha * (z[i] - x[j])
				if i == block || x[j] <= 0 {
					x[j] = 0
					passive[j] = false
				} else {
					keep = append(keep, j)
				}
			}
			set = keep
			qr.reset()
			for _, j := range set {
				if !qr.add(col(j, a)) {
					return nil, 0, fmt.Errorf("hull: NNLS lost rank when re-factoring %d passive columns", len(set))
				}
			}
			if len(set) == 0 || stalled {
				break
			}
		}
		if stalled {
			skip[best] = true
		} else {
			for j := range skip {
				skip[j] = false
			}
		}
		// Residual from scratch: no drift across iterations.
		copy(r, b)
		for _, j := range set {
			pj := h.cols[j*h.dim : (j+1)*h.dim]
			for k, v := range pj {
				r[k] -= x[j] * v
			}
			if affine {
				r[h.dim] -= x[j] * s
			}
		}
	}
	return x, norm(r), nil
}

// pricedColumn is a point and its positive dual variable in a full scan.
type pricedColumn struct {
	j int
	w float64
}

// partialPricingDim is the dimension from which pricing runs over a working
// set: below it a full scan costs about what keeping the candidates does
// (8 192 Gaussian points, a hull and a cone test per query: 0.34 ms
// scanning fully, 0.62 ms with a working set in 2 dimensions; 0.73 and
// 0.72 in 4; 1.59 and 0.82 in 8; 14.8 and 4.0 in 64).
const partialPricingDim = 4

// largest reorders v so that its first k entries hold the k largest duals
// and returns them: Hoare's selection with a median-of-three pivot, linear
// in len(v) on average where sorting was the refill's main cost on sets
// of few dimensions.
func largest(v []pricedColumn, k int) []pricedColumn {
	lo, hi := 0, len(v)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		a, b, c := v[lo].w, v[mid].w, v[hi].w
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for v[i].w > pivot {
				i++
			}
			for v[j].w < pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		// v[lo..j] ≥ pivot ≥ v[i..hi]; entries between equal the pivot.
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return v[:k]
		}
	}
	return v[:k]
}

// workingSize is how many candidates a full scan keeps for the next outer
// iterations: a few times the passive set's largest size, so that a test
// takes a handful of full scans instead of one per passive column.
func (h *Hull) workingSize(m int) int {
	if h.work > 0 {
		return h.work // tests: refills forced
	}
	return max(4*m, 64)
}

// incQR is a thin QR factorisation A_P = Q R of the passive columns, grown
// one column at a time by modified Gram–Schmidt with one
// re-orthogonalisation (enough for orthogonality to working precision).
type incQR struct {
	m int
	q []float64 // column i at q[i*m:(i+1)*m]
	r []float64 // R column-major upper triangle: column k at r[k*(k+1)/2:]
	k int
}

func newIncQR(m int) *incQR { return &incQR{m: m} }

func (f *incQR) reset() { f.q, f.r, f.k = f.q[:0], f.r[:0], 0 }

// add appends column a (overwritten); false when a is numerically in the
// span of the current columns (then nothing changes).
func (f *incQR) add(a []float64) bool {
	an := norm(a)
	if an == 0 || f.k >= f.m {
		return false
	}
	rc := make([]float64, f.k+1)
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < f.k; i++ {
			qi := f.q[i*f.m : (i+1)*f.m]
			c := dot(qi, a)
			rc[i] += c
			for t := range a {
				a[t] -= c * qi[t]
			}
		}
	}
	rho := norm(a)
	if rho <= 1e-10*an {
		return false
	}
	for t := range a {
		a[t] /= rho
	}
	rc[f.k] = rho
	f.q = append(f.q, a...)
	f.r = append(f.r, rc...)
	f.k++
	return true
}

// solve returns argmin_z ‖A_P z − b‖ = R⁻¹ Qᵀ b.
func (f *incQR) solve(b, dst []float64) []float64 {
	dst = dst[:0]
	for i := 0; i < f.k; i++ {
		dst = append(dst, dot(f.q[i*f.m:(i+1)*f.m], b))
	}
	for i := f.k - 1; i >= 0; i-- {
		v := dst[i]
		for c := i + 1; c < f.k; c++ {
			v -= f.r[c*(c+1)/2+i] * dst[c]
		}
		dst[i] = v / f.r[i*(i+1)/2+i]
	}
	return dst
}

// dot is unrolled by four: the dual-variable scan over all points, one dot
// product each, is the hot loop of every membership test.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func norm(a []float64) float64 {
	var s float64
	for _, v := range a {
		s += v * v
	}
	return math.Sqrt(s)
}

// CoverageOptions sets Coverage.
type CoverageOptions struct {
	// Sizes are the training-set sizes n (sorted ascending, each at most
	// the number of training points).
	Sizes []int
	// Queries is the number of held-out points tested per repeat (sampled
	// without replacement; 0 or more than available means all).
	Queries int
	// Repeats is the number of random draws of the training prefixes and
	// queries (0 means 1); each repeat is seeded by (Seed, repeat).
	Repeats int
	Seed    uint64
	// Tol is the membership tolerance (0 means DefaultHullTol).
	Tol float64
	// Workers is the number of goroutines (0 means GOMAXPROCS).
	Workers int
	// Progress, when set, is called after each query with the number of
	// queries done and the total (all repeats); from several goroutines.
	Progress func(done, total int)
}

// CoveragePoint is the fraction of held-out points outside the hull and
// outside the cone of n training points, averaged over repeats, with the
// standard error over repeats (0 for one repeat).
type CoveragePoint struct {
	N                        int
	OutsideHull, OutsideCone float64
	HullStdErr, ConeStdErr   float64
}

// Coverage estimates how much of the held-out distribution the training
// points cover as their number grows (the paper's proposition of §4): for
// each repeat it shuffles the training points, takes the nested prefixes
// of Sizes, and tests a sample of held-out points for membership in the
// hull and the cone of each prefix.
//
// The nesting makes the curves monotone within a repeat and saves work: a
// query inside the hull (cone) of a prefix is inside for every longer
// prefix, and a query in the hull is in the cone.
func Coverage(train, held [][]float64, opt CoverageOptions) ([]CoveragePoint, error) {
	if len(opt.Sizes) == 0 {
		return nil, errors.New("coverage: no sizes")
	}
	if !sort.IntsAreSorted(opt.Sizes) || opt.Sizes[0] < 1 || opt.Sizes[len(opt.Sizes)-1] > len(train) {
		return nil, fmt.Errorf("coverage: sizes %v must be ascending within 1..%d (training points)", opt.Sizes, len(train))
	}
	if len(held) == 0 {
		return nil, errors.New("coverage: no held-out points")
	}
	if len(train) > 0 && len(held[0]) != len(train[0]) {
		return nil, fmt.Errorf("coverage: held-out points have dimension %d, training points %d", len(held[0]), len(train[0]))
	}
	reps := max(opt.Repeats, 1)
	nq := opt.Queries
	if nq <= 0 || nq > len(held) {
		nq = len(held)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ns := len(opt.Sizes)
	// outH[r][i], outC[r][i]: count of queries outside at size i, repeat r.
	outH := make([][]int, reps)
	outC := make([][]int, reps)
	total, done := reps*nq, 0
	var mu sync.Mutex
	for rep := range reps {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(rep)))
		perm := rng.Perm(len(train))
		qidx := rng.Perm(len(held))[:nq]
		hulls := make([]*Hull, ns)
		for i, n := range opt.Sizes {
			pts := make([][]float64, n)
			for k := range n {
				pts[k] = train[perm[k]]
			}
			h, err := NewHull(pts)
			if err != nil {
				return nil, fmt.Errorf("coverage: repeat %d, n = %d: %w", rep, n, err)
			}
			h.Tol = opt.Tol
			hulls[i] = h
		}
		outH[rep] = make([]int, ns)
		outC[rep] = make([]int, ns)
		jobs := make(chan int)
		var wg sync.WaitGroup
		var firstErr error
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				oh, oc := make([]int, ns), make([]int, ns)
				for qi := range jobs {
					q := held[qidx[qi]]
					// A panic (a bug) becomes this point's error: a
					// worker that died would leave the feeder waiting.
					err := panics.Call(func() error { return classify(hulls, q, oh, oc) })
					mu.Lock()
					if err != nil && firstErr == nil {
						firstErr = fmt.Errorf("coverage: repeat %d, held-out point %d: %w", rep, qidx[qi], err)
					}
					done++
					d := done
					mu.Unlock()
					if opt.Progress != nil {
						opt.Progress(d, total)
					}
				}
				mu.Lock()
				for i := range oh {
					outH[rep][i] += oh[i]
					outC[rep][i] += oc[i]
				}
				mu.Unlock()
			}()
		}
		for qi := range nq {
			jobs <- qi
		}
		close(jobs)
		wg.Wait()
		if firstErr != nil {
			return nil, firstErr
		}
	}
	res := make([]CoveragePoint, ns)
	for i, n := range opt.Sizes {
		fh, fc := make([]float64, reps), make([]float64, reps)
		for r := range reps {
			fh[r] = float64(outH[r][i]) / float64(nq)
			fc[r] = float64(outC[r][i]) / float64(nq)
		}
		res[i] = CoveragePoint{N: n}
		res[i].OutsideHull, res[i].HullStdErr = meanStdErr(fh)
		res[i].OutsideCone, res[i].ConeStdErr = meanStdErr(fc)
	}
	return res, nil
}

// classify adds 1 to outH[i] (outC[i]) for every size i whose hull (cone)
// does not contain q, walking the nested prefixes from the largest: once q
// is outside a prefix's hull (cone), it is outside every shorter one.
func classify(hulls []*Hull, q []float64, outH, outC []int) error {
	hullOut, coneOut := false, false
	for i := len(hulls) - 1; i >= 0; i-- {
		h := hulls[i]
		if !coneOut {
			in, err := h.InCone(q)
			if err != nil {
				return err
			}
			coneOut = !in
		}
		if coneOut {
			hullOut = true // hull ⊆ cone
		}
		if !hullOut {
			in, err := h.InHull(q)
			if err != nil {
				return err
			}
			hullOut = !in
		}
		if hullOut {
			outH[i]++
		}
		if coneOut {
			outC[i]++
		}
	}
	return nil
}

func meanStdErr(v []float64) (mean, se float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1) / float64(len(v)))
}
