package qp

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// activeChol is the Cholesky factor L·Lᵀ = K_SS + εI of the Gram matrix of
// the planes and rows in the polish's free set S, kept up to date as S
// changes instead of refactored: entering a vector appends a row (O(n²)),
// leaving deletes a row and column and repairs the trailing block by a
// rank-one update (O(n²)). The polish changes S by a few vectors per round,
// and with hundreds of active hard rows (multi-label C4, C3) a fresh O(n³)
// factorisation per round was nearly all of the training time.
//
// It serves the rounds without free sign bounds only; with them the system
// is K_SS − E·Eᵀ, whose E changes with the bounds, and solveActive uses a
// fresh LU.
type activeChol struct {
	s      *Solver // the Gram matrix is s.gram, read at each use
	eps    float64
	ord    []int // general index of each position
	pos    []int // position of each general index, −1 outside S
	l      []float64
	stride int
}

func newActiveChol(s *Solver, eps float64) *activeChol {
	return &activeChol{s: s, eps: eps}
}

func (c *activeChol) n() int { return len(c.ord) }

// row returns row i of L (its first i+1 entries).
func (c *activeChol) row(i int) []float64 { return c.l[i*c.stride : i*c.stride+i+1] }

// sync makes S the set of general indices with inS true, removing and
// appending vectors. It returns false when an appended vector is, within
// rounding, in the span of the others (the factor is then unusable).
func (c *activeChol) sync(inS []bool) bool {
	for len(c.pos) < len(inS) { // vectors added since the last sync
		c.pos = append(c.pos, -1)
	}
	for i := c.n() - 1; i >= 0; i-- {
		if !inS[c.ord[i]] {
			c.remove(i)
		}
	}
	for p, in := range inS {
		if in && c.pos[p] < 0 && !c.append(p) {
			return false
		}
	}
	return true
}

// append adds general index p as the last position.
func (c *activeChol) append(p int) bool {
	n := c.n()
	if n+1 > c.stride {
		stride := max(2*c.stride, 64)
		l := make([]float64, stride*stride)
		for i := 0; i < n; i++ {
			copy(l[i*stride:], c.row(i))
		}
		c.l, c.stride = l, stride
	}
	// Row n of L solves L_{<n}·y = K_{S,p}; its diagonal is what is left.
	y := c.l[n*c.stride : n*c.stride+n+1]
	g := c.s.gram[p]
	d := g[p] + c.eps
	for j := 0; j < n; j++ {
		r := c.row(j)
		y[j] = (g[c.ord[j]] - floats.Dot(r[:j], y[:j])) / r[j]
		d -= y[j] * y[j]
	}
	if !(d > 0) || math.IsInf(d, 0) {
		return false
	}
	y[n] = math.Sqrt(d)
	c.pos[p] = n
	c.ord = append(c.ord, p)
	return true
}

// remove deletes position i. With L = [L11 0 0; a d 0; B x L33], deleting
// row and column i leaves L33·L33ᵀ + x·xᵀ to refactor for the trailing
// block: a rank-one update, done with Givens rotations.
func (c *activeChol) remove(i int) {
	n := c.n()
	m := n - 1 - i
	if m > 0 {
		x := make([]float64, m)
		for j := 0; j < m; j++ {
			x[j] = c.l[(i+1+j)*c.stride+i]
		}
		for k := 0; k < m; k++ {
			kk := (i+1+k)*c.stride + i + 1 + k
			lkk := c.l[kk]
			r := math.Hypot(lkk, x[k])
			cs, sn := r/lkk, x[k]/lkk
			c.l[kk] = r
			for j := k + 1; j < m; j++ {
				jk := (i+1+j)*c.stride + i + 1 + k
				c.l[jk] = (c.l[jk] + sn*x[j]) / cs
				x[j] = cs*x[j] - sn*c.l[jk]
			}
		}
	}
	// Drop row i and column i.
	for j := i + 1; j < n; j++ {
		src := c.l[j*c.stride : j*c.stride+j+1]
		dst := c.l[(j-1)*c.stride : (j-1)*c.stride+j]
		copy(dst[:i], src[:i])
		copy(dst[i:], src[i+1:])
	}
	c.pos[c.ord[i]] = -1
	c.ord = append(c.ord[:i], c.ord[i+1:]...)
	for j := i; j < len(c.ord); j++ {
		c.pos[c.ord[j]] = j
	}
}

// solve sets x = (K_SS + εI)⁻¹·b in position order (x and b may alias).
func (c *activeChol) solve(x, b []float64) {
	n := c.n()
	for i := 0; i < n; i++ {
		r := c.row(i)
		x[i] = (b[i] - floats.Dot(r[:i], x[:i])) / r[i]
	}
	// Lᵀ·x = y by rows of L (contiguous): once x_i is known, remove its
	// share from the entries above.
	for i := n - 1; i >= 0; i-- {
		r := c.row(i)
		x[i] /= r[i]
		floats.AddScaled(x[:i], -x[i], r[:i])
	}
}

// compact follows Solver.compact: vectors dropped from the QP leave the
// factor, the others are renumbered (keep[a] is the old index of a).
func (c *activeChol) compact(drop []bool, keep []int) {
	for i := c.n() - 1; i >= 0; i-- {
		if drop[c.ord[i]] {
			c.remove(i)
		}
	}
	newIdx := make([]int, len(drop))
	for a, p := range keep {
		newIdx[p] = a
	}
	c.pos = make([]int, len(keep))
	for i := range c.pos {
		c.pos[i] = -1
	}
	for i, p := range c.ord {
		c.ord[i] = newIdx[p]
		c.pos[newIdx[p]] = i
	}
}

// solveActiveChol is solveActive for a free set without sign bounds, with
// the factor c kept across calls: the bordered system
//
//	(K_SS + εI)·λ + ξ·1_planes = t,  1_planesᵀ·λ = C   (ξ free)
//
// is solved through K_SS + εI alone (ξ from the Schur complement
// 1ᵀ(K+εI)⁻¹1), with the same proximal rounds on the unregularised system.
// ok is false when the factor cannot be updated or the rounds diverge.
func (w *work) solveActiveChol(c *activeChol, inS []bool, xiFree bool, lamOut []float64) (a0, xi float64, ok bool) {
	s := w.s
	for p := range lamOut {
		lamOut[p] = 0
	}
	if !c.sync(inS) {
		return 0, 0, false
	}
	S := c.ord
	n := len(S)
	nPlanes := 0
	for _, p := range S {
		if s.isPlane[p] {
			nPlanes++
		}
	}
	if nPlanes == 0 {
		xiFree = false // Σα = C has no solution without planes
	}
	if n == 0 {
		return s.c, 0, true
	}
	t := make([]float64, n)
	ones := make([]float64, n) // 1_planes
	x := make([]float64, n)
	for a, p := range S {
		t[a] = s.rhs[p]
		x[a] = s.lam[p]
		if s.isPlane[p] {
			ones[a] = 1
		}
	}
	var v []float64 // (K+εI)⁻¹·1_planes
	if xiFree {
		v = make([]float64, n)
		c.solve(v, ones)
	}
	m := make([]float64, n*n) // K_SS in position order, for the residuals
	for a, p := range S {
		g := s.gram[p]
		for b, q := range S {
			m[a*n+b] = g[q]
		}
	}
	r := make([]float64, n)
	u := make([]float64, n)
	for range 6 {
		rx := 0.0 // residual of Σ_planes λ = C
		if xiFree {
			rx = s.c
		}
		for a := range r {
			r[a] = t[a] - floats.Dot(m[a*n:(a+1)*n], x)
			if xiFree {
				r[a] -= xi * ones[a]
				rx -= ones[a] * x[a]
			}
		}
		c.solve(u, r)
		if xiFree {
			dxi := (floats.Dot(ones, u) - rx) / floats.Dot(ones, v)
			floats.AddScaled(u, -dxi, v)
			xi += dxi
		}
		floats.Add(x, u)
	}
	if math.IsNaN(xi) || math.IsInf(xi, 0) {
		return 0, 0, false
	}
	sum, ok := w.takeRestricted(S, x, lamOut)
	if !ok {
		return 0, 0, false
	}
	a0 = s.c - sum
	if xiFree {
		a0 = 0
	} else {
		xi = 0
	}
	return a0, xi, true
}
