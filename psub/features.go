package psub

import (
	"slices"

	"github.com/probably-submodular/crf/psub/inference"
	"github.com/probably-submodular/crf/psub/internal/cut"
)

// csr stores feature rows in compressed sparse row form. Histogram
// features (the cows' colour histograms and their |φ_k − φ_l|) are mostly
// zero, and every iteration touches every row of every training instance,
// so skipping zeros is the learner's main saving.
type csr struct {
	start []int32
	idx   []int32
	val   []float64
}

func newCSR(rows [][]float64) csr {
	c := csr{start: make([]int32, 1, len(rows)+1)}
	for _, r := range rows {
		for j, v := range r {
			if v != 0 {
				c.idx = append(c.idx, int32(j))
				c.val = append(c.val, v)
			}
		}
		c.start = append(c.start, int32(len(c.idx)))
	}
	return c
}

// mulInto sets dst[a] = Σ_j x_j·W[j·m + a] for a < m, x = row r.
func (c *csr) mulInto(dst []float64, r int, W []float64, m int) {
	// Binary labels (m = 1 unary, m = 3 pairwise) are the hot path of
	// loss-augmented inference: unrolled, with the weights of one feature
	// coordinate adjacent.
	lo, hi := c.start[r], c.start[r+1]
	switch m {
	case 1:
		var s0 float64
		idx, val := c.idx[lo:hi], c.val[lo:hi]
		for t, j := range idx {
			s0 += val[t] * W[j]
		}
		dst[0] = s0
		return
	case 3:
		var s0, s1, s2 float64
		idx, val := c.idx[lo:hi], c.val[lo:hi]
		for t, j := range idx {
			x := val[t]
			w := W[3*int(j) : 3*int(j)+3 : 3*int(j)+3]
			s0 += x * w[0]
			s1 += x * w[1]
			s2 += x * w[2]
		}
		dst[0], dst[1], dst[2] = s0, s1, s2
		return
	}
	dst = dst[:m]
	clear(dst)
	for t := lo; t < hi; t++ {
		x := c.val[t]
		w := W[int(c.idx[t])*m : int(c.idx[t])*m+m]
		for a, wa := range w {
			dst[a] += x * wa
		}
	}
}

// mul3 is mulInto for m = 3 with the weights as triples (reduced.P3):
// the same products added in the same order.
func (c *csr) mul3(r int, W [][3]float64) [3]float64 {
	var s0, s1, s2 float64
	idx, val := c.idx[c.start[r]:c.start[r+1]], c.val[c.start[r]:c.start[r+1]]
	val = val[:len(idx)]
	for t, j := range idx {
		x, w := val[t], &W[j]
		s0 += x * w[0]
		s1 += x * w[1]
		s2 += x * w[2]
	}
	return [3]float64{s0, s1, s2}
}

// addTo does dst[j] += s·x_j for row r.
func (c *csr) addTo(dst []float64, r int, s float64) {
	for t := c.start[r]; t < c.start[r+1]; t++ {
		dst[c.idx[t]] += s * c.val[t]
	}
}

// instFeatures are an instance's unary and pairwise rows in CSR form, and
// (for the learner's instances) the edges at each node.
type instFeatures struct {
	unary, pairwise csr
	adj             edgeAdj
}

// edgeAdj lists the edges at each node: edge[start[k]:start[k+1]] are the
// indices of the edges with node k as an end, in increasing order.
type edgeAdj struct{ start, edge []int32 }

func newEdgeAdj(n int, edges [][2]int) edgeAdj {
	a := edgeAdj{start: make([]int32, n+1), edge: make([]int32, 2*len(edges))}
	for _, ed := range edges {
		a.start[ed[0]+1]++
		a.start[ed[1]+1]++
	}
	for k := 0; k < n; k++ {
		a.start[k+1] += a.start[k]
	}
	next := append([]int32(nil), a.start[:n]...)
	for e, ed := range edges {
		for _, k := range ed {
			a.edge[next[k]] = int32(e)
			next[k]++
		}
	}
	return a
}

// reduced holds the weights relative to label 0 and block (0,0),
// interleaved by feature coordinate: U[j·(L−1) + a−1] = (w_a − w_0)_j and
// P[j·(B−1) + c−1] = (w_c − w_00)_j. Energies built from them differ from
// −w·ψ by a constant per node and per edge, which leaves every minimiser
// unchanged and saves one of L unary and one of B pairwise products.
//
// For two labels (mp = 3) P3 holds P's triples again, P3[j] = P[3j:3j+3]:
// fillCut's and fillEnergy's product over an edge's non-zeros then reads a
// triple through one pointer instead of a three-element slice of P, whose
// index arithmetic and bounds checks were most of the loop's instructions
// (the EM volume's 53 non-zeros per edge: the pairwise fill 0.64 of the CPU
// with P3, same sums).
type reduced struct {
	U, P   []float64
	P3     [][3]float64
	mu, mp int
}

func (l Layout) reduce(w []float64, r *reduced) {
	L, nb := l.Labels, l.Blocks()
	r.mu, r.mp = L-1, nb-1
	r.U = resize(r.U, l.UnaryDim*r.mu)
	r.P = resize(r.P, l.PairwiseDim*r.mp)
	for a := 1; a < L; a++ {
		for j := 0; j < l.UnaryDim; j++ {
			r.U[j*r.mu+a-1] = w[l.UnaryIndex(a, j)] - w[l.UnaryIndex(0, j)]
		}
	}
	off, dp := l.PairwiseOffset(), l.PairwiseDim
	for c := 1; c < nb; c++ {
		for j := 0; j < dp; j++ {
			r.P[j*r.mp+c-1] = w[off+c*dp+j] - w[off+j]
		}
	}
	r.P3 = r.P3[:0]
	if r.mp == 3 {
		for j := 0; j < dp; j++ {
			r.P3 = append(r.P3, [3]float64(r.P[3*j:3*j+3]))
		}
	}
}

func resize(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// fillEnergy writes the reduced energies of instance f into e; buf is
// scratch of length ≥ max(mu, mp).
func (l Layout) fillEnergy(e *inference.Energy, f *instFeatures, r *reduced, buf []float64) {
	L := l.Labels
	n := len(e.Unary) / L
	if L == 2 && !l.Tied {
		// Binary labels, the hot path: the reduced unary is one product and
		// the reduced table (0, θ01, θ10, θ11) three, computed together.
		var p [3]float64
		for k := 0; k < n; k++ {
			f.unary.mulInto(p[:1], k, r.U, 1)
			e.Unary[2*k], e.Unary[2*k+1] = 0, -p[0]
		}
		for ed := range e.Edges {
			p = f.pairwise.mul3(ed, r.P3)
			t := e.Pairwise[4*ed : 4*ed+4 : 4*ed+4]
			t[0], t[1], t[2], t[3] = 0, -p[0], -p[1], -p[2]
		}
		return
	}
	for k := 0; k < n; k++ {
		f.unary.mulInto(buf, k, r.U, r.mu)
		e.Unary[k*L] = 0
		for a := 1; a < L; a++ {
			e.Unary[k*L+a] = -buf[a-1]
		}
	}
	for ed := range e.Edges {
		f.pairwise.mulInto(buf, ed, r.P, r.mp)
		t := e.Pairwise[ed*L*L : (ed+1)*L*L]
		for a := 0; a < L; a++ {
			for b := 0; b < L; b++ {
				if c := l.Block(a, b); c == 0 {
					t[a*L+b] = 0
				} else {
					t[a*L+b] = -buf[c-1]
				}
			}
		}
	}
}

// fillCut writes the loss-augmented energy of a binary instance straight
// into the normal form of graph cuts (internal/cut.Solver): lin[k] =
// θ_k(1) − θ_k(0) plus the pairwise terms, pair[e] = θ01+θ10−θ00−θ11, with
// the loss folded in (the wrong label's energy lowered by costs[k]). It is
// fillEnergy, augmentUnary and GraphCut's reparametrisation in one pass over
// the features, with the same arithmetic, so both paths give the same cut.
// A sum negative only by rounding becomes 0; with truncate a really negative
// one is truncated as TruncatedGraphCut does and counted, otherwise it is
// left for the solver to report; the second result is Σ −d/2 over the
// truncated edges, which bounds how much lower the untruncated energy's
// minimum can be than the cut's labelling's energy (the truncated energy
// is at least the untruncated one and exceeds it by at most −d/2 per
// truncated edge). With margins not nil, margins[e] receives
// edge e's raw d = θ01 + θ10 − θ00 − θ11 before any rounding or
// truncation: C4's margin c_e·w for the row b = 1(0)⊗1(0) + 1(1)⊗1(1) −
// 1(0)⊗1(1) − 1(1)⊗1(0), which the cut needs anyway (fusedGenerate).
func (l Layout) fillCut(lin, pair []float64, f *instFeatures, r *reduced, costs []float64, y []int, edges [][2]int, truncate bool, margins []float64) (int, float64) {
	// The products are mulInto's for m = 1 and m = 3, written out: this
	// loop runs over every node and edge of every training instance in
	// every iteration, and the call cost as much as the few non-zeros of a
	// histogram row. Same order of operations, so the same numbers.
	U, P := r.U, r.P3
	us, ui, uv := f.unary.start, f.unary.idx, f.unary.val
	costs, y = costs[:len(lin)], y[:len(lin)]
	for k := range lin {
		// θ(0) = 0, θ(1) = −p0.
		is, vs := ui[us[k]:us[k+1]], uv[us[k]:us[k+1]]
		vs = vs[:len(is)]
		var p0 float64
		for t, j := range is {
			p0 += vs[t] * U[j]
		}
		if y[k] == 0 {
			lin[k] = -p0 - costs[k]
		} else {
			lin[k] = -p0 + costs[k]
		}
	}
	truncated, excess := 0, 0.0
	ps, pi, pv := f.pairwise.start, f.pairwise.idx, f.pairwise.val
	pair = pair[:len(edges)]
	for e, ed := range edges {
		// The table (θ00, θ01, θ10, θ11) = (0, −p0, −p1, −p2).
		is, vs := pi[ps[e]:ps[e+1]], pv[ps[e]:ps[e+1]]
		vs = vs[:len(is)]
		var p0, p1, p2 float64
		for t, j := range is {
			x, w := vs[t], &P[j]
			p0 += x * w[0]
			p1 += x * w[1]
			p2 += x * w[2]
		}
		c := -p1
		d := -p0 - p1 + p2
		if margins != nil {
			margins[e] = d
		}
		if d < 0 {
			if cut.AtMost(-p2, -p0-p1) {
				d = 0
			} else if truncate {
				c -= d / 2 // θ01 and θ10 raised by −d/2
				excess -= d / 2
				d = 0
				truncated++
			}
		}
		lin[ed[0]] += c
		lin[ed[1]] += -p2 - c
		pair[e] = d
	}
	return truncated, excess
}

// diffScratch is featureDiffTouched's scratch, kept by its caller.
type diffScratch struct {
	mark []bool
	list []int32
}

// featureDiffTouched is featureDiff visiting only the edges at nodes where
// y and z differ (f.adj), in increasing order, so that dst receives the
// same terms in the same order: the same sums to the bit. An edge whose
// ends both keep their labels keeps its block and adds nothing. Late in
// training the learner's incremental planes change few labels per round,
// and the pass over every edge was most of the plane's cost. When many
// nodes changed it is featureDiff.
func (l Layout) featureDiffTouched(dst []float64, in *Instance, f *instFeatures, y, z []int, sc *diffScratch) {
	du, dp, off := l.UnaryDim, l.PairwiseDim, l.PairwiseOffset()
	changed := 0
	for k := range y {
		if y[k] != z[k] {
			f.unary.addTo(dst[y[k]*du:], k, 1)
			f.unary.addTo(dst[z[k]*du:], k, -1)
			changed++
		}
	}
	if changed == 0 {
		return
	}
	edges := in.Edges
	if f.adj.start == nil || 8*changed > len(y) {
		l.pairwiseDiff(dst, f, edges, y, z)
		return
	}
	if len(sc.mark) < len(edges) {
		sc.mark = make([]bool, len(edges))
	}
	list := sc.list[:0]
	for k := range y {
		if y[k] == z[k] {
			continue
		}
		for _, e := range f.adj.edge[f.adj.start[k]:f.adj.start[k+1]] {
			if !sc.mark[e] {
				sc.mark[e] = true
				list = append(list, e)
			}
		}
	}
	slices.Sort(list)
	for _, e := range list {
		sc.mark[e] = false
		ed := edges[e]
		by, bz := l.Block(y[ed[0]], y[ed[1]]), l.Block(z[ed[0]], z[ed[1]])
		if by != bz {
			f.pairwise.addTo(dst[off+by*dp:], int(e), 1)
			f.pairwise.addTo(dst[off+bz*dp:], int(e), -1)
		}
	}
	sc.list = list
}

// pairwiseDiff is the pairwise half of featureDiff.
func (l Layout) pairwiseDiff(dst []float64, f *instFeatures, edges [][2]int, y, z []int) {
	dp, off := l.PairwiseDim, l.PairwiseOffset()
	for e, ed := range edges {
		by, bz := l.Block(y[ed[0]], y[ed[1]]), l.Block(z[ed[0]], z[ed[1]])
		if by != bz {
			f.pairwise.addTo(dst[off+by*dp:], e, 1)
			f.pairwise.addTo(dst[off+bz*dp:], e, -1)
		}
	}
}

// featureDiff adds ψ(x,y) − ψ(x,z) to dst from the CSR rows.
func (l Layout) featureDiff(dst []float64, in *Instance, f *instFeatures, y, z []int) {
	du := l.UnaryDim
	for k := range y {
		if y[k] != z[k] {
			f.unary.addTo(dst[y[k]*du:], k, 1)
			f.unary.addTo(dst[z[k]*du:], k, -1)
		}
	}
	l.pairwiseDiff(dst, f, in.Edges, y, z)
}
