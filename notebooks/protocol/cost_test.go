package protocol

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
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
	if c.FitSeconds != fallbackCost.FitSeconds || c.Source != fallbackCost.Source {
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
	if math.Abs(c.FitSeconds-sum/71) > 1e-9 || c.MaxFitSeconds != math.Max(max, fallbackCost.MaxFitSeconds) || c.Fits != 72 || c.Groups != 18 {
		t.Errorf("measured %+v; want mean %v over the 71 good of 72 fits in 18 groups", c, sum/71)
	}
	if !strings.Contains(c.Source, "71 of 72 fits") || !strings.Contains(c.Source, file) || !strings.Contains(c.Source, half) {
		t.Errorf("source %q does not say what was measured", c.Source)
	}
	checkSourceReads(t, c)
	if c.MemoryMB != fallbackCost.MemoryMB {
		t.Errorf("memory %v, want the fallback's %v (rows do not record it)", c.MemoryMB, fallbackCost.MemoryMB)
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

// TestKnownCostsAreComplete: every known cost names its source, has
// positive memory, and counts the fits its protocol lists. It states
// seconds, or (a full profile) leaves them to its committed results file,
// which must then measure every fit.
func TestKnownCostsAreComplete(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.jsonl")
	for name, byProfile := range knownCosts {
		p, err := ByName(name)
		if err != nil {
			t.Errorf("known costs of %q: %v", name, err)
			continue
		}
		for prof, c := range byProfile {
			if c.Source == "" || !(c.MemoryMB > 0) || c.Fits <= 0 {
				t.Errorf("%s %s: incomplete %+v", name, prof, c)
			}
			// The run measured is the protocol's grid of today.
			first, err := p.Jobs(prof, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := listedFits(first, p.Group); n != c.Fits {
				t.Errorf("%s %s: the costs were measured on %d fits, the protocol has %d", name, prof, c.Fits, n)
			}
			if c.FitSeconds > 0 && c.MaxFitSeconds >= c.FitSeconds {
				continue
			}
			if c.FitSeconds != 0 || c.MaxFitSeconds != 0 || prof != Full {
				t.Errorf("%s %s: seconds %v (longest %v): want both, or (full profile) neither", name, prof, c.FitSeconds, c.MaxFitSeconds)
				continue
			}
			e, err := EstimateCost(p, prof, missing)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("all %d fits measured in the committed results %s", c.Fits, DefaultResults(name, prof))
			if !strings.Contains(e.Source, want) || !(e.FitSeconds > 0) {
				t.Errorf("%s %s states no seconds, but its committed results do not measure them all: %+v", name, prof, e)
			}
		}
	}
}

// TestEstimateCostCommitted: with no rows given (a results file missing or
// empty), the cows' full profile is measured on its committed results,
// notebooks/results/cows-full.jsonl, read here without package grid: the
// mean and longest of its successful fits (the newest row of each), the
// code versions that ran them, and the prior's memory.
func TestEstimateCostCommitted(t *testing.T) {
	committed := filepath.Join("..", "..", "notebooks", "results", "cows-full.jsonl")
	f, err := os.Open(committed)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type row struct {
		Dataset, Set, Loss string
		C                  float64
		Fold               int
		Tag                string
		Seconds            float64
		Error              string
		Code               struct{ Commit, Source string }
	}
	type key struct {
		dataset, set, loss string
		c                  float64
		fold               int
		tag                string
	}
	newest := map[key]row{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		newest[key{r.Dataset, r.Set, r.Loss, r.C, r.Fold, r.Tag}] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	n, sum, max := 0, 0.0, 0.0
	commits := map[string]bool{}
	for _, r := range newest {
		if r.Error == "" && r.Seconds > 0 {
			n, sum, max = n+1, sum+r.Seconds, math.Max(max, r.Seconds)
			commits[r.Code.Commit] = true
		}
	}
	if n == 0 {
		t.Fatalf("%s measures no fit", committed)
	}

	p, err := ByName("cows")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, given := range []string{filepath.Join(dir, "none.jsonl"), empty} {
		c, err := EstimateCost(p, Full, given)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.FitSeconds-sum/float64(n)) > 1e-9*c.FitSeconds || c.MaxFitSeconds != max || c.Fits != n {
			t.Errorf("given %s: mean %v, longest %v on %d fits; want %v, %v on the %d of %s",
				filepath.Base(given), c.FitSeconds, c.MaxFitSeconds, c.Fits, sum/float64(n), max, n, committed)
		}
		if !strings.Contains(c.Source, filepath.Join("notebooks", "results", "cows-full.jsonl")) || !strings.Contains(c.Source, "committed") {
			t.Errorf("source %q does not name the committed file", c.Source)
		}
		for commit := range commits {
			if !strings.Contains(c.Source, "commit "+commit) {
				t.Errorf("source %q does not name the rows' commit %s", c.Source, commit)
			}
		}
		if prior := knownCosts["cows"][Full]; c.MemoryMB != prior.MemoryMB || !strings.HasSuffix(c.Source, prior.Source) {
			t.Errorf("memory %v (%q), want the prior's %v (%q)", c.MemoryMB, c.Source, prior.MemoryMB, prior.Source)
		}
		checkSourceReads(t, c)
	}
}

// TestEstimateCostGivenRowsFirst: rows in the given files take precedence
// over the committed ones: a complete run's are all that count; a partial
// run's measure the mean, and the longest fit is the larger of theirs and
// the committed run's.
func TestEstimateCostGivenRowsFirst(t *testing.T) {
	p, err := ByName("cows")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	shipped, err := EstimateCost(p, Full, filepath.Join(dir, "none.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := grid.ReadResults(DefaultResults("cows", Full))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, rows []grid.Result) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := grid.WriteResultsJSONL(f, rows); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}

	// Every fit, three times slower.
	slow := slices.Clone(rows)
	for i := range slow {
		slow[i].Seconds *= 3
	}
	file := write("slow.jsonl", slow)
	c, err := EstimateCost(p, Full, file)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.FitSeconds-3*shipped.FitSeconds) > 1e-9*c.FitSeconds || math.Abs(c.MaxFitSeconds-3*shipped.MaxFitSeconds) > 1e-9*c.MaxFitSeconds {
		t.Errorf("complete given run: mean %v, longest %v; want 3 × the committed %v, %v", c.FitSeconds, c.MaxFitSeconds, shipped.FitSeconds, shipped.MaxFitSeconds)
	}
	if !strings.Contains(c.Source, file) || strings.Contains(c.Source, "committed") {
		t.Errorf("complete given run: source %q, want only %s", c.Source, file)
	}
	checkSourceReads(t, c)

	// Ten fits of 0.5 s: their mean, the committed run's longest fit.
	part := slices.Clone(rows[:10])
	for i := range part {
		part[i].Seconds = 0.5
	}
	file = write("part.jsonl", part)
	if c, err = EstimateCost(p, Full, file); err != nil {
		t.Fatal(err)
	}
	if c.FitSeconds != 0.5 || c.MaxFitSeconds != shipped.MaxFitSeconds {
		t.Errorf("partial given run: mean %v, longest %v; want 0.5 and the committed %v", c.FitSeconds, c.MaxFitSeconds, shipped.MaxFitSeconds)
	}
	if !strings.Contains(c.Source, "10 of ") || !strings.Contains(c.Source, file) || !strings.Contains(c.Source, "committed") {
		t.Errorf("partial given run: source %q, want the 10 fits of %s and the committed file", c.Source, file)
	}
	checkSourceReads(t, c)
}

// TestEstimateCostPriorWithoutSeconds: a full profile whose prior states
// no seconds and which has no committed results takes the default's
// seconds and keeps the prior's memory.
func TestEstimateCostPriorWithoutSeconds(t *testing.T) {
	prior := Cost{MemoryMB: 123, FitMemoryMB: 45, BuildSeconds: 6, Source: "a test prior"}
	knownCosts["toy"] = map[Profile]Cost{Full: prior}
	t.Cleanup(func() { delete(knownCosts, "toy") })
	if _, err := os.Stat(DefaultResults("toy", Full)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s: %v, want no such file", DefaultResults("toy", Full), err)
	}
	c, err := EstimateCost(toy{s: toySettings()}, Full, filepath.Join(t.TempDir(), "none.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if c.FitSeconds != fallbackCost.FitSeconds || c.MaxFitSeconds != fallbackCost.MaxFitSeconds || c.MemoryMB != prior.MemoryMB || c.Fits != 72 {
		t.Errorf("%+v: want the default's seconds, the prior's memory, 72 fits", c)
	}
	if want := "seconds: " + defaultSeconds + "; memory and build time: " + prior.Source; c.Source != want {
		t.Errorf("source %q, want %q", c.Source, want)
	}
	checkSourceReads(t, c)
}

// TestEstimateCostDefaultFlags: with no files given (psub protocol cows
// -profile full -slurm DIR, whose default results file is the committed
// one), the seconds are measured on all of the committed rows, named as
// such, and the Source says so once, next to the prior's memory.
func TestEstimateCostDefaultFlags(t *testing.T) {
	p, err := ByName("cows")
	if err != nil {
		t.Fatal(err)
	}
	shipped := DefaultResults("cows", Full)
	for _, given := range [][]string{nil, {shipped}} {
		c, err := EstimateCost(p, Full, given...)
		if err != nil {
			t.Fatal(err)
		}
		prior := knownCosts["cows"][Full]
		want := fmt.Sprintf("seconds: all %d fits measured in the committed results %s (", c.Fits, shipped)
		if !strings.HasPrefix(c.Source, want) || !strings.HasSuffix(c.Source, "; memory and build time: "+prior.Source) {
			t.Errorf("given %q: source %q, want %q…; memory and build time: %s", given, c.Source, want, prior.Source)
		}
		checkSourceReads(t, c)
	}
}

// checkSourceReads: a Source that gives every number from one place says
// so alone; one that combines says where the seconds come from and where
// memory and build time come from, once each, and says "nothing measured"
// only when nothing was.
func checkSourceReads(t *testing.T, c Cost) {
	t.Helper()
	if c.Source == fallbackCost.Source {
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

// TestMitoPriorCoversMeasuredPeak: the one measurement of mito's memory,
// the full run on two workers at 9c26855 (14 967 564 kB peak resident,
// /usr/bin/time -v, 2026-11-25), is within the prior's two-worker figure.
func TestMitoPriorCoversMeasuredPeak(t *testing.T) {
	const peakMiB = 14967564.0 / 1024
	c := knownCosts["mito"][Full]
	if two := c.MemoryMB + c.FitMemoryMB; two < peakMiB {
		t.Errorf("mito's prior gives two workers %v MiB, below the measured %.0f MiB", two, peakMiB)
	}
}
