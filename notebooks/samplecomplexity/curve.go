package samplecomplexity

import (
	"errors"
	"fmt"
	"time"

	"github.com/probably-submodular/crf/psub"
)

// PairwiseRows returns the pairwise feature rows φ_p of every edge of set,
// in order (views into the instances, not copies, for dense features;
// copies of sparse ones).
func PairwiseRows(set []psub.Instance) [][]float64 {
	var rows [][]float64
	for i := range set {
		rows = append(rows, set[i].DensePairwise()...)
	}
	return rows
}

// NonSubmodularPoint is one point of nonSubmodularCurve.
type NonSubmodularPoint struct {
	Images, Edges int     // training graphs used and their edges
	Fraction      float64 // non-submodular fraction of the test edges
	Converged     bool
	Iters         int
	Seconds       float64
}

// nonSubmodularCurve trains a model on the first k graphs of train
// (prepared: prep) for each k in sizes (ascending) and measures the
// fraction of the edges of test on which its pairwise energy is not
// submodular (Model.NonSubmodularFraction with tolerance eps): the
// observed counterpart of the hull/cone coverage of notebook 06
// (settings.Set is typically psub.C4{} or psub.C3{}).
func nonSubmodularCurve(prep *psub.Prepared, train, test []psub.Instance, sizes []int, settings psub.Settings, eps float64, progress func(done int)) ([]NonSubmodularPoint, error) {
	if len(sizes) == 0 || len(test) == 0 {
		return nil, errors.New("non-submodular curve: no sizes or no test graphs")
	}
	var out []NonSubmodularPoint
	for i, k := range sizes {
		if k < 1 || k > len(train) || (i > 0 && k <= sizes[i-1]) {
			return nil, fmt.Errorf("non-submodular curve: sizes %v must be ascending within 1..%d (training graphs)", sizes, len(train))
		}
		if progress != nil {
			progress(i)
		}
		start := time.Now()
		first, err := prep.Subset(firstK(k))
		if err != nil {
			return nil, fmt.Errorf("non-submodular curve: %d training graphs: %w", k, err)
		}
		m, tr, err := psub.TrainPrepared(first, settings)
		if err != nil {
			return nil, fmt.Errorf("non-submodular curve: %d training graphs: %w", k, err)
		}
		f, err := m.NonSubmodularFraction(test, eps)
		if err != nil {
			return nil, fmt.Errorf("non-submodular curve: %d training graphs: %w", k, err)
		}
		p := NonSubmodularPoint{Images: k, Fraction: f, Converged: tr.Converged, Iters: tr.Iters, Seconds: time.Since(start).Seconds()}
		for _, in := range train[:k] {
			p.Edges += len(in.Edges)
		}
		out = append(out, p)
	}
	return out, nil
}

// firstK is 0, 1, …, k−1.
func firstK(k int) []int {
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	return idx
}
