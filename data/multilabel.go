package data

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/probably-submodular/crf/psub"
)

// PCA is a principal component projection x̃ = Componentsᵀ(x − Mean) fitted
// on a training set.
type PCA struct {
	Mean       []float64  // d, the training mean
	Components *mat.Dense // d × k, orthonormal columns by decreasing variance
	Variances  []float64  // k, the training variance along each component
}

// FitPCA fits k principal components to the rows of X (n × d) with gonum's
// stat.PC. Each component's sign is fixed so that its largest-magnitude
// entry is positive, which makes x̃ reproducible (an SVD may return either
// sign).
func FitPCA(X [][]float64, k int) (*PCA, error) {
	n := len(X)
	if n < 2 {
		return nil, fmt.Errorf("PCA: need at least 2 examples, got %d", n)
	}
	d := len(X[0])
	if k < 1 || k > min(n, d) {
		return nil, fmt.Errorf("PCA: %d components asked of %d examples × %d features (need 1 ≤ k ≤ %d)", k, n, d, min(n, d))
	}
	a := mat.NewDense(n, d, nil)
	for i, x := range X {
		if len(x) != d {
			return nil, fmt.Errorf("PCA: example %d has %d features, expected %d", i, len(x), d)
		}
		a.SetRow(i, x)
	}
	var pc stat.PC
	if !pc.PrincipalComponents(a, nil) {
		return nil, fmt.Errorf("PCA: the SVD of the %d × %d training matrix did not converge", n, d)
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	vars := pc.VarsTo(nil)
	p := &PCA{Mean: make([]float64, d), Components: mat.NewDense(d, k, nil), Variances: vars[:k:k]}
	for j := range d {
		p.Mean[j] = stat.Mean(mat.Col(nil, j, a), nil)
	}
	for c := range k {
		col := mat.Col(nil, c, &vecs)
		big := 0
		for j := range col {
			if math.Abs(col[j]) > math.Abs(col[big]) {
				big = j
			}
		}
		if col[big] < 0 {
			for j := range col {
				col[j] = -col[j]
			}
		}
		p.Components.SetCol(c, col)
	}
	return p, nil
}

// Dims returns the input dimension d and the number of components k.
func (p *PCA) Dims() (d, k int) { return p.Components.Dims() }

// Project returns x̃ = Componentsᵀ(x − Mean), written into dst when it has
// length k (allocated otherwise).
func (p *PCA) Project(x, dst []float64) []float64 {
	d, k := p.Dims()
	if len(x) != d {
		panic(fmt.Sprintf("data: PCA.Project: %d features, fitted on %d", len(x), d))
	}
	if len(dst) != k {
		dst = make([]float64, k)
	}
	for c := range k {
		s := 0.0
		for j := range d {
			s += p.Components.At(j, c) * (x[j] - p.Mean[j])
		}
		dst[c] = s
	}
	return dst
}

// PosNeg returns R = max(x̃,0) ⊕ max(−x̃,0): the positive and negative parts
// of x̃ side by side, a non-negative vector of twice the length from which x̃
// is recovered as R[:k] − R[k:].
func PosNeg(xt []float64) []float64 {
	k := len(xt)
	r := make([]float64, 2*k)
	for i, v := range xt {
		if v > 0 {
			r[i] = v
		} else if v < 0 {
			r[k+i] = -v
		}
	}
	return r
}

// MultiLabelOptions are the settings of the multi-label graphs. The zero
// value is the paper's setting plus a unary bias (see NoBias).
type MultiLabelOptions struct {
	// Components is the PCA dimension of x̃; R(x) has twice as many
	// entries. 0 means 20, the paper's value, or the feature dimension d
	// when that is smaller (the synthetic problem has d = 12).
	Components int
	// NoBias drops the constant 1 appended to x in the unary features. The
	// paper writes φ_u(k) = 1(k) ⊗ x without a bias; we append one by
	// default because a linear score without offset forces every label's
	// decision boundary through the origin of feature space, which labels
	// as rare as scene's (about 18% positive) cannot afford. Set NoBias to
	// reproduce the paper's feature map exactly. (The paper's C0 accuracies
	// on yeast, 69.8% train and 69.6% test, are exactly those of predicting
	// every label absent, 1 − cardinality/14 with the README's cardinalities
	// 4.228 and 4.252: its unary-only model seems to have had no usable
	// offset.)
	NoBias bool
}

func (o MultiLabelOptions) components(d, n int) int {
	if o.Components == 0 {
		return min(20, d, n)
	}
	return o.Components
}

// MultiLabelProblem is a multi-label data set turned into graphs.
type MultiLabelProblem struct {
	Train, Test []psub.Instance
	PCA         *PCA     // fitted on the training examples only
	LabelNames  []string // node k of every graph is label LabelNames[k]
	Options     MultiLabelOptions
}

// BuildMultiLabel turns every example into one graph over the |C| labels
// (notebooks/TARGETS.md §5): binary nodes (1 = label present), fully
// connected with edges (k,l), k < l, in lexicographic order;
//
//	unary of node k     φ_u(k)   = 1(k) ⊗ x̂         (dimension |C|·d̂)
//	pairwise of edge e  φ_p(e)   = 1(e) ⊗ R(x)      (dimension |E|·2·Components)
//
// with x̂ = x ⊕ 1 (x without the bias under NoBias) and R(x) = max(x̃,0) ⊕
// max(−x̃,0), x̃ the PCA of x fitted on train. test may be nil.
//
// The one-hot blocks make the rows mostly zeros; to keep yeast's graphs
// (91 edges × 3640 pairwise entries each) in memory, the rows of one
// instance are windows into one shared buffer. Treat them as read-only:
// writing into a row changes other rows of the same instance. (Rows have
// capped capacity, so append copies.)
func BuildMultiLabel(train, test *MultiLabelSet, opt MultiLabelOptions) (*MultiLabelProblem, error) {
	if train == nil || train.Len() == 0 {
		return nil, fmt.Errorf("multi-label: empty training set")
	}
	d, nl := train.Dims()
	if nl < 2 {
		return nil, fmt.Errorf("multi-label: %d label(s); a label graph needs at least 2", nl)
	}
	if test != nil {
		if td, tl := test.Dims(); td != d || tl != nl {
			return nil, fmt.Errorf("multi-label: test set has %d features × %d labels, training set %d × %d", td, tl, d, nl)
		}
	}
	pca, err := FitPCA(train.X, opt.components(d, train.Len()))
	if err != nil {
		return nil, fmt.Errorf("multi-label %s: %w", train.Name, err)
	}
	p := &MultiLabelProblem{PCA: pca, LabelNames: train.LabelNames, Options: opt}
	build := func(s *MultiLabelSet) ([]psub.Instance, error) {
		out := make([]psub.Instance, s.Len())
		for i := range out {
			if len(s.X[i]) != d || len(s.Y[i]) != nl {
				return nil, fmt.Errorf("%s: example %d has %d features and %d labels, expected %d and %d", s.Name, i, len(s.X[i]), len(s.Y[i]), d, nl)
			}
			out[i] = MultiLabelGraph(s.X[i], s.Y[i], nl, pca, !opt.NoBias)
			out[i].Name = fmt.Sprintf("%s#%d", s.Name, i)
		}
		return out, nil
	}
	if p.Train, err = build(train); err != nil {
		return nil, err
	}
	if test != nil {
		if p.Test, err = build(test); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// MultiLabelGraph builds the graph over nl labels of one example (see
// BuildMultiLabel); y may be nil for an example to predict, else it has one
// 0/1 per label.
func MultiLabelGraph(x []float64, y []int, nl int, pca *PCA, bias bool) psub.Instance {
	if y != nil && len(y) != nl {
		panic(fmt.Sprintf("data: MultiLabelGraph: %d labels given for %d label nodes", len(y), nl))
	}
	xh := x
	if bias {
		xh = append(append(make([]float64, 0, len(x)+1), x...), 1)
	}
	in := psub.Instance{
		Unary: oneHotRows(xh, nl),
	}
	if y != nil {
		in.Labels = append([]int(nil), y...)
	}
	for k := range nl {
		for l := k + 1; l < nl; l++ {
			in.Edges = append(in.Edges, [2]int{k, l})
		}
	}
	in.Pairwise = oneHotRows(PosNeg(pca.Project(x, nil)), len(in.Edges))
	return in
}

// oneHotRows returns m rows of length m·len(v), row i holding v in block i
// and zeros elsewhere, all as windows into one buffer of (2m−1)·len(v)
// floats: zeros, v, zeros. Row i starts (m−1−i) blocks before v.
func oneHotRows(v []float64, m int) [][]float64 {
	b := len(v)
	buf := make([]float64, (2*m-1)*b)
	copy(buf[(m-1)*b:], v)
	rows := make([][]float64, m)
	for i := range rows {
		s := (m - 1 - i) * b
		rows[i] = buf[s : s+m*b : s+m*b]
	}
	return rows
}
