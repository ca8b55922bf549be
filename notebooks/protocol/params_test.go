package protocol

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/psub"
)

// TestExperimentParamsCoverFields: every field of the experiments is
// either in their Params or known to change nothing the results hold, so a
// new field cannot be forgotten.
func TestExperimentParamsCoverFields(t *testing.T) {
	for _, c := range []struct {
		exp, params reflect.Type
		derived     map[string]bool // fields covered by a digest or known not to matter
	}{
		{reflect.TypeFor[SegmentationExperiment](), reflect.TypeFor[SegmentationParams](),
			// MarginPass moves the margins between two counters (margins,
			// margins_inference), not the fit: same rows, iterations and
			// model (psub's TestFusedMarginsMatchPass); no protocol sets it.
			map[string]bool{"Items": true, "Folds": true, "Workers": true, "ModelDir": true, "Checkpoints": true, "MarginPass": true,
				"prep": true}}, // Items prepared (psub.Prepare): a cache of Items
	} {
		for i := range c.exp.NumField() {
			name := c.exp.Field(i).Name
			if _, ok := c.params.FieldByName(name); !ok && !c.derived[name] {
				t.Errorf("%s.%s is neither in %s nor known not to change results", c.exp.Name(), name, c.params.Name())
			}
		}
	}
	// The digests follow the data.
	s := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 1, Train: 2, Test: 2})
	items := make([]*data.SegmentedImage, len(s.Train))
	for i := range s.Train {
		items[i] = &data.SegmentedImage{Instance: s.Train[i]}
	}
	e := &SegmentationExperiment{Items: items, Folds: []data.Fold{{Train: []int{0}, Test: []int{1}}}}
	p0 := e.Params()
	items[1] = &data.SegmentedImage{Instance: s.Test[0]}
	p1 := e.Params()
	e.Folds = []data.Fold{{Train: []int{1}, Test: []int{0}}}
	p2 := e.Params()
	if p0.Data == p1.Data || p1.Folds != p0.Folds || p2.Folds == p1.Folds || p2.Data != p1.Data {
		t.Fatalf("digests %+v %+v %+v", p0, p1, p2)
	}
}

func TestInstancesDigest(t *testing.T) {
	s := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 1, Train: 2, Test: 1})
	d0 := InstancesDigest(s.Train)
	if d0 != InstancesDigest(data.SyntheticSegmentation(data.SegmentationOptions{Seed: 1, Train: 2, Test: 1}).Train) {
		t.Fatal("the same data gave two digests")
	}
	in := s.Train[0]
	unary := make([][]float64, len(in.Unary))
	for i := range unary {
		unary[i] = append([]float64{}, in.Unary[i]...)
	}
	unary[0][0] = math.Nextafter(unary[0][0], 2)
	changed := in
	changed.Unary = unary
	if InstancesDigest([]psub.Instance{changed, s.Train[1]}) == d0 {
		t.Fatal("a changed feature kept the digest")
	}
	if InstancesDigest(s.Train[:1], s.Train[1:]) == d0 {
		t.Fatal("splitting the set kept the digest")
	}
	sparse := append([]psub.Instance(nil), s.Train...)
	for i := range sparse {
		sparse[i].Sparsify()
	}
	if InstancesDigest(sparse) != d0 {
		t.Fatal("the same features held sparsely gave another digest")
	}
}

// TestTightBounds: SegmentationExperiment.TightBounds reaches psub only for
// C4 and C̄4, and is absent from the params when off, so that experiments
// without it keep the params (and the rows) they had.
func TestTightBounds(t *testing.T) {
	for _, c := range []struct {
		set  psub.ConstraintSet
		want bool
	}{{psub.C4{}, true}, {psub.C4Bar{}, true}, {psub.C3{}, false}, {psub.C2{}, false}, {psub.C0{}, false}, {psub.Unconstrained{}, false}} {
		if got := TightFor(c.set); got != c.want {
			t.Errorf("TightFor(%s) = %v, want %v", c.set.Name(), got, c.want)
		}
	}
	off, err := json.Marshal(SegmentationParams{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	on, err := json.Marshal(SegmentationParams{Seed: 1, TightBounds: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(off), "TightBounds") || !strings.Contains(string(on), `"TightBounds":true`) {
		t.Errorf("params off %s, on %s", off, on)
	}
	s := SegmentationSettings{Cs: []float64{1}}
	if e := s.Experiment("x", &data.SegmentedSet{}, nil, Options{}); e.TightBounds {
		t.Error("settings without TightBounds gave an experiment with it")
	}
	s.TightBounds = true
	if e := s.Experiment("x", &data.SegmentedSet{}, nil, Options{}); !e.TightBounds || !e.Params().TightBounds {
		t.Error("settings with TightBounds gave an experiment without it")
	}
}
