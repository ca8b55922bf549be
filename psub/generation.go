package psub

import (
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/probably-submodular/crf/internal/panics"
)

// pool holds the hard constraints of C2*, C3, C4 and C̄4, c_ij = b_j ⊗ p_i
// (paper §6): row p_i of P is a pairwise feature vector (an edge of the data,
// or the unit vector e_i for C2*), row b_j of B combines the pairwise blocks.
// Its margins c_ij·w form the matrix V = P·(W̃_p·Bᵀ) of Algorithm 1; lower
// holds the bounds L of Algorithm 2 and norm(i,j) = ‖b_j‖·‖p_i‖ the matrix N.
type pool struct {
	layout Layout
	// P holds the rows p_i densely (rows × dp) when they are mostly
	// non-zero; sp holds them sparsely otherwise (one-hot blocks such as the
	// multi-label graphs' 1(e) ⊗ R(x), where a dense P would be |E| times
	// larger and its margins |E| times slower). Both nil: the identity (C2*).
	P  *mat.Dense
	sp *sparseRows
	// lanes holds the non-zeros of a dense P that is sparse enough
	// (laneDensity), for recompute's margins of several rows b.
	lanes *laneRows
	rows  int
	B     []bRow
	bnorm []float64
	pnorm []float64
	// ppos and pneg are ‖p_i⁺‖ and ‖p_i⁻‖, the norms of the positive and
	// negative parts of p_i (for the tight bounds).
	ppos, pneg []float64
	lower      []float64 // rows × len(B), row-major; −Inf = unknown
	wLast      []float64 // w at which lower is valid
	added      map[int]bool
	active     int   // only rows [0, active) are enforced (minibatch stages)
	computed   int64 // margins computed so far
	workers    int
	// tight refines Algorithm 2 three times, each time keeping every bound
	// valid and never lower than the paper's: (1) Cauchy–Schwarz on
	// c_ij·(w' − w) = p_i·Δ_j with Δ_j = W'_j − W_j (W = W̃_p·Bᵀ) gives
	// ‖Δ_j‖·‖p_i‖ in place of ‖w' − w‖·‖c_ij‖; (2) only a decrease can
	// violate: p_i·Δ ≥ −‖p_i⁺‖·‖Δ⁻‖ − ‖p_i⁻‖·‖Δ⁺‖ (x⁺, x⁻ the positive and
	// negative parts), at most ‖p_i‖·‖Δ‖ by Cauchy–Schwarz in R², and for
	// the usual non-negative features only the coordinates where W fell
	// count; (3) each bound is measured from an anchor, the W at which it
	// was last made exact, rather than lowered by the sum of every step
	// since (triangle inequality): w that oscillates near the optimum no
	// longer wears the bounds down.
	tight bool
	// anchor holds the anchors in a ring of anchorSlots snapshots of W;
	// ref and slot are each entry's bound at its anchor and the anchor's
	// slot. A slot is reused after anchorSlots calls, and the entries still
	// anchored there are first rebased on the new W with their current bound.
	anchor      []*mat.Dense
	anchorSlots int
	ref         []float64
	slot        []int32
	calls       int
}

// defaultAnchorSlots bounds the W snapshots kept for tight bounds: each
// call of computeDelayed measures its distance to every one of them.
const defaultAnchorSlots = 16

// sparseDensity is the fraction of non-zero pairwise entries below which the
// pool stores P sparsely.
const sparseDensity = 0.25

// laneDensity is the fraction of non-zero entries of a dense P up to which
// recompute takes an edge's margins from its non-zeros (laneRows) rather
// than from dot products with its dense row. The horses' 74 edge features
// are 31 % non-zero; the mitochondria's, at 52 %, are not taken (a
// four-row pass over their non-zeros gained nothing: psub/BENCHMARKS.md,
// "C3's four rows per edge in one pass"). The lanes take at most 0.4·12/8
// of P's memory (a four-byte index and a value per non-zero).
const laneDensity = 0.40

// newPool builds the pool of the edges of set; norms[i], when given (not
// nil), are instance i's edge norms (a Prepared set's).
func newPool(l Layout, B []bRow, set []Instance, norms []*edgeNorms) *pool {
	rows, nnz := 0, 0
	for i := range set {
		rows += set[i].pairwiseRows().n()
	}
	// N's factors ‖p_i‖ and, for the tight bounds, ‖p_i⁺‖ and ‖p_i⁻‖.
	pn := make([]float64, 0, rows)
	pp, pm := make([]float64, 0, rows), make([]float64, 0, rows)
	for i := range set {
		var n *edgeNorms
		if i < len(norms) {
			n = norms[i]
		}
		if n == nil {
			n = newEdgeNorms(set[i].pairwiseRows())
		}
		pn, pp, pm, nnz = append(pn, n.norm...), append(pp, n.pos...), append(pm, n.neg...), nnz+n.nnz
	}
	// Without pairwise features (dp = 0: edges whose rows are []) every
	// row is empty, which the sparse form holds and a dense P cannot.
	if l.PairwiseDim == 0 || float64(nnz) < sparseDensity*float64(rows)*float64(l.PairwiseDim) {
		sp := &sparseRows{start: make([]int, 1, rows+1), idx: make([]int32, 0, nnz), val: make([]float64, 0, nnz)}
		for i := range set {
			pr := set[i].pairwiseRows()
			for e := 0; e < pr.n(); e++ {
				pr.each(e, func(j int, v float64) {
					if v != 0 {
						sp.idx, sp.val = append(sp.idx, int32(j)), append(sp.val, v)
					}
				})
				sp.start = append(sp.start, len(sp.idx))
			}
		}
		q := initPool(l, B, nil, rows, pn, pp, pm)
		q.sp = sp
		return q
	}
	P := mat.NewDense(max(rows, 1), max(l.PairwiseDim, 1), nil)
	r := 0
	buf := make([]float64, l.PairwiseDim)
	for i := range set {
		pr := set[i].pairwiseRows()
		for e := 0; e < pr.n(); e++ {
			P.SetRow(r, pr.row(e, buf))
			r++
		}
	}
	return initPool(l, B, P, rows, pn, pp, pm)
}

// edgeNorms are the pool's factors of one instance's edges: per edge ‖p‖,
// ‖p⁺‖ and ‖p⁻‖, and the number of non-zero features.
type edgeNorms struct {
	norm, pos, neg []float64
	nnz            int
}

func newEdgeNorms(pr featRows) *edgeNorms {
	n := &edgeNorms{norm: make([]float64, pr.n()), pos: make([]float64, pr.n()), neg: make([]float64, pr.n())}
	for e := range pr.n() {
		pr.each(e, func(_ int, v float64) {
			if v != 0 {
				n.nnz++
			}
		})
		n.pos[e], n.neg[e] = signNorms(pr, e)
		n.norm[e] = pr.norm(e)
	}
	return n
}

// signNorms returns ‖p⁺‖ and ‖p⁻‖ for p = row e of pr.
func signNorms(pr featRows, e int) (pos, neg float64) {
	pr.each(e, func(_ int, v float64) {
		if v > 0 {
			pos += v * v
		} else {
			neg += v * v
		}
	})
	return math.Sqrt(pos), math.Sqrt(neg)
}

// sparseRows is P in compressed sparse row form: the non-zeros of row i are
// idx/val[start[i]:start[i+1]].
type sparseRows struct {
	start []int
	idx   []int32
	val   []float64
}

// dot is p_i·x.
func (s *sparseRows) dot(i int, x []float64) float64 {
	d := 0.0
	for t := s.start[i]; t < s.start[i+1]; t++ {
		d += s.val[t] * x[s.idx[t]]
	}
	return d
}

// identity reports whether P is the identity (C2*: p_i = e_i).
func (q *pool) identity() bool { return q.P == nil && q.sp == nil }

func newIdentityPool(l Layout, B []bRow) *pool {
	pn := make([]float64, l.PairwiseDim)
	for i := range pn {
		pn[i] = 1
	}
	return initPool(l, B, nil, l.PairwiseDim, pn, pn, make([]float64, len(pn)))
}

func initPool(l Layout, B []bRow, P *mat.Dense, rows int, pn, pp, pm []float64) *pool {
	q := &pool{layout: l, P: P, rows: rows, B: B, pnorm: pn, ppos: pp, pneg: pm, added: map[int]bool{}, active: rows, workers: 1, anchorSlots: defaultAnchorSlots}
	if P != nil && len(B) > 1 {
		q.lanes = newLaneRows(P, rows, l.PairwiseDim, laneDensity)
	}
	for _, b := range B {
		q.bnorm = append(q.bnorm, b.norm())
	}
	q.lower = make([]float64, rows*len(B))
	for i := range q.lower {
		q.lower[i] = math.Inf(-1)
	}
	return q
}

// size is the number of hard constraints in the pool.
func (q *pool) size() int { return q.rows * len(q.B) }

// normOf is N_ij = ‖b_j ⊗ p_i‖ = ‖b_j‖·‖p_i‖.
func (q *pool) normOf(idx int) float64 {
	return q.bnorm[idx%len(q.B)] * q.pnorm[idx/len(q.B)]
}

// row is the hard constraint c_ij as a full-length vector over w.
func (q *pool) row(idx int) []float64 {
	l := q.layout
	i, j := idx/len(q.B), idx%len(q.B)
	g := make([]float64, l.Dim())
	off := l.PairwiseOffset()
	for _, t := range q.B[j] {
		c, bc := t.Block, t.C
		if bc == 0 {
			continue
		}
		if q.identity() {
			g[off+c*l.PairwiseDim+i] = bc
			continue
		}
		if q.sp != nil {
			base := g[off+c*l.PairwiseDim:]
			for t := q.sp.start[i]; t < q.sp.start[i+1]; t++ {
				base[q.sp.idx[t]] += bc * q.sp.val[t]
			}
			continue
		}
		axpy(g[off+c*l.PairwiseDim:], bc, q.P.RawRowView(i)[:l.PairwiseDim])
	}
	return g
}

// wMatrix is W = W̃_p·Bᵀ (dp × |B|), where column c of W̃_p is block c of w_p.
func (q *pool) wMatrix(w []float64) *mat.Dense {
	l := q.layout
	dp := l.PairwiseDim
	W := mat.NewDense(max(dp, 1), len(q.B), nil)
	off := l.PairwiseOffset()
	for j, b := range q.B {
		for _, t := range b {
			c, bc := t.Block, t.C
			if bc == 0 {
				continue
			}
			for k := 0; k < dp; k++ {
				W.Set(k, j, W.At(k, j)+bc*w[off+c*dp+k])
			}
		}
	}
	return W
}

// computeFull is Algorithm 1's margin step: V = P·W over the active rows,
// stored into lower (which then holds exact margins).
func (q *pool) computeFull(w []float64) {
	W := q.wMatrix(w)
	nb := len(q.B)
	switch {
	case q.identity():
		for i := 0; i < q.active; i++ {
			for j := 0; j < nb; j++ {
				q.lower[i*nb+j] = W.At(i, j)
			}
		}
	case q.sp != nil:
		raw := W.RawMatrix()
		q.parallelRows(0, func(lo, hi int) {
			if nb == 1 {
				// Two labels: one margin per edge, a sparse dot product
				// with W's single column (stride raw.Stride).
				for i := lo; i < hi; i++ {
					s := 0.0
					for t := q.sp.start[i]; t < q.sp.start[i+1]; t++ {
						s += q.sp.val[t] * raw.Data[int(q.sp.idx[t])*raw.Stride]
					}
					q.lower[i] = s
				}
				return
			}
			for i := lo; i < hi; i++ {
				v := q.lower[i*nb : (i+1)*nb]
				clear(v)
				for t := q.sp.start[i]; t < q.sp.start[i+1]; t++ {
					k := int(q.sp.idx[t]) * raw.Stride
					axpy(v, q.sp.val[t], raw.Data[k:k+nb])
				}
			}
		})
	default:
		q.parallelRows(0, func(lo, hi int) {
			if hi <= lo {
				return
			}
			Pl := q.P.Slice(lo, hi, 0, q.layout.PairwiseDim)
			if nb == 1 {
				// Two labels: V is one column, and gonum's Gemv is several
				// times faster than its Dgemm with a single column.
				v := mat.NewVecDense(hi-lo, q.lower[lo:hi])
				v.MulVec(Pl, W.ColView(0))
				return
			}
			V := mat.NewDense(hi-lo, nb, q.lower[lo*nb:hi*nb])
			V.Mul(Pl, W)
		})
	}
	q.computed += int64(q.active * nb)
	q.wLast = append(q.wLast[:0], w...)
}

// computeDelayed is Algorithm 2's margin step: L ← L − ‖w_p − w_last,p‖·N,
// then recompute only the entries with L ≤ 0 (with tight: computeAnchored).
// The paper writes ‖w' − w‖, but c_ij is zero outside the pairwise blocks,
// so c_ij·(w' − w) = c_ij·(w'_p − w_p) and Cauchy–Schwarz needs only the
// pairwise part (as the authors' code, probsub_helpers.update_L, does): the
// bound is never lower and still valid. With several rows b it goes one
// step further: c_ij·(w' − w) = p_i·(W'_j − W_j), so each column's step
// ‖W'_j − W_j‖·‖p_i‖ (at most ‖w'_p − w_p‖·N_ij) bounds it; C3's rows b
// are single blocks, of which one iteration moves some more than others.
// The entries with L ≤ 0, the only
// candidates of violated, are exact either way, so generation adds the same
// constraints; only pruneRows, which drops an inactive row whose bound shows
// a clear margin, may drop one earlier (it returns when violated). On the
// quick cows fold the 2-pass row computes 5 % fewer margins, same iterates.
func (q *pool) computeDelayed(w []float64) {
	nb := len(q.B)
	W := q.wMatrix(w)
	if q.tight {
		q.computeAnchored(W)
		return
	}
	if nb == 1 {
		q.delayedBinary(w, W, 0, false)
		return
	}
	if q.wLast != nil {
		// step[j] = ‖W_j − W_last,j‖ bounds |c_ij·(w − w_last)| / ‖p_i‖
		// (c_ij·(w − w_last) = p_i·(W_j − W_last,j), Cauchy–Schwarz); it is
		// at most ‖w_p − w_last,p‖·‖b_j‖.
		Wl := q.wMatrix(q.wLast)
		dp, _ := W.Dims()
		step := make([]float64, nb)
		for j := range step {
			d := 0.0
			for k := 0; k < dp; k++ {
				x := W.At(k, j) - Wl.At(k, j)
				d += x * x
			}
			step[j] = math.Sqrt(d)
		}
		for i := 0; i < q.active; i++ {
			for j := 0; j < nb; j++ {
				q.lower[i*nb+j] -= step[j] * q.pnorm[i]
			}
		}
	}
	q.recompute(W, nil, 0)
	q.wLast = append(q.wLast[:0], w...)
}

// delayedBinary is computeDelayed for two labels (one row b), the
// segmentation fits' case: one margin per edge, the bound lowered and the
// entries at or below 0 recomputed in one pass over the rows, with the
// arithmetic of the general path (same bounds, same margins: for dense P
// the same dot). Dense P is the planar graphs' few edge features, where the
// general path's per-entry views cost more than the products.
//
// It covers the active rows from on; with exact it recomputes every one of
// them (restBinary).
func (q *pool) delayedBinary(w []float64, W *mat.Dense, from int, exact bool) {
	step := 0.0 // ‖w_p − w_last,p‖·‖b‖: lowering by 0 changes no bound
	if exact {
		step = math.Inf(1) // no bound stays positive
	} else if q.wLast != nil {
		d := 0.0
		for i := q.layout.PairwiseOffset(); i < len(w); i++ {
			d += (w[i] - q.wLast[i]) * (w[i] - q.wLast[i])
		}
		step = math.Sqrt(d) * q.bnorm[0]
	}
	x := mat.Col(nil, 0, W)
	var mu sync.Mutex
	if q.sp == nil {
		dp := q.layout.PairwiseDim
		var raw blas64.General
		if q.P != nil {
			raw = q.P.RawMatrix()
		}
		q.parallelRows(from, func(lo, hi int) {
			n := int64(0)
			for i := lo; i < hi; i++ {
				l := q.lower[i] - step*q.pnorm[i]
				if l > 0 {
					q.lower[i] = l
					continue
				}
				if q.P == nil { // the identity (C2*)
					q.lower[i] = x[i]
				} else {
					q.lower[i] = dot(x, raw.Data[i*raw.Stride:i*raw.Stride+dp])
				}
				n++
			}
			mu.Lock()
			q.computed += n
			mu.Unlock()
		})
		q.wLast = append(q.wLast[:0], w...)
		return
	}
	q.parallelRows(from, func(lo, hi int) {
		lower, pn := q.lower[lo:hi], q.pnorm[lo:hi]
		start, idx, val := q.sp.start[lo:hi+1], q.sp.idx, q.sp.val
		n := int64(0)
		for i := range lower {
			l := lower[i] - step*pn[i]
			if l > 0 {
				lower[i] = l
				continue
			}
			// Row i's non-zeros, resliced so that only x is bounds-checked.
			vs := val[start[i]:start[i+1]]
			is := idx[start[i]:start[i+1]]
			is = is[:len(vs)]
			m := 0.0
			for t, v := range vs {
				m += v * x[is[t]]
			}
			lower[i] = m
			n++
		}
		mu.Lock()
		q.computed += n
		mu.Unlock()
	})
	q.wLast = append(q.wLast[:0], w...)
}

// computeAnchored is computeDelayed with tight bounds: L_ij is
// ref_ij − ‖p_i⁺‖·‖Δ_j⁻‖ − ‖p_i⁻‖·‖Δ_j⁺‖ with Δ_j = W_j − A_j for the
// anchor A of entry ij.
func (q *pool) computeAnchored(W *mat.Dense) { q.anchored(W, len(q.B) == 1) }

// anchored is computeAnchored, through the two-label pass (anchoredBinary)
// when binary, else through recompute.
func (q *pool) anchored(W *mat.Dense, binary bool) {
	nb := len(q.B)
	if q.ref == nil {
		q.ref = make([]float64, len(q.lower))
		for i := range q.ref {
			q.ref[i] = math.Inf(-1)
		}
		q.slot = make([]int32, len(q.lower))
		q.anchor = make([]*mat.Dense, max(q.anchorSlots, 1))
	}
	cur := int32(q.calls % len(q.anchor))
	q.calls++
	// fall[g*nb+j] = ‖(W_j − A^g_j)⁻‖ and rise[g*nb+j] = ‖(W_j − A^g_j)⁺‖;
	// the slot about to be reused still holds its old anchor here.
	fall := make([]float64, len(q.anchor)*nb)
	rise := make([]float64, len(q.anchor)*nb)
	r, _ := W.Dims()
	for g, A := range q.anchor {
		if A == nil {
			continue
		}
		for j := 0; j < nb; j++ {
			dn, up := 0.0, 0.0
			for k := 0; k < r; k++ {
				if x := W.At(k, j) - A.At(k, j); x < 0 {
					dn += x * x
				} else {
					up += x * x
				}
			}
			fall[g*nb+j], rise[g*nb+j] = math.Sqrt(dn), math.Sqrt(up)
		}
	}
	if binary {
		q.anchoredBinary(W, &anchorDist{fall, rise}, cur)
	} else {
		q.recompute(W, &anchorDist{fall, rise}, cur)
	}
	q.anchor[cur] = W
}

// anchoredBinary is recompute with tight bounds for two labels (one row b,
// nb = 1): the same bounds, rebasing and margins, the margins with
// delayedBinary's products (dense P: dot with W's column, as recompute's
// dot with Wt's row; sparse: sparseRows.dot), in one pass over the rows
// without recompute's per-entry views of Wt. On EM volumes (non-negative
// |φ_k − φ_l|, so L = ref − ‖p‖·‖Δ⁻‖) the tight bound skips about half of
// the margins that Algorithm 2's bound computes.
func (q *pool) anchoredBinary(W *mat.Dense, dist *anchorDist, cur int32) {
	x := mat.Col(nil, 0, W)
	dp := q.layout.PairwiseDim
	var raw blas64.General
	if q.P != nil {
		raw = q.P.RawMatrix()
	}
	var mu sync.Mutex
	q.parallelRows(0, func(lo, hi int) {
		n := int64(0)
		for i := lo; i < hi; i++ {
			g := q.slot[i]
			b := q.ref[i] - dist.fall[g]*q.ppos[i] - dist.rise[g]*q.pneg[i]
			q.lower[i] = b
			if g == cur {
				q.ref[i] = b // rebased on the new anchor W
			}
			if b > 0 {
				continue
			}
			switch {
			case q.identity():
				q.lower[i] = x[i]
			case q.sp != nil:
				q.lower[i] = q.sp.dot(i, x)
			default:
				q.lower[i] = dot(x, raw.Data[i*raw.Stride:i*raw.Stride+dp])
			}
			q.ref[i], q.slot[i] = q.lower[i], cur
			n++
		}
		mu.Lock()
		q.computed += n
		mu.Unlock()
	})
}

// anchorDist holds, per anchor slot g and column j, the norms of the
// negative (fall) and positive (rise) parts of W_j − A^g_j.
type anchorDist struct{ fall, rise []float64 }

// recompute sets lower to the exact margin c_ij·w (W = wMatrix(w)) for every
// active entry whose bound is ≤ 0, and counts the margins computed. With
// dist (tight bounds) it first sets each bound from its anchor, rebases the
// entries of slot cur and anchors the recomputed ones there; without, lower
// already holds the bounds.
func (q *pool) recompute(W *mat.Dense, dist *anchorDist, cur int32) {
	nb := len(q.B)
	Wt := mat.DenseCopyOf(W.T()) // |B| × dp: row j is column j of W
	raw := W.RawMatrix()
	dp := q.layout.PairwiseDim
	var mu sync.Mutex
	q.parallelRows(0, func(lo, hi int) {
		n := int64(0)
		var margins []float64 // an edge's margins, from q.lanes
		if q.lanes != nil {
			margins = make([]float64, 4*nb+nb)
		}
		for i := lo; i < hi; i++ {
			lanes := false // row i's margins taken from q.lanes
			for j := 0; j < nb; j++ {
				idx := i*nb + j
				if dist != nil {
					g := int(q.slot[idx])*nb + j
					b := q.ref[idx] - dist.fall[g]*q.ppos[i] - dist.rise[g]*q.pneg[i]
					q.lower[idx] = b
					if q.slot[idx] == cur {
						q.ref[idx] = b // rebased on the new anchor W
					}
				}
				if q.lower[idx] > 0 {
					continue
				}
				switch {
				case q.identity():
					q.lower[idx] = W.At(i, j)
				case q.sp != nil:
					q.lower[idx] = q.sp.dot(i, Wt.RawRowView(j))
				case q.lanes != nil:
					if !lanes {
						q.lanes.margins(i, raw, margins)
						lanes = true
					}
					q.lower[idx] = margins[j]
				default:
					q.lower[idx] = dot(Wt.RawRowView(j), q.P.RawRowView(i)[:dp])
				}
				if dist != nil {
					q.ref[idx], q.slot[idx] = q.lower[idx], cur
				}
				n++
			}
		}
		mu.Lock()
		q.computed += n
		mu.Unlock()
	})
}

// laneRows holds the non-zeros of a dense P by the partial sum of dot
// that each one's product goes to: dot(x, p) over dp entries adds
// x_k·p_k to partial sum k mod 4 for k below dp rounded down to a multiple
// of 4 and to sum 0 above, each sum in increasing k. Lane l of row i is
// idx/val[start[4i+l] : start[4i+l+1]], in increasing k.
//
// margins takes every margin p_i·W_j of an edge (C3: four) in one pass
// over its non-zeros, each through the same additions in the same order
// as dot(W_j, p_i) less those of a zero p_ik: their products are ±0, and a
// partial sum, which starts at +0, is never −0, so adding ±0 leaves it as
// it is (for finite W). So the margins are dot's to the last bit.
type laneRows struct {
	start []int
	idx   []int32
	val   []float64
}

// newLaneRows returns the lanes of P's first rows rows over dp columns,
// or nil when more than density of its entries are non-zero.
func newLaneRows(P *mat.Dense, rows, dp int, density float64) *laneRows {
	nnz := 0
	for i := range rows {
		for _, v := range P.RawRowView(i)[:dp] {
			if v != 0 {
				nnz++
			}
		}
	}
	if dp == 0 || float64(nnz) > density*float64(rows)*float64(dp) {
		return nil
	}
	lr := &laneRows{start: make([]int, 1, 4*rows+1), idx: make([]int32, 0, nnz), val: make([]float64, 0, nnz)}
	n4 := dp &^ 3
	for i := range rows {
		p := P.RawRowView(i)[:dp]
		for l := range 4 {
			for k := l; k < n4; k += 4 {
				if p[k] != 0 {
					lr.idx, lr.val = append(lr.idx, int32(k)), append(lr.val, p[k])
				}
			}
			if l == 0 {
				for k := n4; k < dp; k++ {
					if p[k] != 0 {
						lr.idx, lr.val = append(lr.idx, int32(k)), append(lr.val, p[k])
					}
				}
			}
			lr.start = append(lr.start, len(lr.idx))
		}
	}
	return lr
}

// margins sets out[j] = p_i·W_j for every column j of W (dp × nb, as
// wMatrix returns it), as dot(W_j, p_i) would; out has room for 5·nb
// entries, the first nb of which are the margins.
func (lr *laneRows) margins(i int, W blas64.General, out []float64) {
	nb, st := W.Cols, W.Stride
	sums := out[nb : 5*nb] // sums[l*nb+j]: partial sum l of margin j
	if nb == 4 {
		for l := range 4 {
			var s0, s1, s2, s3 float64
			vs := lr.val[lr.start[4*i+l]:lr.start[4*i+l+1]]
			is := lr.idx[lr.start[4*i+l]:lr.start[4*i+l+1]]
			is = is[:len(vs)]
			for t, v := range vs {
				k := int(is[t]) * st
				w := W.Data[k : k+4 : k+4]
				s0 += w[0] * v
				s1 += w[1] * v
				s2 += w[2] * v
				s3 += w[3] * v
			}
			sums[l*4], sums[l*4+1], sums[l*4+2], sums[l*4+3] = s0, s1, s2, s3
		}
	} else {
		clear(sums)
		for l := range 4 {
			s := sums[l*nb : (l+1)*nb]
			for t := lr.start[4*i+l]; t < lr.start[4*i+l+1]; t++ {
				k, v := int(lr.idx[t])*st, lr.val[t]
				for j, w := range W.Data[k : k+nb] {
					s[j] += w * v
				}
			}
		}
	}
	for j := range nb {
		out[j] = (sums[j] + sums[nb+j]) + (sums[2*nb+j] + sums[3*nb+j])
	}
}

// parallelRows splits the active rows from on into contiguous chunks, one
// per worker.
func (q *pool) parallelRows(from int, f func(lo, hi int)) {
	n := q.active - from
	if n <= 0 {
		return
	}
	workers := max(1, min(q.workers, n/4096+1))
	if workers == 1 {
		f(from, q.active)
		return
	}
	var g panics.Group // raises a worker's panic here
	for t := 0; t < workers; t++ {
		lo, hi := from+t*n/workers, from+(t+1)*n/workers
		g.Go(func() { f(lo, hi) })
	}
	g.Wait()
}

// restBinary is the margin step, for two labels, of the active rows from
// on (Algorithm 2's bounds when delayed, else exact margins), after which
// w is the pool's last w: fusedGenerate has written the exact margins of
// the rows before from at w.
func (q *pool) restBinary(w []float64, from int, delayed bool) {
	q.delayedBinary(w, q.wMatrix(w), from, !delayed)
}

// violated returns up to k indices of the most violated constraints, the
// entries with lower < −eps·N_ij (smallest margin first), skipping those
// already added (their violation is QP round-off), and the smallest margin
// over the active rows. It must follow computeFull or computeDelayed, so
// that every entry with lower ≤ 0 is exact.
// countViolated counts the enforced entries whose margin (q.lower, exact
// after computeFull) is below −eps·N_ij·wnorm, including those already in
// the QP, and returns the smallest margin relative to N_ij·wnorm.
func (q *pool) countViolated(eps, wnorm float64) (bad int, worst float64) {
	for idx := 0; idx < q.active*len(q.B); idx++ {
		n := q.normOf(idx)
		if n == 0 {
			continue
		}
		v := q.lower[idx]
		if v < -eps*n*wnorm {
			bad++
			worst = math.Min(worst, v/(n*wnorm))
		}
	}
	return bad, worst
}

func (q *pool) violated(k int, eps float64) ([]int, float64) {
	nb := len(q.B)
	type cand struct {
		idx int
		v   float64
	}
	var top []cand
	minV := math.Inf(1)
	for idx := 0; idx < q.active*nb; idx++ {
		v := q.lower[idx]
		if v < minV {
			minV = v
		}
		// The cheap tests first: most entries are ≥ 0, and once top is full
		// most violated ones do not beat its last; N_ij costs two divisions
		// and added a map lookup. The tests are independent, so their order
		// changes nothing else.
		if v >= 0 || len(top) == k && v >= top[k-1].v || v >= -eps*q.normOf(idx) || q.added[idx] {
			continue
		}
		c := cand{idx, v}
		pos := sort.Search(len(top), func(t int) bool { return top[t].v > v })
		if len(top) < k {
			top = append(top, cand{})
		}
		copy(top[pos+1:], top[pos:len(top)-1])
		top[pos] = c
	}
	out := make([]int, len(top))
	for t, c := range top {
		out[t] = c.idx
	}
	return out, minV
}
