package qp

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// activeChol factors K_SS + εD, the Gram matrix of the planes and rows in
// the polish's free set S plus a tiny ridge relative to its diagonal
// D = diag K_SS (proxEps), kept up to date as S changes
// instead of refactored: the polish changes S by a few vectors per round,
// and with hundreds of active hard rows (multi-label C4, C3) a fresh O(n³)
// factorisation per round was nearly all of the training time.
//
// Hard rows whose supports share no coordinate are orthogonal, so when the
// rows split into groups of that kind (multi-label C4: one group per label
// pair, 91 for yeast) K_SS is block diagonal over the groups apart from the
// dense cutting planes. The factor then keeps one updatable Cholesky block
// per group and puts the planes of S last, as a border eliminated through
// its Schur complement: with rows R and planes P,
//
//	L = [L_R 0; Zᵀ L_P],  Z = L_R⁻¹·K_RP,  L_P·L_Pᵀ = K_PP + εD_P − Zᵀ·Z,
//
// which is the Cholesky factor of K_SS in that order, so its solves and
// their rounding are those of the dense factor. A solve then costs Σ b_g²
// over the groups' sizes b_g instead of n², and entering a row costs b_g²
// instead of n² (yeast C4 at 3 300 active rows: ~0.13·10⁶ instead of
// 11·10⁶). The Schur complement of the border is refactored at every sync
// (O(|P|³): the planes of S change most rounds and there are few of them);
// the blocks' parts of it, O(Σ b_g²·|P| + n·|P|²) formed afresh, keep what
// the changes since the last sync left valid (blockBorder).
// With a single group (segmentation: every row touches the same pairwise
// weights) the factor is one block over planes and rows alike, as before.
//
// It serves the rounds without free sign bounds only; with them the system
// is K_SS − E·Eᵀ, whose E changes with the bounds, and solveActive uses a
// fresh LU.
type activeChol struct {
	s *Solver // the Gram matrix is s.gram, read at each use
	// eps is the proximal term relative to each vector's own squared norm:
	// vector p adds eps·K_pp to its diagonal (see proxEps).
	eps float64
	// blocked: one block per group of rows and the planes in the border;
	// otherwise a single block holds all of S. It turns on when the rows of
	// S first span two groups and stays on for the factor's life.
	blocked bool
	blocks  []*packedChol
	keys    []int // the group of each block (Solver.group), 0 unblocked
	blk     []int // block of each general index, −1 outside (and the border)
	// ord is S in position order: the blocks' vectors block by block, then
	// the border planes; off[b] is block b's first position and
	// off[len(blocks)] the border's.
	ord []int
	off []int
	// The border (blocked, m = len(ord) − off[len(blocks)] > 0): kPP = K_PP
	// and lP the lower Cholesky factor of the Schur complement (m × m,
	// row-major). Each block keeps its part of K_PR and Z (packedChol.bd).
	kPP, lP []float64
	// kLam and kStar are K_SS·λ and K_SS·λ* in position order, from the
	// last solveActiveChol (λ the duals it started from, λ* its solution),
	// for the path step.
	kLam, kStar []float64
	// bufs are the scratch vectors of solveActiveChol and pathStep (bufX
	// names them), reused from call to call: the polish calls them once
	// per round, ~10⁵ times in a horses C3 chain, and their dozen vectors
	// of |S| were a third of the chain's allocation.
	bufs  [nBufs][]float64
	drops []bool
	brks  []pathBreak
}

// The scratch vectors of activeChol.bufs.
const (
	bufT = iota
	bufOnes
	bufX
	bufInv
	bufV
	bufR
	bufU
	bufKx
	bufKxPrev
	bufPathX
	bufPathD
	bufPathKx
	bufPathKd
	bufPathCol
	nBufs
)

// buf returns scratch vector i with length n; its contents are
// unspecified.
func (c *activeChol) buf(i, n int) []float64 {
	c.bufs[i] = resize(c.bufs[i], n)
	return c.bufs[i]
}

func newActiveChol(s *Solver, eps float64) *activeChol {
	return &activeChol{s: s, eps: eps}
}

// proxEps is the proximal term of a vector of squared norm kpp: rel·kpp,
// relative to the vector itself rather than to the largest one. Planes and
// hard rows can differ in norm by 10⁵ and more (mitochondria: planes sum
// ψ over 66 000 supervoxels, rows are one edge's features); a term relative
// to the largest diagonal swamps the small rows, and the refinement that
// undoes it then stalls, leaving rows violated that the polish believes
// tight. Relative to each diagonal, K + ε·diag(K) = D^½(K̃ + εI)D^½ with K̃
// the Gram matrix of the normalised vectors: the factor is as accurate as
// if every vector had unit norm.
func proxEps(rel, kpp float64) float64 { return rel * math.Max(kpp, 1e-300) }

func (c *activeChol) n() int { return len(c.ord) }

// nBlocks is the number of positions held in the blocks (before the border).
func (c *activeChol) nBlocks() int { return c.off[len(c.blocks)] }

// span returns the positions [o, e) of the block that holds row p (all
// of S when the factor is not blocked). Outside them and the border, row
// p's column of K_SS is exactly 0: the other blocks hold rows of other
// groups.
func (c *activeChol) span(p int) (o, e int) {
	if !c.blocked {
		return 0, len(c.ord)
	}
	bi := c.blk[p]
	return c.off[bi], c.off[bi+1]
}

// key is the block a vector of S belongs in; −1 marks the border.
func (c *activeChol) key(p int) int {
	switch {
	case !c.blocked:
		return 0
	case c.s.isPlane[p]:
		return -1
	}
	return c.s.group(p)
}

// spansGroups reports whether the rows in S belong to two or more groups.
func (c *activeChol) spansGroups(inS []bool) bool {
	first := -1
	for p, in := range inS {
		if !in || c.s.isPlane[p] {
			continue
		}
		g := c.s.group(p)
		if first < 0 {
			first = g
		} else if g != first {
			return true
		}
	}
	return false
}

// sync makes S the set of general indices with inS true, removing and
// appending vectors, and refactors the border. It returns false when an
// appended vector is, within rounding, in the span of the others (the
// factor is then unusable).
func (c *activeChol) sync(inS []bool) bool {
	for len(c.blk) < len(inS) { // vectors added since the last sync
		c.blk = append(c.blk, -1)
	}
	if !c.blocked && c.spansGroups(inS) {
		// Refactor by groups: S changes little between rounds, so this
		// happens about once per factor.
		for _, b := range c.blocks {
			for _, p := range b.ord {
				c.blk[p] = -1
			}
		}
		c.blocks, c.keys, c.blocked = nil, nil, true
	}
	// Exits (and rows whose group merged with another: they move).
	live := 0
	for bi, b := range c.blocks {
		var dead []bool
		for i, p := range b.ord {
			if !inS[p] || c.key(p) != c.keys[bi] {
				if dead == nil {
					dead = make([]bool, b.n())
				}
				dead[i] = true
				c.blk[p] = -1
			}
		}
		if dead != nil {
			b.removeSet(dead)
		}
		if b.n() > 0 {
			c.blocks[live], c.keys[live] = b, c.keys[bi]
			for _, p := range b.ord {
				c.blk[p] = live
			}
			live++
		}
	}
	c.blocks, c.keys = c.blocks[:live], c.keys[:live]
	// Entries, grouped by block in order of first appearance.
	byKey := make(map[int]int, len(c.blocks))
	for bi, k := range c.keys {
		byKey[k] = bi
	}
	adds := make(map[int][]int)
	var touched []int
	var border []int
	for p, in := range inS {
		if !in || c.blk[p] >= 0 {
			continue
		}
		k := c.key(p)
		if k == -1 {
			border = append(border, p)
			continue
		}
		bi, ok := byKey[k]
		if !ok {
			bi = len(c.blocks)
			byKey[k] = bi
			c.blocks, c.keys = append(c.blocks, &packedChol{}), append(c.keys, k)
		}
		if adds[bi] == nil {
			touched = append(touched, bi)
		}
		adds[bi] = append(adds[bi], p)
	}
	for _, bi := range touched {
		b := c.blocks[bi]
		ok := b.appendAll(c.s, c.eps, adds[bi])
		for _, p := range b.ord {
			c.blk[p] = bi
		}
		if !ok {
			c.layout(nil)
			return false
		}
	}
	c.layout(border)
	return c.factorBorder()
}

// layout sets ord and off from the blocks and the border planes.
func (c *activeChol) layout(border []int) {
	c.ord, c.off = c.ord[:0], c.off[:0]
	for _, b := range c.blocks {
		c.off = append(c.off, len(c.ord))
		c.ord = append(c.ord, b.ord...)
	}
	c.off = append(c.off, len(c.ord))
	c.ord = append(c.ord, border...)
}

// factorBorder forms Z = L_R⁻¹·K_RP block by block and factors the Schur
// complement K_PP + εD_P − Σ_g Z_gᵀ·Z_g. A block's part keeps what is
// still valid (blockBorder): most polish rounds change a few vectors of a
// block or a plane or two of the border. It returns false when the Schur
// complement is not positive definite within rounding (a plane in the span
// of the others).
func (c *activeChol) factorBorder() bool {
	nR := c.nBlocks()
	border := c.ord[nR:]
	m := len(border)
	if m == 0 {
		c.kPP, c.lP = c.kPP[:0], c.lP[:0]
		return true
	}
	g := c.s.gram
	for _, b := range c.blocks {
		b.borderPart(g, border)
	}
	c.kPP = resize(c.kPP, m*m)
	for j, p := range border {
		for k, q := range border {
			c.kPP[j*m+k] = g[p][q]
		}
	}
	c.lP = append(resize(c.lP, 0), c.kPP...)
	for j, p := range border {
		c.lP[j*m+j] += proxEps(c.eps, g[p][p])
	}
	for _, b := range c.blocks {
		floats.Sub(c.lP, b.bd.zz)
	}
	// The lower triangle, factored in place (row-major lower storage is
	// what solve reads as the rows of L_P).
	_, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: m, Stride: m, Data: c.lP})
	return ok
}

// blockBorder is one block's part of the border, row-major and transposed
// so that a plane's entries are contiguous: kPR = K_{P,block} (m × n),
// zT = (L_b⁻¹·K_{block,P})ᵀ (m × n) and zz = Z_bᵀ·Z_b (m × m, lower
// triangle, the upper zero), for the border planes border (general
// indices, −1 for a plane compact dropped since) and the block's n
// positions when they were formed.
//
// Most syncs change the border by a plane or two, or a block by a few
// vectors, so the parts still valid are kept rather than formed afresh
// (over a third of the polish's time in a horses C3 chain): entry a of a
// plane's Z row depends only on rows 0…a of L_b and entries 0…a of its
// K_PR row, so the leading positions of the block that no removal has
// touched since (valid; appends leave every earlier row of L_b as it was)
// keep their entries, and an entry of ZᵀZ is kept while its two planes'
// rows are unchanged. What is formed is formed by the same operations as a
// fresh border (the forward substitution from the first changed position,
// and each entry of ZᵀZ as the one dot product Syrk takes), so the factor
// is the same to the last bit.
type blockBorder struct {
	border      []int
	n, valid    int
	kPR, zT, zz []float64
	// The previous arrays, reused for the next ones.
	kPR0, zT0, zz0 []float64
	moved          []int // scratch: each new row's old row, −1 if new
}

// borderPart brings the block's part of the border up to date for the
// planes border, keeping what is still valid (see blockBorder).
func (b *packedChol) borderPart(g [][]float64, border []int) {
	d := &b.bd
	n, m := b.n(), len(border)
	valid := min(d.valid, n)
	if d.border != nil && valid == n && d.n == n && slices.Equal(d.border, border) {
		return
	}
	// Each plane's old row: both lists are in increasing general index
	// (sync lists the planes so, and compact keeps their order), so one
	// merge finds them; a plane it missed would only be formed afresh.
	d.moved = d.moved[:0]
	o := 0
	for _, q := range border {
		for o < len(d.border) && d.border[o] < q {
			o++
		}
		if o < len(d.border) && d.border[o] == q {
			d.moved = append(d.moved, o)
		} else {
			d.moved = append(d.moved, -1)
		}
	}
	oldN := d.n
	d.kPR, d.kPR0 = resize(d.kPR0, m*n), d.kPR
	d.zT, d.zT0 = resize(d.zT0, m*n), d.zT
	d.zz, d.zz0 = resize(d.zz0, m*m), d.zz
	for j, q := range border {
		kj, zj := d.kPR[j*n:(j+1)*n], d.zT[j*n:(j+1)*n]
		from := 0
		if o := d.moved[j]; o >= 0 { // a kept plane: its valid entries stay
			from = valid
			copy(kj[:from], d.kPR0[o*oldN:o*oldN+from])
			copy(zj[:from], d.zT0[o*oldN:o*oldN+from])
		}
		// K_PR from the planes' Gram rows (K is symmetric), rather than m
		// scattered entries of each row's long Gram row.
		gq := g[q]
		for a, p := range b.ord[from:] {
			kj[from+a] = gq[p]
		}
		b.forwardFrom(zj, kj, from)
	}
	// Z_bᵀ·Z_b as Syrk forms it (each entry one dot product), keeping the
	// entries of two planes whose rows did not change.
	same := valid == n && oldN == n
	clear(d.zz)
	for i := range m {
		oi := d.moved[i]
		zi := d.zT[i*n : (i+1)*n]
		for j := range i + 1 {
			if oj := d.moved[j]; same && oi >= 0 && oj >= 0 {
				d.zz[i*m+j] = d.zz0[max(oi, oj)*len(d.border)+min(oi, oj)]
				continue
			}
			d.zz[i*m+j] = floats.Dot(d.zT[j*n:(j+1)*n], zi)
		}
	}
	d.border = append(d.border[:0], border...)
	d.n, d.valid = n, n
}

// resize returns a with length n, reusing its storage when it is large
// enough; the contents are unspecified.
func resize(a []float64, n int) []float64 {
	if cap(a) >= n {
		return a[:n]
	}
	return make([]float64, n)
}

// solve sets x = (K_SS + εD)⁻¹·b in position order (x and b may alias).
func (c *activeChol) solve(x, b []float64) {
	nR := c.nBlocks()
	for bi, blk := range c.blocks {
		o, e := c.off[bi], c.off[bi+1]
		if !slices.ContainsFunc(b[o:e], func(v float64) bool { return v != 0 }) {
			// L_b⁻¹·0 = 0 (the planes' right-hand side 1_planes is 0 on
			// every block of rows).
			clear(x[o:e])
			continue
		}
		blk.forward(x[o:e], b[o:e])
	}
	if m := len(c.ord) - nR; m > 0 {
		// y_P = L_P⁻¹·(b_P − Zᵀ·y_R), x_P = L_P⁻ᵀ·y_P, then y_R −= Z·x_P.
		xp := x[nR:]
		copy(xp, b[nR:])
		for bi, blk := range c.blocks {
			o, n := c.off[bi], blk.n()
			for j := range m {
				xp[j] -= floats.Dot(blk.bd.zT[j*n:(j+1)*n], x[o:o+n])
			}
		}
		l := c.lP
		for j := range m {
			xp[j] = (xp[j] - floats.Dot(l[j*m:j*m+j], xp[:j])) / l[j*m+j]
		}
		for j := m - 1; j >= 0; j-- {
			xp[j] /= l[j*m+j]
			for k := range j {
				xp[k] -= l[j*m+k] * xp[j]
			}
		}
		for bi, blk := range c.blocks {
			o, n := c.off[bi], blk.n()
			for j := range m {
				floats.AddScaled(x[o:o+n], -xp[j], blk.bd.zT[j*n:(j+1)*n])
			}
		}
	}
	for bi, blk := range c.blocks {
		blk.backward(x[c.off[bi]:c.off[bi+1]])
	}
}

// mulK sets y = K_SS·x in position order.
func (c *activeChol) mulK(y, x []float64) {
	nR := c.nBlocks()
	for bi, blk := range c.blocks {
		o, e := c.off[bi], c.off[bi+1]
		blk.mulK(y[o:e], x[o:e])
	}
	m := len(c.ord) - nR
	if m == 0 {
		return
	}
	xp, yp := x[nR:], y[nR:]
	for j := range m {
		yp[j] = floats.Dot(c.kPP[j*m:(j+1)*m], xp)
	}
	for bi, blk := range c.blocks {
		o, n := c.off[bi], blk.n()
		for j := range m {
			kj := blk.bd.kPR[j*n : (j+1)*n]
			yp[j] += floats.Dot(kj, x[o:o+n])
			floats.AddScaled(y[o:o+n], xp[j], kj)
		}
	}
}

// compact follows Solver.compact: vectors dropped from the QP leave the
// factor, the others are renumbered (keep[a] is the old index of a). The
// order and the border are rebuilt by the next sync.
func (c *activeChol) compact(drop []bool, keep []int) {
	newIdx := make([]int, len(drop))
	for a, p := range keep {
		newIdx[p] = a
	}
	c.blk = make([]int, len(keep))
	for i := range c.blk {
		c.blk[i] = -1
	}
	live := 0
	for bi, b := range c.blocks {
		dead := make([]bool, b.n())
		for i, p := range b.ord {
			dead[i] = drop[p]
		}
		b.removeSet(dead)
		if b.n() == 0 {
			continue
		}
		for i, p := range b.ord {
			b.ord[i] = newIdx[p]
			c.blk[newIdx[p]] = live
		}
		// The border part's planes follow the renumbering; a dropped
		// plane's rows stay, under −1, until the next sync replaces them.
		for j, q := range b.bd.border {
			if q >= 0 && drop[q] {
				b.bd.border[j] = -1
			} else if q >= 0 {
				b.bd.border[j] = newIdx[q]
			}
		}
		c.blocks[live], c.keys[live] = b, c.keys[bi]
		live++
	}
	c.blocks, c.keys = c.blocks[:live], c.keys[:live]
	// Rows' groups are keyed by a coordinate, which compaction keeps; only
	// rows without coordinates are keyed by their index (Solver.group),
	// and key() moves those at the next sync.
	c.layout(nil)
	c.kLam, c.kStar = c.kLam[:0], c.kStar[:0]
}

// packedChol is one updatable Cholesky block: L·Lᵀ = K_TT + εD_T for a list
// T of general indices (ord), entering a vector appends a row (O(|T|²)),
// leaving deletes a row and column and repairs the trailing block by a
// rank-one update (O(|T|²)).
type packedChol struct {
	ord []int // general index of each position
	// l holds the lower triangle of L packed by rows: row i is
	// l[i(i+1)/2 : i(i+1)/2+i+1]. Packed, appending a row never moves the
	// others, and a block of 4000 vectors takes 64 MB rather than 128.
	l []float64
	// k holds K_TT (without ε) in position order, packed the same way, for
	// the residuals of the refinement rounds: contiguous, unlike the rows of
	// the solver's Gram matrix, which span every plane and row of the QP.
	k []float64
	// bd is the block's part of the border; removeSet marks where its rows
	// stop being valid.
	bd blockBorder
}

func (c *packedChol) n() int { return len(c.ord) }

// row returns row i of L (its first i+1 entries).
func (c *packedChol) row(i int) []float64 { o := i * (i + 1) / 2; return c.l[o : o+i+1] }

// appendAll adds the general indices ps as the last positions, in order.
// Their rows of L solve L·y = K_{T,p} for the old positions, all in one pass
// over L (each packed row is read once for every new vector: the pass is
// memory bound, and the polish enters up to 8 vectors per round), then the
// small block among themselves. It returns false when a vector is, within
// rounding, in the span of those before it; the ones before it stay.
func (c *packedChol) appendAll(s *Solver, eps float64, ps []int) bool {
	n0, m := c.n(), len(ps)
	if m == 0 {
		return true
	}
	o0 := n0 * (n0 + 1) / 2
	end := (n0 + m) * (n0 + m + 1) / 2
	c.l = append(c.l[:o0], make([]float64, end-o0)...)
	c.k = append(c.k[:o0], make([]float64, end-o0)...)
	ys := make([][]float64, m) // row n0+t of L
	ks := make([][]float64, m) // row n0+t of K_TT
	for t, p := range ps {
		o := (n0 + t) * (n0 + t + 1) / 2
		ys[t] = c.l[o : o+n0+t+1]
		kr := c.k[o : o+n0+t+1]
		ks[t] = kr
		s.kRow(p, c.ord, kr[:n0])
		s.kRow(p, ps[:t+1], kr[n0:])
	}
	for j := range n0 {
		r := c.row(j)
		for t := range ps {
			y := ys[t]
			y[j] = (ks[t][j] - floats.Dot(r[:j], y[:j])) / r[j]
		}
	}
	for t, p := range ps {
		y := ys[t]
		for u := range t {
			yu := ys[u]
			y[n0+u] = (ks[t][n0+u] - floats.Dot(y[:n0+u], yu[:n0+u])) / yu[n0+u]
		}
		d := s.diag[p] + proxEps(eps, s.diag[p]) - floats.Dot(y[:n0+t], y[:n0+t])
		if !(d > 0) || math.IsInf(d, 0) {
			o := (n0 + t) * (n0 + t + 1) / 2
			c.l, c.k = c.l[:o], c.k[:o]
			return false
		}
		y[n0+t] = math.Sqrt(d)
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
func (c *packedChol) removeSet(dead []bool) {
	first := slices.Index(dead, true)
	if first < 0 {
		return
	}
	c.bd.valid = min(c.bd.valid, first) // rows from first on change
	n := c.n()
	// trail = buf[start:] holds the live positions after the current one,
	// ascending (filled from the back as i goes down).
	buf, start := make([]int, n), n
	// The rotations of one deleted position (a trailing block's worth):
	// each is written before it is read, so one set serves every position.
	rot := [3][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
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
		cs, ics, sn := rot[0][:m], rot[1][:m], rot[2][:m]
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
		if !dead[i] {
			ord = append(ord, p)
		}
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

// forward sets x = L⁻¹·b (x and b may alias).
func (c *packedChol) forward(x, b []float64) { c.forwardFrom(x, b, 0) }

// forwardFrom is forward for x whose first from entries are already those
// of L⁻¹·b (the entry i depends only on the rows 0…i of L and b_0…b_i).
func (c *packedChol) forwardFrom(x, b []float64, from int) {
	for i := from; i < c.n(); i++ {
		r := c.row(i)
		x[i] = (b[i] - floats.Dot(r[:i], x[:i])) / r[i]
	}
}

// backward sets x = L⁻ᵀ·x, by rows of L (contiguous): once x_i is known,
// remove its share from the entries above.
func (c *packedChol) backward(x []float64) {
	for i := c.n() - 1; i >= 0; i-- {
		r := c.row(i)
		x[i] /= r[i]
		floats.AddScaled(x[:i], -x[i], r[:i])
	}
}

// mulK sets y = K_TT·x from the packed lower triangle: row i contributes
// its dot product to y_i and, by symmetry, x_i times its off-diagonal part
// to y_{<i}.
func (c *packedChol) mulK(y, x []float64) {
	clear(y)
	for i := range c.ord {
		o := i * (i + 1) / 2
		row := c.k[o : o+i+1]
		y[i] += floats.Dot(row, x[:i+1])
		floats.AddScaled(y[:i], x[i], row[:i])
	}
}

// refineTol is the relative change of the margins (as distances) and of ξ
// below which solveActiveChol's refinement rounds stop.
const refineTol = 1e-13

// ratio is a/b for a, b ≥ 0, with 0/0 = 0 (nothing moved, nothing to move).
func ratio(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return a / b
}

// solveActiveChol is solveActive for a free set without sign bounds, with
// the factor c kept across calls: the bordered system
//
//	(K_SS + εD)·λ + ξ·1_planes = t,  1_planesᵀ·λ = C   (ξ free, D = diag K_SS)
//
// is solved through K_SS + εD alone (ξ from the Schur complement
// 1ᵀ(K+εD)⁻¹1), with the same proximal rounds on the unregularised system.
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
	t := c.buf(bufT, n)
	ones := c.buf(bufOnes, n) // 1_planes
	clear(ones)
	x := c.buf(bufX, n)
	inv := c.buf(bufInv, n) // 1/‖r_p‖: margins compared as distances
	for a, p := range S {
		t[a] = s.rhs[p]
		x[a] = s.lam[p]
		if s.isPlane[p] {
			ones[a] = 1
		}
		inv[a] = 1 / math.Sqrt(math.Max(s.diag[p], 1e-300))
	}
	var v []float64 // (K+εD)⁻¹·1_planes
	if xiFree {
		v = c.buf(bufV, n)
		c.solve(v, ones)
	}
	r := c.buf(bufR, n)
	u := c.buf(bufU, n)
	kx, kxPrev := c.buf(bufKx, n), c.buf(bufKxPrev, n)
	tDist, tAbs := 0.0, floats.Norm(t, math.Inf(1)) // |t_p|/‖r_p‖ and |t_p|
	for a := range t {
		tDist = math.Max(tDist, math.Abs(t[a])*inv[a])
	}
	dxi, lastChange := 0.0, 0.0
	for round := 0; ; round++ {
		c.mulK(kx, x)
		if round == 0 {
			c.kLam = append(c.kLam[:0], kx...)
		}
		// The rounds undo the proximal ε. What the polish reads of x is the
		// margins K·x (w = Σ x_p r_p), so stop when the last correction
		// moved them by rounding only; corrections along near-null
		// directions of K_SS (dependent rows) change x without changing w,
		// and waiting for them would always take the six rounds. Margins
		// are compared as distances, (K·x)_p/‖r_p‖, so that rows far
		// shorter than the planes are refined as far as the planes.
		//
		// The corrections shrink by a roughly constant factor per round
		// (the proximal ε times K's conditioning, ~10⁻⁵ here) until they
		// reach the rounding of K·x, where they stop shrinking. So stop as
		// well when the next correction, extrapolated with the last
		// factor, is already below the tolerance, or when a correction has
		// not halved the previous one (rounding reached): further rounds
		// would leave x where it is. Without these two tests nearly every
		// call ran all six rounds, sitting at 10⁻¹¹ against 10⁻¹³.
		if round > 0 {
			moved, scale := 0.0, tDist
			for a := range kx {
				moved = math.Max(moved, math.Abs(kx[a]-kxPrev[a])*inv[a])
				scale = math.Max(scale, math.Abs(kx[a])*inv[a])
			}
			// change is the larger of the two relative corrections.
			change := math.Max(ratio(moved, scale), ratio(math.Abs(dxi), math.Max(math.Max(tAbs, floats.Norm(kx, math.Inf(1))), math.Abs(xi))))
			if change <= refineTol {
				break
			}
			if round > 1 && (change*(change/lastChange) <= refineTol || change > lastChange/2) {
				break
			}
			lastChange = change
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
