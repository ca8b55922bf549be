package psub

import (
	"fmt"
	"math"
)

// A ConstraintSet restricts the weights w so that the pairwise energies are
// submodular (paper §3). The values are C0, C1, C2, C2Star, C3, C4, C4Bar and
// Unconstrained; they nest as
//
//	C0 ⊂ C1 ⊂ C2 ⊂ C2* ⊆ C4,   C2 ⊆ C3 ⊆ C4,   C̄4 ⊆ C4.
//
// C1, C2 and C2* guarantee submodularity for every input with non-negative
// pairwise features (and refuse negative ones); C3, C4 and C̄4 are "probably
// submodular": they hold on the training edges (and, for C̄4, on the test
// edges) and are enforced lazily as hard constraints (Algorithms 1 and 2).
type ConstraintSet interface {
	// Name is the paper's name of the set ("C4", "C4bar", …).
	Name() string
	spec(l Layout, train []Instance) (*setSpec, error)
}

// Unconstrained leaves w free: the baselines whose training-time inference
// is TGC, QPBO or TRW-S.
type Unconstrained struct{}

// C0 fixes every pairwise weight to zero: a plain SVM on the unaries.
type C0 struct{}

// C1 is Szummer et al.'s set: w_αα = 0, w_αβ ≤ 0 for α ≠ β (coordinate-wise).
type C1 struct{}

// C2 is the definitely submodular set: w_αα ≥ 0, w_αβ ≤ 0 for α ≠ β.
type C2 struct{}

// C2Star is the exact condition for submodularity on every input with
// non-negative pairwise features: for each coordinate k and labels α<β,
// (w_αα + w_ββ − w_αβ − w_βα)_k ≥ 0. It strictly contains C2 and is
// contained in C4. Its dp·L(L−1)/2 rows are generated lazily like C4's
// (P is the identity).
type C2Star struct{}

// C3 imposes ⟨w_αα,p⟩ ≥ 0 and ⟨w_αβ,p⟩ ≤ 0 (α ≠ β) on every training edge
// feature p.
type C3 struct{}

// C4 is the probably submodular set: ⟨w_αα + w_ββ − w_αβ − w_βα, p⟩ ≥ 0 for
// α<β on every training edge feature p.
type C4 struct{}

// C4Bar (the paper's C̄4, transductive) is C4 enforced on the training edges
// and on the edges of Test, whose labels are not used.
type C4Bar struct{ Test []Instance }

// Name implements ConstraintSet.
func (Unconstrained) Name() string { return "none" }

// Name implements ConstraintSet.
func (C0) Name() string { return "C0" }

// Name implements ConstraintSet.
func (C1) Name() string { return "C1" }

// Name implements ConstraintSet.
func (C2) Name() string { return "C2" }

// Name implements ConstraintSet.
func (C2Star) Name() string { return "C2*" }

// Name implements ConstraintSet.
func (C3) Name() string { return "C3" }

// Name implements ConstraintSet.
func (C4) Name() string { return "C4" }

// Name implements ConstraintSet.
func (C4Bar) Name() string { return "C4bar" }

// SetByName returns the constraint set with the given name (as Name
// reports it; C4bar gets no test edges).
func SetByName(name string) (ConstraintSet, error) {
	for _, s := range []ConstraintSet{Unconstrained{}, C0{}, C1{}, C2{}, C2Star{}, C3{}, C4{}, C4Bar{}} {
		if s.Name() == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown constraint set %q (want none, C0, C1, C2, C2*, C3, C4 or C4bar)", name)
}

// setSpec is what the learner needs of a constraint set: coordinates fixed
// to zero, sign bounds, and a pool of lazily generated hard constraints.
type setSpec struct {
	fixed  []int
	bounds [][2]int // {index, sign}: sign·w_index ≥ 0
	pool   *pool
	// submodular: every w the w-update returns makes all training edges
	// submodular, so training-time inference can be exact.
	submodular bool
}

func (Unconstrained) spec(l Layout, _ []Instance) (*setSpec, error) { return &setSpec{}, nil }

func (C0) spec(l Layout, _ []Instance) (*setSpec, error) {
	s := &setSpec{submodular: true}
	for i := l.PairwiseOffset(); i < l.Dim(); i++ {
		s.fixed = append(s.fixed, i)
	}
	return s, nil
}

func (C1) spec(l Layout, train []Instance) (*setSpec, error) {
	if err := nonNegative(train, "C1"); err != nil {
		return nil, err
	}
	s := &setSpec{submodular: true}
	for _, blk := range blocks(l) {
		for j := 0; j < l.PairwiseDim; j++ {
			i := l.PairwiseIndex(blk[0], blk[1], j)
			if blk[0] == blk[1] {
				s.fixed = append(s.fixed, i)
			} else {
				s.bounds = append(s.bounds, [2]int{i, -1})
			}
		}
	}
	return s, nil
}

func (C2) spec(l Layout, train []Instance) (*setSpec, error) {
	if err := nonNegative(train, "C2"); err != nil {
		return nil, err
	}
	s := &setSpec{submodular: true}
	for _, blk := range blocks(l) {
		sign := -1
		if blk[0] == blk[1] {
			sign = 1
		}
		for j := 0; j < l.PairwiseDim; j++ {
			s.bounds = append(s.bounds, [2]int{l.PairwiseIndex(blk[0], blk[1], j), sign})
		}
	}
	return s, nil
}

func (C2Star) spec(l Layout, train []Instance) (*setSpec, error) {
	if err := nonNegative(train, "C2*"); err != nil {
		return nil, err
	}
	return &setSpec{submodular: true, pool: newIdentityPool(l, submodularRows(l))}, nil
}

func (C3) spec(l Layout, train []Instance) (*setSpec, error) {
	return &setSpec{submodular: true, pool: newPool(l, signRows(l), train)}, nil
}

func (C4) spec(l Layout, train []Instance) (*setSpec, error) {
	return &setSpec{submodular: true, pool: newPool(l, submodularRows(l), train)}, nil
}

func (c C4Bar) spec(l Layout, train []Instance) (*setSpec, error) {
	for i := range c.Test {
		in := c.Test[i]
		in.Labels = nil
		if err := in.Validate(i, l.UnaryDim, l.PairwiseDim, l.Labels); err != nil {
			return nil, fmt.Errorf("C4bar test set: %w", err)
		}
	}
	all := append(append([]Instance(nil), train...), c.Test...)
	return &setSpec{submodular: true, pool: newPool(l, submodularRows(l), all)}, nil
}

// blocks lists the (α,β) of every pairwise block once.
func blocks(l Layout) [][2]int {
	var out [][2]int
	for a := 0; a < l.Labels; a++ {
		for b := 0; b < l.Labels; b++ {
			if l.Tied && b < a {
				continue
			}
			out = append(out, [2]int{a, b})
		}
	}
	return out
}

// submodularRows is the paper's matrix B: one row per α<β over the pairwise
// blocks, 1(α)⊗1(α) + 1(β)⊗1(β) − 1(α)⊗1(β) − 1(β)⊗1(α).
func submodularRows(l Layout) [][]float64 {
	var B [][]float64
	for a := 0; a < l.Labels; a++ {
		for b := a + 1; b < l.Labels; b++ {
			r := make([]float64, l.Blocks())
			r[l.Block(a, a)]++
			r[l.Block(b, b)]++
			r[l.Block(a, b)]--
			r[l.Block(b, a)]--
			B = append(B, r)
		}
	}
	return B
}

// signRows is C3's B: +1(α)⊗1(α) for every α, −1(α)⊗1(β) for every block
// with α ≠ β.
func signRows(l Layout) [][]float64 {
	var B [][]float64
	for _, blk := range blocks(l) {
		r := make([]float64, l.Blocks())
		if blk[0] == blk[1] {
			r[l.Block(blk[0], blk[1])] = 1
		} else {
			r[l.Block(blk[0], blk[1])] = -1
		}
		B = append(B, r)
	}
	return B
}

func nonNegative(set []Instance, name string) error {
	for i := range set {
		pr := set[i].pairwiseRows()
		for e := 0; e < pr.n(); e++ {
			bad, at := 0.0, -1
			pr.each(e, func(j int, v float64) {
				if v < 0 && at < 0 {
					bad, at = v, j
				}
			})
			if at >= 0 {
				return fmt.Errorf("%s: edge %d: pairwise feature %d is %v; constraint set %s needs non-negative pairwise features",
					set[i].label(i), e, at, bad, name)
			}
		}
	}
	return nil
}

// NonSubmodularEdges counts, for weights w, the edges of set whose pairwise
// energy is not submodular, and the total number of edges. An edge with
// features p is non-submodular when some label pair α<β has C4's
// constraint c = b_αβ ⊗ p violated beyond eps: c·w < −eps·‖c‖·‖w‖ (the rule
// of Settings.Tuning.HardTol, ‖c‖ = ‖b_αβ‖·‖p‖).
func (l Layout) NonSubmodularEdges(w []float64, set []Instance, eps float64) (bad, total int) {
	B := submodularRows(l)
	bnorm := make([]float64, len(B))
	for j, b := range B {
		bnorm[j] = norm(b)
	}
	wn := norm(w)
	for i := range set {
		pr := set[i].pairwiseRows()
		for e := 0; e < pr.n(); e++ {
			if l.nonSubmodular(w, pr, e, B, bnorm, eps*wn*pr.norm(e)) {
				bad++
			}
			total++
		}
	}
	return bad, total
}

// nonSubmodular reports whether some row b_j of B has (b_j ⊗ p)·w <
// −tol·‖b_j‖ for p = row e of pr.
func (l Layout) nonSubmodular(w []float64, pr featRows, e int, B [][]float64, bnorm []float64, tol float64) bool {
	nb := l.Blocks()
	var m [64]float64 // ⟨w_block, p⟩ per block, on the stack for ≤ 8 labels
	proj := m[:0]
	if nb > len(m) {
		proj = make([]float64, 0, nb)
	}
	for k := 0; k < nb; k++ {
		proj = append(proj, pr.dot(w[l.PairwiseOffset()+k*l.PairwiseDim:], e))
	}
	for j, b := range B {
		v := 0.0
		for k, c := range b {
			if c != 0 {
				v += c * proj[k]
			}
		}
		if v < -tol*bnorm[j] {
			return true
		}
	}
	return false
}

func norm(x []float64) float64 { return math.Sqrt(dot(x, x)) }
