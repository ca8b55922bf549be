package cows

import (
	"math"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub"
)

// c3Model is a two-label model with one unary and two pairwise features:
// w_00 = (1, .5), w_11 = (.2, 1), w_01 = (−1, x01), w_10 = (0, −.3), in C2
// for x01 ≤ 0; C2*'s second coordinate is 1.8 − x01.
func c3Model(x01 float64) *psub.Model {
	l := psub.Layout{Labels: 2, UnaryDim: 1, PairwiseDim: 2}
	w := make([]float64, l.Dim())
	w[0] = 0.7 // a unary weight, outside every check
	set := func(a, b int, v0, v1 float64) {
		w[l.PairwiseIndex(a, b, 0)], w[l.PairwiseIndex(a, b, 1)] = v0, v1
	}
	set(0, 0, 1, 0.5)
	set(1, 1, 0.2, 1)
	set(0, 1, -1, x01)
	set(1, 0, 0, -0.3)
	return &psub.Model{Layout: l, W: w}
}

// c3Test is one test graph of four nodes with edges (1,0), (0,1), (1,1).
var c3Test = []psub.Instance{{Unary: [][]float64{{1}, {1}, {1}, {1}}, Edges: [][2]int{{0, 1}, {1, 2}, {2, 3}},
	Pairwise: [][]float64{{1, 0}, {0, 1}, {1, 1}}}}

func TestReadModel(t *testing.T) {
	norm := func(w []float64) float64 {
		s := 0.0
		for _, v := range w {
			s += v * v
		}
		return math.Sqrt(s)
	}
	for _, c := range []struct {
		name                        string
		x01                         float64
		c2, c2star, nonsub, c3break int
	}{
		{"in C2", -0.4, 0, 0, 0, 0},
		// w_01's second coordinate positive: out of C2, in C2* (1.7 ≥ 0);
		// C3's row −⟨w_01,p⟩ ≤ 0 breaks on (0,1), the edge stays submodular.
		{"out of C2, in C2*", 0.1, 1, 0, 0, 1},
		// Flipped far: C2* breaks on coordinate 1 (1.8 − 2 < 0), and so do
		// the edge (0,1) and C3's rows on (0,1) and (1,1).
		{"out of C2*", 2, 1, 1, 1, 2},
	} {
		m := c3Model(c.x01)
		r, err := ReadModel(m, c3Test)
		if err != nil {
			t.Fatal(err)
		}
		frac, err := m.NonSubmodularFraction(c3Test, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.C2Violations != c.c2 || r.C2StarViolations != c.c2star || r.TestNonSub != c.nonsub || r.TestC3Broken != c.c3break || r.TestEdges != 3 {
			t.Errorf("%s: %+v; want C2 %d, C2* %d, non-submodular %d, C3 broken %d of 3 edges", c.name, r, c.c2, c.c2star, c.nonsub, c.c3break)
		}
		if got := float64(r.TestNonSub) / float64(r.TestEdges); got != frac {
			t.Errorf("%s: %v of the test edges non-submodular, NonSubmodularFraction says %v", c.name, got, frac)
		}
		if r.InC2() != (c.c2 == 0) {
			t.Errorf("%s: InC2 %v", c.name, r.InC2())
		}
		wn := norm(m.W)
		if c.x01 > 0 && math.Abs(r.C2Max-c.x01/wn) > 1e-12 {
			t.Errorf("%s: largest C2 violation %v, want %v", c.name, r.C2Max, c.x01/wn)
		}
		if c.x01 == 2 && math.Abs(r.TestMax-0.2/(2*wn)) > 1e-12 {
			t.Errorf("%s: largest test violation %v, want %v", c.name, r.TestMax, 0.2/(2*wn))
		}
		if (r.TestMax > 0) != (c.nonsub > 0) {
			t.Errorf("%s: largest test violation %v with %d non-submodular edges", c.name, r.TestMax, r.TestNonSub)
		}
	}
	if _, err := ReadModel(&psub.Model{Layout: psub.Layout{Labels: 3, UnaryDim: 1, PairwiseDim: 1}}, nil); err == nil {
		t.Error("three labels: no error")
	}
}

func TestCoverage(t *testing.T) {
	got := Coverage([]psub.Instance{{Pairwise: [][]float64{{1, 1, 0}, {0, 2, 1}, {0, 0, 0}}}})
	want := []float64{0.5, 2.0 / 3, 1.0 / 3}
	for k := range want {
		if len(got) != 3 || math.Abs(got[k]-want[k]) > 1e-15 {
			t.Fatalf("coverage %v, want %v", got, want)
		}
	}
}

func TestC3ReadingSummary(t *testing.T) {
	in, out := ModelReading{Set: "C3", TestEdges: 10}, ModelReading{Set: "C3", C2Violations: 2, C2Max: 0.03, TestEdges: 10, TestC3Broken: 1}
	lines := C3ReadingSummary([]ModelReading{in, in}, []float64{0.5, 0})
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "reading: C3's models lie in C2 in all 2 folds") {
		t.Errorf("every model in C2: %q", lines)
	}
	if !strings.Contains(lines[1], "largest share of an edge's feature mass on one coordinate is 0.50 (1 of 2 coordinates") {
		t.Errorf("coverage line %q", lines[1])
	}
	lines = C3ReadingSummary([]ModelReading{in, out}, nil)
	if !strings.HasPrefix(lines[0], "C3's models lie in C2 (every coordinate's sign) in 1 of 2 folds") || !strings.Contains(lines[0], "1 break one of C3's rows") {
		t.Errorf("first line %q", lines[0])
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "reading: not C2 (C3's models lie in C2 in 1 of 2 folds); C3's own rows hold on all but 1 of 20 test edges") {
		t.Errorf("one model out of C2: %q", last)
	}
}
