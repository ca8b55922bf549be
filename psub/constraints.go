package psub

import (
	"fmt"
	"math"
	"reflect"
	"slices"
)

// A ConstraintSet restricts the weights w so that the pairwise energies are
// submodular (paper §3). The paper's sets are C0, C1, C2, C2Star, C3, C4,
// C4Bar and Unconstrained; they nest as
//
//	C0 ⊂ C1 ⊂ C2 ⊂ C2* ⊆ C4,   C2 ⊆ C3 ⊆ C4,   C̄4 ⊆ C4.
//
// C1, C2 and C2* guarantee submodularity for every input with non-negative
// pairwise features (and refuse negative ones); C3, C4 and C̄4 are "probably
// submodular": they hold on the training edges (and, for C̄4, on the test
// edges) and are enforced lazily as hard constraints (Algorithms 1 and 2).
//
// A set of one's own implements the interface: Spec describes it with
// fixed coordinates, sign bounds and a pool of hard constraints over edge
// features (SetSpec), and Train checks the description (Example
// ConstraintSet).
type ConstraintSet interface {
	// Name identifies the set in models, checkpoints and working sets
	// ("C4", "C4bar", …): a set of one's own needs a name of its own.
	Name() string
	// Spec describes the set for a problem of layout l and training set
	// train (already validated against l). It must not modify train.
	Spec(l Layout, train []Instance) (SetSpec, error)
}

// SetSpec describes a constraint set to the learner: coordinates of w
// fixed to zero, sign bounds on coordinates, and a pool of hard
// constraints from which the learner adds the most violated lazily. The
// coordinates are those of Layout (UnaryIndex, PairwiseIndex).
type SetSpec struct {
	// Fixed lists the coordinates forced to w_i = 0 (C0's pairwise
	// weights, C1's w_αα).
	Fixed []int
	// Bounds lists the sign bounds Sign·w_Index ≥ 0 (C1's and C2's).
	Bounds []Bound
	// Pool holds the hard constraints c·w ≥ 0 (nil: none).
	Pool *ConstraintPool
	// Submodular declares that every w meeting Fixed, Bounds and all of
	// Pool makes every training edge submodular. Training then runs
	// Tuning.SubmodularInference once the whole pool is enforced, and
	// Tuning.UnconstrainedInference otherwise. It is the set's promise,
	// not checked: declared wrongly, the default SubmodularInference
	// truncates the non-submodular edges, and loss-augmented inference
	// (with the primal bound it gives) is no longer exact.
	Submodular bool
}

// Bound is the sign bound Sign·w_Index ≥ 0, with Sign +1 or −1.
type Bound struct{ Index, Sign int }

// ConstraintPool is a pool of hard constraints c_ij·w ≥ 0, c_ij = b_j ⊗ p_i
// (paper §6): b_j is a row of B, p_i a pairwise feature vector. The rows p_i
// are the pairwise features of the edges of the training instances, then of
// Extra's, instance by instance and edge by edge (those Keep accepts), or,
// with Identity, the unit vectors e_k of R^PairwiseDim. The learner
// computes their margins with Algorithm 1 (or 2 with Settings.Delayed) and
// adds the most violated ones to its QP; with Settings.Minibatches it
// enforces growing prefixes of the rows p_i.
type ConstraintPool struct {
	// B holds the rows b_j, sparse: a row lists its non-zero coefficients
	// by pairwise block (Layout.Block), so that c_ij·w = Σ_t t.C·⟨w_t.Block,
	// p_i⟩. C4's rows are 1(α)⊗1(α) + 1(β)⊗1(β) − 1(α)⊗1(β) − 1(β)⊗1(α)
	// for α<β: four terms each, where a dense row would have L² entries.
	B []PoolRow
	// Identity replaces the edges by the unit vectors (C2*); Extra and
	// Keep must then be empty.
	Identity bool
	// Extra holds instances whose edges are constrained besides the
	// training edges (C̄4's test instances); their labels are not used.
	Extra []Instance
	// Keep, when not nil, selects the edges that give rows: edge e of
	// instance in (a training instance or one of Extra), whose pairwise
	// features are p (dense, whether in holds them dense or sparse; p may
	// be a buffer reused for the next edge), when Keep(in, e, p) is true.
	// It must not modify in or p, and should depend only on the
	// instance's features and edges (what a working set's digests cover):
	// warm starts name a row by its instance and its rank among the kept
	// edges.
	Keep func(in *Instance, e int, p []float64) bool
}

// A PoolRow is one row b_j of a pool's B, sparse: its non-zero
// coefficients, one term per pairwise block. The learner sorts a row by
// block and adds the coefficients of a block named twice.
type PoolRow []BlockTerm

// BlockTerm is one coefficient of a PoolRow: block Block of the pairwise
// weights (Layout.Block) counts C times.
type BlockTerm struct {
	Block int
	C     float64
}

// bRow and bTerm are the learner's names for PoolRow and BlockTerm.
type (
	bRow  = PoolRow
	bTerm = BlockTerm
)

// add adds c to the coefficient of block k, keeping the terms in
// increasing block order.
func (r PoolRow) add(k int, c float64) PoolRow {
	for i := range r {
		if r[i].Block == k {
			r[i].C += c
			return r
		}
	}
	r = append(r, BlockTerm{k, c})
	for i := len(r) - 1; i > 0 && r[i].Block < r[i-1].Block; i-- {
		r[i], r[i-1] = r[i-1], r[i]
	}
	return r
}

// norm is ‖b_j‖.
func (r PoolRow) norm() float64 {
	s := 0.0
	for _, t := range r {
		s += t.C * t.C
	}
	return math.Sqrt(s)
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

// paperSets lists the paper's sets, whose names other sets may not take.
func paperSets() []ConstraintSet {
	return []ConstraintSet{Unconstrained{}, C0{}, C1{}, C2{}, C2Star{}, C3{}, C4{}, C4Bar{}}
}

// SetByName returns the constraint set with the given name (as Name
// reports it; C4bar gets no test edges).
func SetByName(name string) (ConstraintSet, error) {
	for _, s := range paperSets() {
		if s.Name() == name {
			return s, nil
		}
	}
	return nil, fmt.Errorf("unknown constraint set %q (want none, C0, C1, C2, C2*, C3, C4 or C4bar)", name)
}

// Spec implements ConstraintSet.
func (Unconstrained) Spec(Layout, []Instance) (SetSpec, error) { return SetSpec{}, nil }

// Spec implements ConstraintSet.
func (C0) Spec(l Layout, _ []Instance) (SetSpec, error) {
	s := SetSpec{Submodular: true}
	for i := l.PairwiseOffset(); i < l.Dim(); i++ {
		s.Fixed = append(s.Fixed, i)
	}
	return s, nil
}

// Spec implements ConstraintSet.
func (C1) Spec(l Layout, train []Instance) (SetSpec, error) {
	if err := nonNegative(train, "C1"); err != nil {
		return SetSpec{}, err
	}
	s := SetSpec{Submodular: true}
	for _, blk := range blocks(l) {
		for j := 0; j < l.PairwiseDim; j++ {
			i := l.PairwiseIndex(blk[0], blk[1], j)
			if blk[0] == blk[1] {
				s.Fixed = append(s.Fixed, i)
			} else {
				s.Bounds = append(s.Bounds, Bound{i, -1})
			}
		}
	}
	return s, nil
}

// Spec implements ConstraintSet.
func (C2) Spec(l Layout, train []Instance) (SetSpec, error) {
	if err := nonNegative(train, "C2"); err != nil {
		return SetSpec{}, err
	}
	s := SetSpec{Submodular: true}
	for _, blk := range blocks(l) {
		sign := -1
		if blk[0] == blk[1] {
			sign = 1
		}
		for j := 0; j < l.PairwiseDim; j++ {
			s.Bounds = append(s.Bounds, Bound{l.PairwiseIndex(blk[0], blk[1], j), sign})
		}
	}
	return s, nil
}

// Spec implements ConstraintSet.
func (C2Star) Spec(l Layout, train []Instance) (SetSpec, error) {
	if err := nonNegative(train, "C2*"); err != nil {
		return SetSpec{}, err
	}
	return SetSpec{Submodular: true, Pool: &ConstraintPool{B: submodularRows(l), Identity: true}}, nil
}

// Spec implements ConstraintSet.
func (C3) Spec(l Layout, _ []Instance) (SetSpec, error) {
	return SetSpec{Submodular: true, Pool: &ConstraintPool{B: signRows(l)}}, nil
}

// Spec implements ConstraintSet.
func (C4) Spec(l Layout, _ []Instance) (SetSpec, error) {
	return SetSpec{Submodular: true, Pool: &ConstraintPool{B: submodularRows(l)}}, nil
}

// Spec implements ConstraintSet.
func (c C4Bar) Spec(l Layout, _ []Instance) (SetSpec, error) {
	for i := range c.Test {
		in := c.Test[i]
		in.Labels = nil
		if err := in.Validate(i, l.UnaryDim, l.PairwiseDim, l.Labels); err != nil {
			return SetSpec{}, fmt.Errorf("C4bar test set: %w", err)
		}
	}
	if err := checkScale(c.Test, 1, "C4bar test set"); err != nil {
		return SetSpec{}, err
	}
	return SetSpec{Submodular: true, Pool: &ConstraintPool{B: submodularRows(l), Extra: c.Test}}, nil
}

// setSpec is a SetSpec checked and built for the learner: the QP's fixed
// and bounded coordinates and the pool of hard constraints.
type setSpec struct {
	fixed  []int
	bounds [][2]int // {index, sign}: sign·w_index ≥ 0
	pool   *pool
	// submodular: every w the w-update returns makes all training edges
	// submodular, so training-time inference can be exact.
	submodular bool
	// extra holds the pool's instances after the training ones, and
	// offsets, per pool instance, the index of its first row (nil without
	// a pool or for an identity pool).
	extra   []Instance
	offsets []int
	// edgeRows: the pool's rows are its instances' edges one for one, in
	// order (no Keep), so row offsets[i]+e is edge e of instance i.
	edgeRows bool
}

// buildSpec asks set for its description, checks it against the layout and
// builds the pool. Errors name the set and the faulty entry.
func buildSpec(set ConstraintSet, l Layout, train []Instance) (*setSpec, error) {
	return buildSpecOf(set, l, train, nil)
}

// buildSpecOf is buildSpec; items (nil: none) are a Prepared set's, whose
// instances train is.
func buildSpecOf(set ConstraintSet, l Layout, train []Instance, items []*preparedItem) (*setSpec, error) {
	name := set.Name()
	if name == "" {
		return nil, fmt.Errorf("constraint set of type %T has an empty name", set)
	}
	typ := reflect.TypeOf(set)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	for _, p := range paperSets() {
		if p.Name() == name && reflect.TypeOf(p) != typ {
			return nil, fmt.Errorf("constraint set of type %T is named %q, as the paper's set: give it a name of its own (models, checkpoints and warm starts tell sets apart by name)", set, name)
		}
	}
	d, err := set.Spec(l, train)
	if err != nil {
		return nil, err
	}
	dim := l.Dim()
	s := &setSpec{fixed: d.Fixed, submodular: d.Submodular}
	for k, i := range d.Fixed {
		if i < 0 || i >= dim {
			return nil, fmt.Errorf("constraint set %s: Fixed[%d] = %d is out of range [0,%d) (the layout's %d weights)", name, k, i, dim, dim)
		}
	}
	if len(d.Bounds) > 0 {
		s.bounds = make([][2]int, len(d.Bounds))
	}
	for k, b := range d.Bounds {
		if b.Index < 0 || b.Index >= dim {
			return nil, fmt.Errorf("constraint set %s: Bounds[%d]: index %d is out of range [0,%d) (the layout's %d weights)", name, k, b.Index, dim, dim)
		}
		if b.Sign != 1 && b.Sign != -1 {
			return nil, fmt.Errorf("constraint set %s: Bounds[%d] (index %d): sign %d, want +1 or −1", name, k, b.Index, b.Sign)
		}
		s.bounds[k] = [2]int{b.Index, b.Sign}
	}
	p := d.Pool
	if p == nil {
		return s, nil
	}
	if len(p.B) == 0 {
		return nil, fmt.Errorf("constraint set %s: pool without rows B", name)
	}
	B := make([]bRow, len(p.B))
	for j, b := range p.B {
		if len(b) == 0 {
			return nil, fmt.Errorf("constraint set %s: pool row B[%d] has no terms", name, j)
		}
		r := make(bRow, 0, len(b))
		for k, t := range b {
			if t.Block < 0 || t.Block >= l.Blocks() {
				return nil, fmt.Errorf("constraint set %s: pool row B[%d]: term %d names block %d, out of range [0,%d) (Layout.Blocks)", name, j, k, t.Block, l.Blocks())
			}
			if math.IsNaN(t.C) || math.IsInf(t.C, 0) {
				return nil, fmt.Errorf("constraint set %s: pool row B[%d]: term %d (block %d) is %v", name, j, k, t.Block, t.C)
			}
			r = r.add(t.Block, t.C)
		}
		B[j] = r
	}
	if p.Identity {
		if len(p.Extra) > 0 || p.Keep != nil {
			return nil, fmt.Errorf("constraint set %s: an identity pool has no edges: Extra and Keep must be empty", name)
		}
		if err := checkPoolBudget(name, l, int64(l.PairwiseDim), int64(len(B))); err != nil {
			return nil, err
		}
		s.pool = newIdentityPool(l, B)
		return s, nil
	}
	for i := range p.Extra {
		in := p.Extra[i]
		in.Labels = nil
		if err := in.Validate(i, l.UnaryDim, l.PairwiseDim, l.Labels); err != nil {
			return nil, fmt.Errorf("constraint set %s: pool Extra: %w", name, err)
		}
	}
	if err := checkScale(p.Extra, 1, "constraint set "+name+": pool Extra"); err != nil {
		return nil, err
	}
	all := train
	if len(p.Extra) > 0 {
		all = append(slices.Clip(train), p.Extra...)
		s.extra = p.Extra
	}
	if p.Keep != nil {
		all = keepEdges(all, p.Keep)
	}
	s.edgeRows = p.Keep == nil
	s.offsets = make([]int, len(all)+1)
	for i := range all {
		s.offsets[i+1] = s.offsets[i] + all[i].pairwiseRows().n()
	}
	if err := checkPoolBudget(name, l, edgeRows(all), int64(len(B))); err != nil {
		return nil, err
	}
	var norms []*edgeNorms
	if p.Keep == nil { // the training instances' edges, all of them: as prepared
		for _, it := range items {
			norms = append(norms, it.norms)
		}
	}
	s.pool = newPool(l, B, all, norms)
	return s, nil
}

// keepEdges returns, per instance, an instance holding only the pairwise
// features of the edges keep accepts (all the pool reads), in the
// instance's own form, dense or sparse.
func keepEdges(set []Instance, keep func(in *Instance, e int, p []float64) bool) []Instance {
	out := make([]Instance, len(set))
	for i := range set {
		pr := set[i].pairwiseRows()
		var buf []float64
		if pr.s != nil {
			buf = make([]float64, pr.s.Dim)
			out[i].PairwiseSparse = &SparseRows{Dim: pr.s.Dim, Start: []int{0}}
		}
		for e := 0; e < pr.n(); e++ {
			p := pr.row(e, buf)
			if !keep(&set[i], e, p) {
				continue
			}
			if pr.s != nil {
				out[i].PairwiseSparse.AppendRow(pr.s.Row(e))
			} else {
				out[i].Pairwise = append(out[i].Pairwise, p)
			}
		}
	}
	return out
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

// pairs is the number of rows of submodularRows: L(L−1)/2.
func pairs(l Layout) int64 { return int64(l.Labels) * int64(l.Labels-1) / 2 }

// submodularRows is the paper's matrix B: one row per α<β over the pairwise
// blocks, 1(α)⊗1(α) + 1(β)⊗1(β) − 1(α)⊗1(β) − 1(β)⊗1(α).
func submodularRows(l Layout) []bRow {
	var B []bRow
	for a := 0; a < l.Labels; a++ {
		for b := a + 1; b < l.Labels; b++ {
			r := make(bRow, 0, 4)
			r = r.add(l.Block(a, a), 1)
			r = r.add(l.Block(b, b), 1)
			r = r.add(l.Block(a, b), -1)
			r = r.add(l.Block(b, a), -1)
			B = append(B, r)
		}
	}
	return B
}

// signRows is C3's B: +1(α)⊗1(α) for every α, −1(α)⊗1(β) for every block
// with α ≠ β.
func signRows(l Layout) []bRow {
	var B []bRow
	for _, blk := range blocks(l) {
		c := -1.0
		if blk[0] == blk[1] {
			c = 1
		}
		B = append(B, bRow{{l.Block(blk[0], blk[1]), c}})
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
		bnorm[j] = b.norm()
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
func (l Layout) nonSubmodular(w []float64, pr featRows, e int, B []bRow, bnorm []float64, tol float64) bool {
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
		for _, t := range b {
			v += t.C * proj[t.Block]
		}
		if v < -tol*bnorm[j] {
			return true
		}
	}
	return false
}

func norm(x []float64) float64 { return math.Sqrt(dot(x, x)) }
