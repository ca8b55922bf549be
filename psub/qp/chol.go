package qp

import (
	"math"
	"slices"

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
	s   *Solver // the Gram matrix is s.gram, read at each use
	eps float64
	ord []int // general index of each position
	pos []int // position of each general index, −1 outside S
	// l holds the lower triangle of L packed by rows: row i is
	// l[i(i+1)/2 : i(i+1)/2+i+1]. Packed, appending a row never moves the
	// others, and a free set of 4000 vectors takes 64 MB rather than 128.
	l []float64
	// k holds K_SS (without ε) in position order, packed the same way, for
	// the residuals of the refinement rounds: contiguous, unlike the rows of
	// the solver's Gram matrix, which span every plane and row of the QP.
	k []float64
	// kLam and kStar are K_SS·λ and K_SS·λ* in position order, from the
	// last solveActiveChol (λ the duals it started from, λ* its solution),
	// for the path step.
	kLam, kStar []float64
}

func newActiveChol(s *Solver, eps float64) *activeChol {
	return &activeChol{s: s, eps: eps}
}

func (c *activeChol) n() int { return len(c.ord) }

// row returns row i of L (its first i+1 entries).
func (c *activeChol) row(i int) []float64 { o := i * (i + 1) / 2; return c.l[o : o+i+1] }

// sync makes S the set of general indices with inS true, removing and
// appending vectors. It returns false when an appended vector is, within
// rounding, in the span of the others (the factor is then unusable).
func (c *activeChol) sync(inS []bool) bool {
	for len(c.pos) < len(inS) { // vectors added since the last sync
		c.pos = append(c.pos, -1)
	}
	dead := make([]bool, c.n())
	for i, p := range c.ord {
		dead[i] = !inS[p]
	}
	c.removeSet(dead)
	var add []int
	for p, in := range inS {
		if in && c.pos[p] < 0 {
			add = append(add, p)
		}
	}
	return c.appendAll(add)
}

// appendAll adds the general indices ps as the last positions, in order.
// Their rows of L solve L·y = K_{S,p} for the old positions, all in one pass
// over L (each packed row is read once for every new vector: the pass is
// memory bound, and the polish enters up to 8 vectors per round), then the
// small block among themselves. It returns false when a vector is, within
// rounding, in the span of those before it; the ones before it stay.
func (c *activeChol) appendAll(ps []int) bool {
	n0, m := c.n(), len(ps)
	if m == 0 {
		return true
	}
	o0 := n0 * (n0 + 1) / 2
	end := (n0 + m) * (n0 + m + 1) / 2
	c.l = append(c.l[:o0], make([]float64, end-o0)...)
	c.k = append(c.k[:o0], make([]float64, end-o0)...)
	ys := make([][]float64, m) // row n0+t of L
	for t, p := range ps {
		o := (n0 + t) * (n0 + t + 1) / 2
		ys[t] = c.l[o : o+n0+t+1]
		g, kr := c.s.gram[p], c.k[o:o+n0+t+1]
		for j, q := range c.ord {
			kr[j] = g[q]
		}
		for u := 0; u <= t; u++ {
			kr[n0+u] = g[ps[u]]
		}
	}
	for j := range n0 {
		r := c.row(j)
		q := c.ord[j]
		for t, p := range ps {
			y := ys[t]
			y[j] = (c.s.gram[p][q] - floats.Dot(r[:j], y[:j])) / r[j]
		}
	}
	for t, p := range ps {
		y := ys[t]
		for u := range t {
			yu := ys[u]
			y[n0+u] = (c.s.gram[p][ps[u]] - floats.Dot(y[:n0+u], yu[:n0+u])) / yu[n0+u]
		}
		d := c.s.gram[p][p] + c.eps - floats.Dot(y[:n0+t], y[:n0+t])
		if !(d > 0) || math.IsInf(d, 0) {
			o := (n0 + t) * (n0 + t + 1) / 2
			c.l, c.k = c.l[:o], c.k[:o]
			return false
		}
		y[n0+t] = math.Sqrt(d)
		c.pos[p] = n0 + t
		c.ord = append(c.ord, p)
	}
	return true
}

// removeSet deletes the positions i with dead[i]. With L = [L11 0 0;
// a d 0; B x L33], deleting row and column i leaves L33·L33ᵀ + x·xᵀ to
// refactor for the trailing block: a rank-one update, done with Givens
// rotations. The positions go from the last to the first, so a trailing
// block holds live positions only and the earlier dead ones are still
// untouched; the packed arrays are compacted once at the end (the path
// step can drop hundreds of rows in one round, and compacting per row
// moved the whole trailing triangle each time).
func (c *activeChol) removeSet(dead []bool) {
	n := c.n()
	// trail = buf[start:] holds the live positions after the current one,
	// ascending (filled from the back as i goes down).
	buf, start := make([]int, n), n
	for i := n - 1; i >= 0; i-- {
		if !dead[i] {
			start--
			buf[start] = i
			continue
		}
		trail := buf[start:]
		// Row by row (contiguous in the packed storage): row j of the
		// trailing block takes the rotations of the rows above it, then
		// defines its own from its diagonal and what is left of x_j. Rows
		// go four at a time through the rotations above the group: four
		// independent chains instead of one (each rotation depends on the
		// last through x_j).
		m := len(trail)
		cs, ics, sn := make([]float64, m), make([]float64, m), make([]float64, m)
		var rows [4][]float64
		var xs [4]float64
		for j0 := 0; j0 < m; j0 += 4 {
			g := min(4, m-j0)
			for t := range g {
				rows[t] = c.row(trail[j0+t])
				xs[t] = rows[t][i]
			}
			for k := range j0 {
				pk, ck, ik, sk := trail[k], cs[k], ics[k], sn[k]
				for t := range g {
					r := rows[t]
					r[pk] = (r[pk] + sk*xs[t]) * ik
					xs[t] = ck*xs[t] - sk*r[pk]
				}
			}
			for t := range g {
				rj, xj := rows[t], xs[t]
				for k := j0; k < j0+t; k++ {
					pk := trail[k]
					rj[pk] = (rj[pk] + sn[k]*xj) * ics[k]
					xj = cs[k]*xj - sn[k]*rj[pk]
				}
				pj := trail[j0+t]
				ljj := rj[pj]
				r := math.Hypot(ljj, xj)
				cs[j0+t], ics[j0+t], sn[j0+t] = r/ljj, ljj/r, xj/ljj
				rj[pj] = r
			}
		}
	}
	c.l, c.k = dropPacked(c.l, dead), dropPacked(c.k, dead)
	ord := c.ord[:0]
	for i, p := range c.ord {
		if dead[i] {
			c.pos[p] = -1
			continue
		}
		c.pos[p] = len(ord)
		ord = append(ord, p)
	}
	c.ord = ord
}

// dropPacked deletes the rows and columns i with dead[i] of the lower
// triangle packed by rows in a, in place from the front.
func dropPacked(a []float64, dead []bool) []float64 {
	first := slices.Index(dead, true)
	if first < 0 {
		return a
	}
	dst := first * (first + 1) / 2
	for j := first + 1; j < len(dead); j++ {
		if dead[j] {
			continue
		}
		row := a[j*(j+1)/2 : j*(j+1)/2+j+1]
		for i, x := range row {
			if !dead[i] {
				a[dst] = x
				dst++
			}
		}
	}
	return a[:dst]
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

// mulK sets y = K_SS·x from the packed lower triangle: row i contributes
// its dot product to y_i and, by symmetry, x_i times its off-diagonal part
// to y_{<i}.
func (c *activeChol) mulK(y, x []float64) {
	clear(y)
	for i := range c.ord {
		o := i * (i + 1) / 2
		row := c.k[o : o+i+1]
		y[i] += floats.Dot(row, x[:i+1])
		floats.AddScaled(y[:i], x[i], row[:i])
	}
}

// compact follows Solver.compact: vectors dropped from the QP leave the
// factor, the others are renumbered (keep[a] is the old index of a).
func (c *activeChol) compact(drop []bool, keep []int) {
	dead := make([]bool, c.n())
	for i, p := range c.ord {
		dead[i] = drop[p]
	}
	c.removeSet(dead)
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
	r := make([]float64, n)
	u := make([]float64, n)
	kx, kxPrev := make([]float64, n), make([]float64, n)
	tMax := floats.Norm(t, math.Inf(1))
	dxi := 0.0
	for round := 0; ; round++ {
		c.mulK(kx, x)
		if round == 0 {
			c.kLam = append(c.kLam[:0], kx...)
		}
		// The rounds undo the proximal ε. What the polish reads of x is the
		// margins K·x (w = Σ x_p r_p), so stop when the last correction
		// moved them by rounding only; corrections along near-null
		// directions of K_SS (dependent rows) change x without changing w,
		// and waiting for them would always take the six rounds.
		if round > 0 {
			moved := 0.0
			for a := range kx {
				moved = math.Max(moved, math.Abs(kx[a]-kxPrev[a]))
			}
			scale := math.Max(tMax, floats.Norm(kx, math.Inf(1)))
			if moved <= 1e-13*scale && math.Abs(dxi) <= 1e-13*math.Max(scale, math.Abs(xi)) {
				break
			}
		}
		if round == 6 {
			break
		}
		rx := 0.0 // residual of Σ_planes λ = C
		if xiFree {
			rx = s.c
		}
		for a := range r {
			r[a] = t[a] - kx[a]
			if xiFree {
				r[a] -= xi * ones[a]
				rx -= ones[a] * x[a]
			}
		}
		c.solve(u, r)
		if xiFree {
			dxi = (floats.Dot(ones, u) - rx) / floats.Dot(ones, v)
			floats.AddScaled(u, -dxi, v)
			xi += dxi
		}
		floats.Add(x, u)
		kx, kxPrev = kxPrev, kx
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
	c.kStar = append(c.kStar[:0], kx...)
	return a0, xi, true
}
