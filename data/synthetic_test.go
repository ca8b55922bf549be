package data

import (
	"reflect"
	"testing"

	"github.com/probably-submodular/crf/psub"
)

func TestSyntheticSegmentationDeterministic(t *testing.T) {
	a := SyntheticSegmentation(SegmentationOptions{Seed: 3, Train: 4, Test: 3})
	b := SyntheticSegmentation(SegmentationOptions{Seed: 3, Train: 4, Test: 3})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different data")
	}
	c := SyntheticSegmentation(SegmentationOptions{Seed: 4, Train: 4, Test: 3})
	if reflect.DeepEqual(a.Train, c.Train) {
		t.Fatal("different seeds, same data")
	}
	// Each image has its own stream: more training images leave the test
	// images and the first training images unchanged.
	d := SyntheticSegmentation(SegmentationOptions{Seed: 3, Train: 6, Test: 3})
	if !reflect.DeepEqual(a.Test, d.Test) || !reflect.DeepEqual(a.Train, d.Train[:4]) {
		t.Fatal("changing the training count changed other images")
	}
}

func TestSyntheticSegmentationShape(t *testing.T) {
	s := SyntheticSegmentation(SegmentationOptions{Seed: 1})
	if len(s.Train) != 20 || len(s.Test) != 20 {
		t.Fatalf("%d/%d images, want the default 20/20", len(s.Train), len(s.Test))
	}
	for _, set := range [][]psub.Instance{s.Train, s.Test} {
		du, dp, err := psub.ValidateSet(set, 2)
		if err != nil || du != SegUnaryDim || dp != SegPairwiseDim {
			t.Fatalf("du %d dp %d: %v", du, dp, err)
		}
		for i, in := range set {
			n := in.Nodes()
			if n < 100 || n > 256 {
				t.Fatalf("%s: %d nodes", in.Name, n)
			}
			fg := 0
			for _, y := range in.Labels {
				fg += y
			}
			if f := float64(fg) / float64(n); f < 0.15 || f > 0.5 {
				t.Fatalf("%s: foreground fraction %.2f", in.Name, f)
			}
			for e, p := range in.Pairwise {
				for j, v := range p {
					if v < 0 {
						t.Fatalf("%s (%d): edge %d pairwise %d = %v < 0", in.Name, i, e, j, v)
					}
				}
				if p[0] != 1 || p[1] > 1 {
					t.Fatalf("%s: edge %d: constant %v, contrast %v", in.Name, e, p[0], p[1])
				}
			}
		}
	}
	if len(s.TrainPos[0]) != s.Train[0].Nodes() {
		t.Fatal("positions do not match nodes")
	}
}

func TestSyntheticMultiLabelDeterministic(t *testing.T) {
	tr1, te1 := SyntheticMultiLabel(SyntheticMultiLabelOptions{Seed: 2, Train: 30, Test: 20})
	tr2, te2 := SyntheticMultiLabel(SyntheticMultiLabelOptions{Seed: 2, Train: 30, Test: 20})
	if !reflect.DeepEqual(tr1, tr2) || !reflect.DeepEqual(te1, te2) {
		t.Fatal("same seed, different data")
	}
	tr3, _ := SyntheticMultiLabel(SyntheticMultiLabelOptions{Seed: 3, Train: 30, Test: 20})
	if reflect.DeepEqual(tr1.X, tr3.X) {
		t.Fatal("different seeds, same data")
	}
	d, nl := tr1.Dims()
	if d != 12 || nl != 5 || tr1.Len() != 30 || te1.Len() != 20 {
		t.Fatalf("%d × %d, %d/%d", d, nl, tr1.Len(), te1.Len())
	}
	// Every label occurs and is absent somewhere (the problem is not trivial).
	big, _ := SyntheticMultiLabel(SyntheticMultiLabelOptions{Seed: 2})
	for k := range nl {
		ones := 0
		for _, y := range big.Y {
			ones += y[k]
		}
		if ones < big.Len()/10 || ones > big.Len()*9/10 {
			t.Fatalf("label %d present in %d of %d examples", k, ones, big.Len())
		}
	}
}

func nodeAccuracy(t *testing.T, m *psub.Model, set []psub.Instance) float64 {
	t.Helper()
	ev, err := m.Evaluate(set)
	if err != nil {
		t.Fatal(err)
	}
	return ev.Accuracy
}

// The synthetic problem is built so that C4 can switch smoothing off at
// boundaries (negative coupling on the contrast feature, offset by the
// constant), which C1 cannot; the gap must show on held-out images.
func TestSyntheticC4BeatsC1(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two models (a few seconds)")
	}
	s := SyntheticSegmentation(SegmentationOptions{Seed: 11, Train: 12, Test: 12})
	acc := map[string]float64{}
	for _, set := range []psub.ConstraintSet{psub.C1{}, psub.C4{}} {
		m, _, err := psub.Train(s.Train, 2, psub.Settings{Set: set, C: 1, Tol: 1e-2})
		if err != nil {
			t.Fatal(err)
		}
		acc[set.Name()] = nodeAccuracy(t, m, s.Test)
	}
	t.Logf("test accuracy: C1 %.3f, C4 %.3f", acc["C1"], acc["C4"])
	if acc["C4"] < acc["C1"]+0.05 {
		t.Fatalf("C4 %.3f does not beat C1 %.3f by 5 points", acc["C4"], acc["C1"])
	}
}

// The pairs of the synthetic multi-label problem are triggered by |x_g|,
// which only the pairwise features R(x) can express: a set that may reward
// agreeing pairs (C2) must beat the unary-only model (C0) on held-out data.
func TestSyntheticMultiLabelPairwiseHelps(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two models (about a second)")
	}
	train, test := SyntheticMultiLabel(SyntheticMultiLabelOptions{Seed: 1})
	p, err := BuildMultiLabel(train, test, MultiLabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	acc := map[string]float64{}
	for _, set := range []psub.ConstraintSet{psub.C0{}, psub.C2{}} {
		m, _, err := psub.Train(p.Train, 2, psub.Settings{Set: set, C: 1, Tol: 1e-2, MaxIter: 200})
		if err != nil {
			t.Fatal(err)
		}
		acc[set.Name()] = nodeAccuracy(t, m, p.Test)
	}
	t.Logf("test Hamming accuracy: C0 %.3f, C2 %.3f", acc["C0"], acc["C2"])
	if acc["C2"] < acc["C0"]+0.03 {
		t.Fatalf("C2 %.3f does not beat C0 %.3f by 3 points", acc["C2"], acc["C0"])
	}
}
