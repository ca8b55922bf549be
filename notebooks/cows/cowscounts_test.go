package cows

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
)

func TestCountsVariants(t *testing.T) {
	s := DefaultCounts()
	v := CountsVariants()
	jobs := s.Jobs()
	if len(jobs) != len(s.Sets)*len(s.Variants) {
		t.Fatalf("%d jobs for %d sets × %d variants", len(jobs), len(s.Sets), len(s.Variants))
	}
	for _, j := range jobs {
		if _, ok := v[j.Tag]; !ok {
			t.Errorf("job %s: variant %q not registered", j.Key(), j.Tag)
		}
	}
}

// TestRunCountsOn trains C4 on a small synthetic problem under variants
// that must reach the same optimum and differ only in how hard
// constraints come and go.
func TestRunCountsOn(t *testing.T) {
	syn := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 3, Train: 8, Test: 4})
	s := CountsSettings{Sets: []string{"C4"}, Variants: []string{"psub-train", "add-all-keep-all", "keep-all"},
		C: 1, Loss: "hamming", Tol: 1e-3, MaxIter: 2000, Delayed: true}
	results := filepath.Join(t.TempDir(), "rows.jsonl")
	rows, err := RunCountsOn(context.Background(), s, syn.Train, syn.Test, results, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]grid.Result{}
	for _, r := range rows {
		if r.Error != "" {
			t.Fatalf("%s: %s", r.Key(), r.Error)
		}
		by[r.Tag] = r
	}
	if len(by) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	for tag, r := range by {
		t.Logf("%s: introduced %v active %v iterations %v", tag, r.Metrics["hard_introduced"], r.Metrics["hard_active"], r.Metrics["iterations"])
		m := r.Metrics
		if m["converged"] != 1 || m["hard_active"] > m["hard_introduced"] {
			t.Errorf("%s: converged %v, active %v of %v introduced", tag, m["converged"], m["hard_active"], m["hard_introduced"])
		}
	}
	p0, p1 := by["psub-train"].Metrics["primal"], by["add-all-keep-all"].Metrics["primal"]
	if d := p0 - p1; d > 2e-3*p0 || d < -2e-3*p0 {
		t.Errorf("variants reached different optima: primal %v and %v", p0, p1)
	}
	// AddK reaches the learner: every violated constraint of the first
	// round is far more than one.
	if by["add-all-keep-all"].Metrics["hard_introduced"] <= by["psub-train"].Metrics["hard_introduced"] {
		t.Errorf("adding all violated constraints introduced %v, no more than adding one (%v)", by["add-all-keep-all"].Metrics["hard_introduced"], by["psub-train"].Metrics["hard_introduced"])
	}
}

func TestTightConstraints(t *testing.T) {
	l := psub.Layout{Labels: 2, UnaryDim: 1, PairwiseDim: 2}
	w := make([]float64, l.Dim())
	set := func(a, b int, v0, v1 float64) {
		w[l.PairwiseIndex(a, b, 0)], w[l.PairwiseIndex(a, b, 1)] = v0, v1
	}
	// On p = (1,0): w00 = w11 = w01 = w10 = 1 (C4 margin 0; C3 rows 1, 1,
	// −1, −1). On p = (0,1): w00 = 2, w11 = 0, w01 = −1, w10 = 0 (C4 margin
	// 3; C3 rows 2, 0, 1, 0).
	set(0, 0, 1, 2)
	set(1, 1, 1, 0)
	set(0, 1, 1, -1)
	set(1, 0, 1, 0)
	m := &psub.Model{Layout: l, W: w}
	in := []psub.Instance{{Pairwise: [][]float64{{1, 0}, {0, 1}, {1, 0}}}}
	c3, c4 := TightConstraints(m, in, 1e-9)
	if c3 != 4 || c4 != 1 {
		t.Errorf("tight C3 %d, C4 %d; want 4 (two violated, two at 0) and 1", c3, c4)
	}
	// A generous eps makes C4's margin 3 tight too: ‖w‖ = √14, ‖p‖ = 1.
	if _, c4 := TightConstraints(m, in, 0.5); c4 != 2 {
		t.Errorf("eps 0.5: tight C4 %d, want 2", c4)
	}
}

func TestCowsCountsTable(t *testing.T) {
	job := DefaultCounts().Jobs()[1] // C3, psub-train
	r := grid.Result{Job: job, Metrics: map[string]float64{"hard_introduced": 719, "hard_active": 83, "tight_c3_0.001": 150, "tight_c4_0.001": 9, "test_acc": 0.8}}
	tab := CountsTable([]grid.Result{r})
	line := strings.Join(tab.Rows[0], "|")
	if want := "C3|psub-train|719|83|150|"; !strings.HasPrefix(line, want) || !strings.HasSuffix(line, "|568 / 185") {
		t.Errorf("line %q: want prefix %q and the authors' C3 counts", line, want)
	}
	if len(tab.Rows[0]) != len(tab.Header) {
		t.Errorf("%d cells, %d columns", len(tab.Rows[0]), len(tab.Header))
	}
}
