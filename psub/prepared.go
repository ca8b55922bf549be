package psub

import (
	"crypto/sha256"
	"encoding"
	"fmt"
	"math"
	"slices"

	"github.com/probably-submodular/crf/psub/inference"
)

// Prepared is a data set checked and laid out once for many trainings and
// evaluations (Prepare): a grid of C over the folds of a cross-validation
// trains thousands of times on subsets of one data set, and Train would
// otherwise validate every instance, lay out its features for the learner
// and fingerprint it at every fit, and Evaluate validate it at every
// scoring.
//
// A Prepared set owns its instances: Prepare copies them, each feature
// matrix in sparse form (which trains and predicts to the same numbers
// bit for bit as the dense form, and which the learner's layout shares:
// a copy takes 12 bytes per non-zero feature, at most 1.5 times the dense
// matrix), so what the caller does to its own instances afterwards
// changes nothing here, and nothing hands the copies out for writing. It
// is safe for concurrent use by any number of TrainPrepared and
// EvaluatePrepared calls.
type Prepared struct {
	set    []Instance
	items  []*preparedItem
	labels int
	du, dp int
}

// preparedItem is what the learner derives from one instance of a
// Prepared set; Subset shares it with the set it comes from.
type preparedItem struct {
	feats instFeatures
	// mag is the sum of the magnitudes of the instance's features (the s
	// of checkScale).
	mag float64
	// maxLabel is the largest label (−1 without labels): the instance
	// fits a model of more labels than that.
	maxLabel int
	// features and labelled are InstanceDigest.Features and .Labelled;
	// afterLabels is the hash's state once labelled is taken, from which
	// the digest of the node costs (InstanceDigest.Plane) continues.
	features, labelled [32]byte
	afterLabels        []byte
	// norms are the factors of the instance's edges in a pool of hard
	// constraints.
	norms *edgeNorms
}

// Prepare checks set as ValidateSet does (instances with labels have
// them in [0, labels); a negative labels skips that check), with the same
// error, and prepares it for TrainPrepared and EvaluatePrepared. Training
// needs labels ≥ 2 and labels on every instance; evaluation on a set
// prepared with fewer labels than the model's or with none checks them
// against the model.
func Prepare(set []Instance, labels int) (*Prepared, error) {
	du, dp, err := ValidateSet(set, labels)
	if err != nil {
		return nil, err
	}
	p := &Prepared{set: make([]Instance, len(set)), items: make([]*preparedItem, len(set)), labels: labels, du: du, dp: dp}
	for i := range set {
		p.set[i] = ownedCopy(&set[i])
		p.items[i] = newPreparedItem(&p.set[i])
	}
	return p, nil
}

// ownedCopy is a deep copy of in, its feature matrices sparse.
func ownedCopy(in *Instance) Instance {
	return Instance{Name: in.Name, Edges: slices.Clone(in.Edges), Labels: slices.Clone(in.Labels),
		UnarySparse: sparseCopy(in.unaryRows()), PairwiseSparse: sparseCopy(in.pairwiseRows())}
}

// sparseCopy copies the rows in sparse form (rows of no dimension for a
// matrix without rows: an instance without edges).
func sparseCopy(f featRows) *SparseRows {
	switch {
	case f.s != nil:
		return &SparseRows{Dim: f.s.Dim, Start: slices.Clone(f.s.Start), Idx: slices.Clone(f.s.Idx), Val: slices.Clone(f.s.Val)}
	case len(f.d) == 0:
		return &SparseRows{Start: []int{0}}
	}
	return NewSparseRows(f.d, len(f.d[0]))
}

func newPreparedItem(in *Instance) *preparedItem {
	it := &preparedItem{
		feats:    instFeatures{unary: in.unaryRows().csr(), pairwise: in.pairwiseRows().csr(), adj: newEdgeAdj(in.Nodes(), in.Edges)},
		mag:      magnitude(in),
		maxLabel: -1,
		norms:    newEdgeNorms(in.pairwiseRows()),
	}
	for _, y := range in.Labels {
		it.maxLabel = max(it.maxLabel, y)
	}
	h := &hasher{h: sha256.New()}
	h.features(in)
	copy(it.features[:], h.sum())
	h.ints(in.Labels...)
	copy(it.labelled[:], h.sum())
	state, err := h.h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic("psub: sha256 state: " + err.Error()) // crypto/sha256 always marshals
	}
	it.afterLabels = state
	return it
}

// planeDigest is InstanceDigest.Plane for the node costs: the hash of
// the features, labels and costs, continued from afterLabels.
func (it *preparedItem) planeDigest(costs []float64) (d [32]byte) {
	sh := sha256.New()
	if err := sh.(encoding.BinaryUnmarshaler).UnmarshalBinary(it.afterLabels); err != nil {
		panic("psub: sha256 state: " + err.Error()) // written by MarshalBinary above
	}
	h := &hasher{h: sh}
	h.num(costs...)
	copy(d[:], h.sum())
	return d
}

// Len is the number of instances.
func (p *Prepared) Len() int { return len(p.set) }

// Labels is the label count the set was checked against (Prepare).
func (p *Prepared) Labels() int { return p.labels }

// Subset is the prepared set of the instances idx (in that order; an
// index may repeat), sharing what was prepared: no instance is checked or
// laid out again.
func (p *Prepared) Subset(idx []int) (*Prepared, error) {
	q := &Prepared{set: make([]Instance, len(idx)), items: make([]*preparedItem, len(idx)), labels: p.labels, du: p.du}
	for k, i := range idx {
		if i < 0 || i >= len(p.set) {
			return nil, fmt.Errorf("prepared subset: index %d (entry %d) outside [0,%d)", i, k, len(p.set))
		}
		q.set[k], q.items[k] = p.set[i], p.items[i]
		if len(q.set[k].Edges) > 0 {
			q.dp = p.dp // ValidateSet's dp: 0 when no instance has an edge
		}
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("prepared subset: empty data set")
	}
	return q, nil
}

// fits reports whether instance i is known to pass Model.check without
// running it: the dimensions the set was checked with are the model's and
// its labels are in range. The energy budget is not part of it.
func (p *Prepared) fits(m *Model, i int) bool {
	return p.du == m.UnaryDim && (len(p.set[i].Edges) == 0 || p.dp == m.PairwiseDim) && p.items[i].maxLabel < m.Labels
}

// magnitude is the sum of the magnitudes of in's features (checkScale's s).
func magnitude(in *Instance) float64 {
	s := 0.0
	for _, rows := range []featRows{in.unaryRows(), in.pairwiseRows()} {
		for r := 0; r < rows.n(); r++ {
			rows.each(r, func(_ int, v float64) { s += math.Abs(v) })
		}
	}
	return s
}

// TrainPrepared is Train on a prepared training set: the same model and
// trace, bit for bit, as Train on the instances given to Prepare (or
// picked by Subset), without checking and laying out the instances again.
// The set must have been prepared with the problem's label count (at
// least 2) and every instance must carry labels.
func TrainPrepared(train *Prepared, settings Settings) (*Model, *Trace, error) {
	if train == nil {
		return nil, nil, fmt.Errorf("TrainPrepared: nil prepared set")
	}
	return train.train(settings)
}

// EvaluatePrepared is EvaluateWith on a prepared set: the same
// predictions and scores, without validating the instances again where
// what Prepare checked already shows they fit the model (its dimensions,
// labels below the model's count); other instances are checked as
// EvaluateWith checks them, with the same errors.
func (m *Model) EvaluatePrepared(set *Prepared, method inference.Method) (Evaluation, error) {
	if set == nil {
		return Evaluation{}, fmt.Errorf("EvaluatePrepared: nil prepared set")
	}
	return m.evaluate(set.set, method, set.fits)
}
