package protocol

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/data/grid"
)

func TestCountsVariants(t *testing.T) {
	s := DefaultCowsCounts()
	v := CowsCountsVariants()
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
	s := CowsCountsSettings{Sets: []string{"C4"}, Variants: []string{"psub-train", "add-all-keep-all", "keep-all"},
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
