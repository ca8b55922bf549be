package samplecomplexity

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/psub"
)

func TestNonSubmodularCurve(t *testing.T) {
	s := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 3, Train: 4, Test: 3, MinSide: 6, MaxSide: 7})
	set := psub.Settings{Set: psub.C2{}, Tol: 1e-2}
	pts, err := NonSubmodularCurve(s.Train, s.Test, 2, []int{1, 2, 4}, set, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pts {
		if p.Fraction != 0 {
			t.Errorf("C2 with %d graphs: non-submodular fraction %g, want 0", p.Images, p.Fraction)
		}
		want := 0
		for _, in := range s.Train[:p.Images] {
			want += len(in.Edges)
		}
		if p.Edges != want || (i > 0 && p.Edges <= pts[i-1].Edges) {
			t.Errorf("point %d: %d edges, want %d", i, p.Edges, want)
		}
	}
	// A C4 model is submodular on its own training edges: with the test set
	// equal to the training prefix, the fraction is 0.
	set.Set = psub.C4{}
	pts, err = NonSubmodularCurve(s.Train, s.Train[:1], 2, []int{1}, set, 0, nil)
	if err != nil || pts[0].Fraction != 0 {
		t.Errorf("C4 on its training edges: %+v, %v", pts, err)
	}
	for _, bad := range [][]int{nil, {0}, {2, 2}, {5}} {
		if _, err := NonSubmodularCurve(s.Train, s.Test, 2, bad, set, 0, nil); err == nil {
			t.Errorf("sizes %v: no error", bad)
		}
	}
}

func TestPairwiseRows(t *testing.T) {
	s := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 6, Train: 3, Test: 1, MinSide: 4, MaxSide: 5})
	rows := PairwiseRows(s.Train)
	i := 0
	for _, in := range s.Train {
		for e := range in.Edges {
			if &rows[i][0] != &in.Pairwise[e][0] {
				t.Fatalf("row %d is not edge %d of %s", i, e, in.Name)
			}
			i++
		}
	}
	if i != len(rows) {
		t.Fatalf("%d rows for %d edges", len(rows), i)
	}
	sparse := append([]psub.Instance(nil), s.Train...)
	for i := range sparse {
		sparse[i].Sparsify()
	}
	if !reflect.DeepEqual(PairwiseRows(sparse), rows) {
		t.Fatal("PairwiseRows of sparse features differs")
	}
}

// NonSubmodularCurve trains a model on the first k graphs of train for each
// k in sizes (ascending) and measures the fraction of the edges of test on
// which its pairwise energy is not submodular (Model.NonSubmodularFraction
// with tolerance eps): the observed counterpart of the hull/cone coverage
// of notebook 06 (settings.Set is typically psub.C4{} or psub.C3{}).
func NonSubmodularCurve(train, test []psub.Instance, labels int, sizes []int, settings psub.Settings, eps float64, progress func(done int)) ([]NonSubmodularPoint, error) {
	p, err := psub.Prepare(train, labels)
	if err != nil {
		return nil, fmt.Errorf("non-submodular curve: training graphs: %w", err)
	}
	return nonSubmodularCurve(p, train, test, sizes, settings, eps, progress)
}
