package cows

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
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
	if len(jobs) != len(s.Sets)*len(s.Variants)+len(s.BarVariants) {
		t.Fatalf("%d jobs for %d sets × %d variants and C̄4 under %d", len(jobs), len(s.Sets), len(s.Variants), len(s.BarVariants))
	}
	for _, v := range s.BarVariants {
		if !slices.Contains(s.Variants, v) {
			t.Errorf("C̄4 runs under %q, which C4 does not (nothing to compare with)", v)
		}
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

// TestRunCountsBar runs C̄4 beside C4 on a tiny synthetic split, every
// violated row added and none retired: C̄4's rows carry the test-edge
// counts (some of its rows lie there), C4's have none on test edges, and
// every introduced row is kept.
func TestRunCountsBar(t *testing.T) {
	syn := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 5, Train: 4, Test: 3})
	s := CountsSettings{Sets: []string{"C4"}, Variants: []string{"add-all-keep-all"}, BarVariants: []string{"add-all-keep-all"},
		C: 1, Loss: "hamming", Tol: 1e-2, MaxIter: 300, Delayed: true}
	rows, err := RunCountsOn(context.Background(), s, syn.Train, syn.Test, filepath.Join(t.TempDir(), "rows.jsonl"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want C4 and C̄4", len(rows))
	}
	for _, r := range rows {
		if r.Error != "" {
			t.Fatalf("%s: %s", r.Key(), r.Error)
		}
		m := r.Metrics
		t.Logf("%s: introduced %v kept %v on test %v (active %v of %v)", r.Set, m["hard_introduced"], m["hard_kept"], m["hard_kept_test"], m["hard_active_test"], m["hard_active"])
		for _, k := range []string{"hard_kept", "hard_kept_test", "hard_active_test"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: no metric %s", r.Set, k)
			}
		}
		if m["hard_kept"] != m["hard_introduced"] {
			t.Errorf("%s, no row retired: kept %v of %v introduced", r.Set, m["hard_kept"], m["hard_introduced"])
		}
		if m["hard_active_test"] > m["hard_kept_test"] || m["hard_kept_test"] > m["hard_kept"] {
			t.Errorf("%s: active on test %v, kept on test %v, kept %v", r.Set, m["hard_active_test"], m["hard_kept_test"], m["hard_kept"])
		}
	}
	if c4 := rows[0]; c4.Set != "C4" || c4.Metrics["hard_kept_test"] != 0 {
		t.Errorf("C4 (first row %s) has %v rows on test edges, want 0", c4.Set, c4.Metrics["hard_kept_test"])
	}
	bar := rows[1]
	if bar.Set != "C4bar" || bar.Tag != "add-all-keep-all" {
		t.Fatalf("second row %s %s, want C4bar add-all-keep-all", bar.Set, bar.Tag)
	}
	if bar.Metrics["hard_kept_test"] == 0 {
		t.Errorf("C̄4 with every violated row added: none on the test edges")
	}
	tab := CountsTable(rows)
	if got, want := tab.Rows[1][10], fmt.Sprintf("%.0f / %.0f", bar.Metrics["hard_kept_test"], bar.Metrics["hard_active_test"]); tab.Rows[1][0] != "C4bar" || got != want {
		t.Errorf("table line %v: want C4bar with %q on test edges", tab.Rows[1], want)
	}
	lines := BarReading(rows)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "add-all-keep-all") || !strings.Contains(lines[0], fmt.Sprintf("C̄4 introduces %.0f hard", bar.Metrics["hard_introduced"])) {
		t.Errorf("reading %q", lines)
	}
}

// TestKeptRows counts a hand-built working set: two training instances,
// rows on instances 0, 2 and 3 (the last two test), one test row active.
func TestKeptRows(t *testing.T) {
	tr := &psub.Trace{Working: &psub.WorkingSet{Train: 2, Hard: []psub.WarmRow{
		{Instance: 0, Mu: 1}, {Instance: 2, Mu: 0.5}, {Instance: 3, Mu: 1e-12}, {Instance: 1}}}}
	m := map[string]float64{}
	if err := KeptRows(tr, m); err != nil {
		t.Fatal(err)
	}
	if m["hard_kept"] != 4 || m["hard_kept_test"] != 2 || m["hard_active_test"] != 1 {
		t.Errorf("kept %v, on test %v, active on test %v; want 4, 2, 1", m["hard_kept"], m["hard_kept_test"], m["hard_active_test"])
	}
	if err := KeptRows(&psub.Trace{}, m); err == nil {
		t.Error("no working set: no error")
	}
}

func TestBarReading(t *testing.T) {
	row := func(set string, intro float64) grid.Result {
		return grid.Result{Job: grid.Job{Dataset: "cows", Set: set, Loss: "hamming", C: 1, Tag: "psub-train"},
			Metrics: map[string]float64{"hard_introduced": intro, "hard_kept": 40, "hard_kept_test": 12, "hard_active_test": 3, "hard_active": 9}}
	}
	for _, c := range []struct {
		bar  float64
		want string
	}{{100, "more than C4's 90"}, {80, "fewer than C4's 90"}, {90, "as many as C4's 90"}} {
		lines := BarReading([]grid.Result{row("C4", 90), row("C4bar", c.bar)})
		if len(lines) != 1 || !strings.Contains(lines[0], c.want) || !strings.Contains(lines[0], "12 of the 40 rows") {
			t.Errorf("C̄4 %v: %q, want %q", c.bar, lines, c.want)
		}
	}
	if lines := BarReading([]grid.Result{row("C4bar", 1)}); len(lines) != 1 || !strings.Contains(lines[0], "no C̄4 rows") {
		t.Errorf("no C4 row: %q", lines)
	}
}
