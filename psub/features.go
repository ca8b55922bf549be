package psub

import (
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

// addTo does dst[j] += s·x_j for row r.
func (c *csr) addTo(dst []float64, r int, s float64) {
	for t := c.start[r]; t < c.start[r+1]; t++ {
		dst[c.idx[t]] += s * c.val[t]
	}
}

// instFeatures are an instance's unary and pairwise rows in CSR form.
type instFeatures struct{ unary, pairwise csr }

// reduced holds the weights relative to label 0 and block (0,0),
// interleaved by feature coordinate: U[j·(L−1) + a−1] = (w_a − w_0)_j and
// P[j·(B−1) + c−1] = (w_c − w_00)_j. Energies built from them differ from
// −w·ψ by a constant per node and per edge, which leaves every minimiser
// unchanged and saves one of L unary and one of B pairwise products.
type reduced struct {
	U, P   []float64
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
			f.pairwise.mulInto(p[:], ed, r.P, 3)
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
// left for the solver to report.
func (l Layout) fillCut(lin, pair []float64, f *instFeatures, r *reduced, costs []float64, y []int, edges [][2]int, truncate bool) int {
	var p [3]float64
	for k := range lin {
		// θ(0) = 0, θ(1) = −p0.
		f.unary.mulInto(p[:1], k, r.U, 1)
		if y[k] == 0 {
			lin[k] = -p[0] - costs[k]
		} else {
			lin[k] = -p[0] + costs[k]
		}
	}
	truncated := 0
	for e, ed := range edges {
		// The table (θ00, θ01, θ10, θ11) = (0, −p0, −p1, −p2).
		f.pairwise.mulInto(p[:], e, r.P, 3)
		c := -p[1]
		d := -p[0] - p[1] + p[2]
		if d < 0 {
			if cut.AtMost(-p[2], -p[0]-p[1]) {
				d = 0
			} else if truncate {
				c -= d / 2 // θ01 and θ10 raised by −d/2
				d = 0
				truncated++
			}
		}
		lin[ed[0]] += c
		lin[ed[1]] += -p[2] - c
		pair[e] = d
	}
	return truncated
}

// featureDiff adds ψ(x,y) − ψ(x,z) to dst from the CSR rows.
func (l Layout) featureDiff(dst []float64, in *Instance, f *instFeatures, y, z []int) {
	du, dp, off := l.UnaryDim, l.PairwiseDim, l.PairwiseOffset()
	for k := range y {
		if y[k] != z[k] {
			f.unary.addTo(dst[y[k]*du:], k, 1)
			f.unary.addTo(dst[z[k]*du:], k, -1)
		}
	}
	for e, ed := range in.Edges {
		by, bz := l.Block(y[ed[0]], y[ed[1]]), l.Block(z[ed[0]], z[ed[1]])
		if by != bz {
			f.pairwise.addTo(dst[off+by*dp:], e, 1)
			f.pairwise.addTo(dst[off+bz*dp:], e, -1)
		}
	}
}
