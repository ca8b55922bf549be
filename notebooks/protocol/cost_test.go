package protocol

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
)

// TestEstimateCostCounts: the toy's 3 sets × 2 losses × 3 folds are 18
// groups; each selects among 3 values of C and then fits once more, so
// 18 × 4 = 72 fits, whether they are counted from a listing without rows
// or from a complete run's.
func TestEstimateCostCounts(t *testing.T) {
	p := toy{s: toySettings()}
	missing := filepath.Join(t.TempDir(), "none.jsonl")
	c, err := EstimateCost(p, Quick, missing)
	if err != nil {
		t.Fatal(err)
	}
	if c.Groups != 18 || c.Fits != 72 {
		t.Fatalf("%d fits in %d groups, want 72 in 18", c.Fits, c.Groups)
	}
	if c.FitSeconds != FallbackCost.FitSeconds || c.Source != FallbackCost.Source {
		t.Errorf("no rows, no known costs: %+v, want the fallback", c)
	}

	// A single C: no selection, one fit per group.
	one := toySettings()
	one.Cs = []float64{1}
	if c, err := EstimateCost(toy{s: one}, Quick, missing); err != nil || c.Fits != 18 || c.Groups != 18 {
		t.Errorf("one C: %+v, %v; want 18 fits in 18 groups", c, err)
	}
}

// TestEstimateCostMeasures runs the toy, rewrites its rows' seconds to known
// values, and checks the mean and maximum read back; failed rows and rows
// of jobs the profile does not list do not count.
func TestEstimateCostMeasures(t *testing.T) {
	p := toy{s: toySettings()}
	file := filepath.Join(t.TempDir(), "toy.jsonl")
	rows, err := p.Run(t.Context(), Options{Results: file, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 72 {
		t.Fatalf("%d rows, want 72", len(rows))
	}
	// A failed final fit (a failed selection fit would also take its
	// group's final fit off the listing).
	failed := len(rows) - 1
	if rows[failed].Tag != "final" {
		t.Fatalf("last row %s is not a final fit", rows[failed].Key())
	}
	sum, max := 0.0, 0.0
	for i := range rows {
		rows[i].Seconds = float64(i + 1)
		if i == failed {
			rows[i].Seconds, rows[i].Error = 1e6, "boom"
			continue
		}
		sum, max = sum+rows[i].Seconds, math.Max(max, rows[i].Seconds)
	}
	// A row of a job the toy does not list, and an older row of job 0
	// (the file's newest row of a job counts, as in grid.ReadResults).
	extra := []grid.Result{
		{Job: grid.Job{Dataset: "toy", Set: "ZZ", Loss: "x", C: 1, Fold: 0, Tag: "final"}, Seconds: 1e6},
		{Job: rows[0].Job, Seconds: 1e6},
	}
	all := append(extra, rows...)
	// Split over two files, as shards are, with a file that does not exist.
	half := filepath.Join(filepath.Dir(file), "half.jsonl")
	write := func(path string, rows []grid.Result) {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := grid.WriteResultsJSONL(f, rows); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write(file, all[:40])
	write(half, all[40:])
	c, err := EstimateCost(p, Quick, file, half, filepath.Join(filepath.Dir(file), "none.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// 71 of 72 fits succeeded: a partial run, so the longest fit is the
	// larger of the measured one and the prior's (the fallback's here).
	if math.Abs(c.FitSeconds-sum/71) > 1e-9 || c.MaxFitSeconds != math.Max(max, FallbackCost.MaxFitSeconds) || c.Fits != 72 || c.Groups != 18 {
		t.Errorf("measured %+v; want mean %v over the 71 good of 72 fits in 18 groups", c, sum/71)
	}
	if !strings.Contains(c.Source, "71 of 72 fits") || !strings.Contains(c.Source, file) || !strings.Contains(c.Source, half) {
		t.Errorf("source %q does not say what was measured", c.Source)
	}
	checkSourceReads(t, c)
	if c.MemoryMB != FallbackCost.MemoryMB {
		t.Errorf("memory %v, want the fallback's %v (rows do not record it)", c.MemoryMB, FallbackCost.MemoryMB)
	}

	// The failed fit done: a complete run measures the longest fit too.
	all[len(all)-1].Error, all[len(all)-1].Seconds = "", 2
	write(half, all[40:])
	c, err = EstimateCost(p, Quick, file, half)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.FitSeconds-(sum+2)/72) > 1e-9 || c.MaxFitSeconds != max || !strings.Contains(c.Source, "all 72 fits") {
		t.Errorf("complete: %+v; want mean %v, longest %v", c, (sum+2)/72, max)
	}
	checkSourceReads(t, c)

	// A damaged results file is an error naming it.
	os.WriteFile(file, []byte("{not json\n"), 0o644)
	if _, err := EstimateCost(p, Quick, file); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("damaged file: %v, want an error naming %s", err, file)
	}
}

// TestEstimateCostPriorWithoutSeconds: a full profile whose prior states
// no seconds and which has no committed results takes the default's
// seconds and keeps the prior's memory.
func TestEstimateCostPriorWithoutSeconds(t *testing.T) {
	prior := Cost{MemoryMB: 123, FitMemoryMB: 45, BuildSeconds: 6, Source: "a test prior"}
	if _, err := os.Stat(DefaultResults("toy", Full)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: %v, want no such file", DefaultResults("toy", Full), err)
	}
	c, err := EstimateCost(costedToy{toy{s: toySettings()}, prior}, Full, filepath.Join(t.TempDir(), "none.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if c.FitSeconds != FallbackCost.FitSeconds || c.MaxFitSeconds != FallbackCost.MaxFitSeconds || c.MemoryMB != prior.MemoryMB || c.Fits != 72 {
		t.Errorf("%+v: want the default's seconds, the prior's memory, 72 fits", c)
	}
	if want := "seconds: " + DefaultSeconds + "; memory and build time: " + prior.Source; c.Source != want {
		t.Errorf("source %q, want %q", c.Source, want)
	}
	checkSourceReads(t, c)
}

// checkSourceReads: a Source that gives every number from one place says
// so alone; one that combines says where the seconds come from and where
// memory and build time come from, once each, and says "nothing measured"
// only when nothing was.
func checkSourceReads(t *testing.T, c Cost) {
	t.Helper()
	if c.Source == FallbackCost.Source {
		return
	}
	if strings.Contains(c.Source, "nothing measured") {
		t.Errorf("source %q says nothing was measured, but it is not the default's", c.Source)
	}
	if !strings.HasPrefix(c.Source, "seconds: ") {
		return // one prior gives every number
	}
	for _, label := range []string{"seconds:", "memory"} {
		if n := strings.Count(c.Source, label); n != 1 {
			t.Errorf("source %q: %q %d times, want once", c.Source, label, n)
		}
	}
	if n := strings.Count(c.Source, "; memory and build time: "); n != 1 {
		t.Errorf("source %q does not end in one clause on memory and build time", c.Source)
	}
}

// costedToy is the toy protocol with a measured cost of its full profile.
type costedToy struct {
	toy
	full Cost
}

func (c costedToy) Cost(p Profile) (Cost, bool) { return c.full, p == Full }
