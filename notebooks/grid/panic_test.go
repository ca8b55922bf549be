package grid

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestPanickingFitFailsItsRow checks that a fit that panics (a bug) fails
// its own row, saying where, and that the other fits run and are written:
// a panic in a worker goroutine would otherwise end the process.
func TestPanickingFitFailsItsRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grid.jsonl")
	jobs := Jobs([]string{"a"}, []string{"C4"}, []string{"hamming"}, []float64{0.1, 1, 10}, 2)
	fn := func(_ context.Context, j Job) (map[string]float64, error) {
		if j.C == 1 && j.Fold == 1 {
			var m map[string]float64
			m["x"] = 1 // assignment to a nil map: a runtime panic
		}
		return map[string]float64{"acc": j.C}, nil
	}
	rs, err := Run(context.Background(), jobs, fn, Options{Workers: 3, Results: path})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, r := range rs {
		if r.Error == "" {
			continue
		}
		failed++
		for _, want := range []string{"a bug: please report it", "nil map", "panic_test.go:"} {
			if !strings.Contains(r.Error, want) {
				t.Errorf("row %s: error %q lacks %q", r.Key(), r.Error, want)
			}
		}
	}
	stored, err := ReadResults(path)
	if failed != 1 || err != nil || len(stored) != len(jobs) {
		t.Fatalf("%d failed rows (want 1), %d stored of %d (%v)", failed, len(stored), len(jobs), err)
	}
}
