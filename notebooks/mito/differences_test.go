package mito

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/datadir"
	"github.com/probably-submodular/crf/notebooks/grid"
)

func TestDifferencesJobs(t *testing.T) {
	seen := map[string]bool{}
	n := 0
	for _, s := range DefaultDifferences() {
		for _, j := range s.Jobs() {
			if seen[j.Key()] {
				t.Errorf("job %s listed twice", j.Key())
			}
			seen[j.Key()] = true
			if _, ok := DiffVariants()[j.Tag]; !ok || j.Dataset != s.Dataset || j.Loss != "avg" {
				t.Errorf("job %s: want a variant of DiffVariants, data set %s, loss avg", j.Key(), s.Dataset)
			}
			n++
		}
		if s.Tol != 1e-3 || s.MaxIter != 5000 {
			t.Errorf("%s: tol %g, %d iterations; want the paper's 1e-3 and 5000", s.Dataset, s.Tol, s.MaxIter)
		}
	}
	// quick: 7 columns × 11 C + 3 columns × 2 C; eighth: 2 × 11 + 3 C3 + 4 variants × 3 × 2; quarter: 2; whole: 3.
	if want := 7*11 + 6 + 2*11 + 3 + 4*6 + 2 + 3; n != want {
		t.Errorf("%d jobs, want %d", n, want)
	}
}

// TestRunDifferences runs the variants of C4 on the tiny crop of the real
// volumes: the exactly trained column reaches the same optimum under every
// solver (same training and test scores), the run on the paper's problem
// goes past both stopping rules (relative gap far below Tol at its end,
// each rule firing no later than its end), a second run reuses every row,
// and jobs of another crop or an unknown variant are refused.
func TestRunDifferences(t *testing.T) {
	datadir.Need(t, "epfl_mito")
	s := DiffSettings{Dataset: "mito-tiny", Crop: data.MitoBox{X: 608, Y: 288, Z: 62, Width: 96, Height: 96, Depth: 20},
		Sets: []string{"C4"}, Variants: []string{"protocol", "add1", "qptol1e-7", "pystruct"}, Cs: []float64{10}, Tol: 1e-3, MaxIter: 2000}
	set, folds, err := data.BuildMitoSplit(data.MitoOptions{Crop: s.Crop, Cache: data.DefaultSegmentCache()})
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(t.TempDir(), "d.jsonl")
	rows, err := RunDifferencesOn(context.Background(), s, set, folds, results, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	by := map[string]grid.Result{}
	for _, r := range rows {
		if r.Error != "" {
			t.Fatalf("%s: %s", r.Key(), r.Error)
		}
		by[r.Tag] = r
	}
	ref := by["add1"].Metrics
	for _, tag := range []string{"protocol", "qptol1e-7", "pystruct"} {
		m := by[tag].Metrics
		for _, k := range []string{"train_cavg", "test_cavg"} {
			if math.Abs(m[k]-ref[k]) > 0.01 {
				t.Errorf("%s: %s %.4f, add1 %.4f: want the same optimum within a point", tag, k, m[k], ref[k])
			}
		}
		if m["iterations"] < 2 || m["test_iou"] <= 0 {
			t.Errorf("%s: %v iterations, IoU %v", tag, m["iterations"], m["test_iou"])
		}
	}
	p := by["pystruct"].Metrics
	if p["c_pystruct_problem"] != 2*10 {
		t.Errorf("pystruct: C of the paper's problem %v, want C·n = 20", p["c_pystruct_problem"])
	}
	if !(p["pystruct_stop"] >= 1 && p["pystruct_stop"] <= p["iterations"] && p["gap_stop"] >= 1 && p["gap_stop"] <= p["iterations"]) {
		t.Errorf("pystruct: rules fired at %v (PyStruct) and %v (gap) of %v iterations", p["pystruct_stop"], p["gap_stop"], p["iterations"])
	}
	if p["gap"] > 1e-6 || p["capped"] != 0 {
		t.Errorf("pystruct: ended at gap %g, capped %v; want past both rules, below the cap", p["gap"], p["capped"])
	}
	if _, ok := by["add1"].Metrics["pystruct_stop"]; ok {
		t.Error("add1 records pystruct_stop")
	}
	again, err := RunDifferencesOn(context.Background(), s, set, folds, results, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range again {
		if again[i].Seconds != rows[i].Seconds {
			t.Errorf("%s ran again", again[i].Key())
		}
	}
	bad := s
	bad.Extra = []grid.Job{{Dataset: "mito-tiny", Set: "C4", Loss: "avg", C: 1, Tag: "nope"}}
	if _, err := RunDifferencesOn(context.Background(), bad, set, folds, results, 1, nil); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown variant: %v", err)
	}
	bad.Extra = []grid.Job{{Dataset: "mito-quick", Set: "C4", Loss: "avg", C: 1, Tag: "add1"}}
	if _, err := RunDifferencesOn(context.Background(), bad, set, folds, results, 1, nil); err == nil || !strings.Contains(err.Error(), "mito-quick") {
		t.Errorf("another crop's job: %v", err)
	}
}
