package notebooks_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/mito"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// TestKnownCostsAreComplete: every known cost names its source, has
// positive memory, and counts the fits its protocol lists. It states
// seconds, or (a full profile) leaves them to its committed results file,
// which must then measure every fit.
func TestKnownCostsAreComplete(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.jsonl")
	costers := 0
	for _, p := range protocol.All() {
		cs, ok := p.(protocol.Coster)
		if !ok {
			continue
		}
		costers++
		name := p.Name()
		for _, prof := range []protocol.Profile{protocol.Tiny, protocol.Quick, protocol.Full} {
			c, ok := cs.Cost(prof)
			if !ok {
				continue
			}
			if c.Source == "" || !(c.MemoryMB > 0) || c.Fits <= 0 {
				t.Errorf("%s %s: incomplete %+v", name, prof, c)
			}
			// The run measured is the protocol's grid of today.
			first, err := p.Jobs(prof, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := protocol.ListedFits(first, p.Group); n != c.Fits {
				t.Errorf("%s %s: the costs were measured on %d fits, the protocol has %d", name, prof, c.Fits, n)
			}
			if c.FitSeconds > 0 && c.MaxFitSeconds >= c.FitSeconds {
				continue
			}
			if c.FitSeconds != 0 || c.MaxFitSeconds != 0 || prof != protocol.Full {
				t.Errorf("%s %s: seconds %v (longest %v): want both, or (full profile) neither", name, prof, c.FitSeconds, c.MaxFitSeconds)
				continue
			}
			e, err := protocol.EstimateCost(p, prof, missing)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("all %d fits measured in the committed results %s", c.Fits, protocol.DefaultResults(name, prof))
			if !strings.Contains(e.Source, want) || !(e.FitSeconds > 0) {
				t.Errorf("%s %s states no seconds, but its committed results do not measure them all: %+v", name, prof, e)
			}
		}
	}
	if costers < 3 {
		t.Errorf("%d protocols state costs, want the cows, the retina and mito", costers)
	}
}

// TestEstimateCostCommitted: with no rows given (a results file missing or
// empty), the cows' full profile is measured on its committed results,
// notebooks/results/cows-full.jsonl, read here without package grid: the
// mean and longest of its successful fits (the newest row of each), the
// code versions that ran them, and the prior's memory.
func TestEstimateCostCommitted(t *testing.T) {
	committed := filepath.Join("results", "cows-full.jsonl")
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

	p, err := protocol.ByName("cows")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, given := range []string{filepath.Join(dir, "none.jsonl"), empty} {
		c, err := protocol.EstimateCost(p, protocol.Full, given)
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
		if prior := must(cows.Experiment{}.Cost(protocol.Full)); c.MemoryMB != prior.MemoryMB || !strings.HasSuffix(c.Source, prior.Source) {
			t.Errorf("memory %v (%q), want the prior's %v (%q)", c.MemoryMB, c.Source, prior.MemoryMB, prior.Source)
		}
	}
}

// TestEstimateCostGivenRowsFirst: rows in the given files take precedence
// over the committed ones: a complete run's are all that count; a partial
// run's measure the mean, and the longest fit is the larger of theirs and
// the committed run's.
func TestEstimateCostGivenRowsFirst(t *testing.T) {
	p, err := protocol.ByName("cows")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	shipped, err := protocol.EstimateCost(p, protocol.Full, filepath.Join(dir, "none.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := grid.ReadResults(protocol.DefaultResults("cows", protocol.Full))
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
	c, err := protocol.EstimateCost(p, protocol.Full, file)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.FitSeconds-3*shipped.FitSeconds) > 1e-9*c.FitSeconds || math.Abs(c.MaxFitSeconds-3*shipped.MaxFitSeconds) > 1e-9*c.MaxFitSeconds {
		t.Errorf("complete given run: mean %v, longest %v; want 3 × the committed %v, %v", c.FitSeconds, c.MaxFitSeconds, shipped.FitSeconds, shipped.MaxFitSeconds)
	}
	if !strings.Contains(c.Source, file) || strings.Contains(c.Source, "committed") {
		t.Errorf("complete given run: source %q, want only %s", c.Source, file)
	}

	// Ten fits of 0.5 s: their mean, the committed run's longest fit.
	part := slices.Clone(rows[:10])
	for i := range part {
		part[i].Seconds = 0.5
	}
	file = write("part.jsonl", part)
	if c, err = protocol.EstimateCost(p, protocol.Full, file); err != nil {
		t.Fatal(err)
	}
	if c.FitSeconds != 0.5 || c.MaxFitSeconds != shipped.MaxFitSeconds {
		t.Errorf("partial given run: mean %v, longest %v; want 0.5 and the committed %v", c.FitSeconds, c.MaxFitSeconds, shipped.MaxFitSeconds)
	}
	if !strings.Contains(c.Source, "10 of ") || !strings.Contains(c.Source, file) || !strings.Contains(c.Source, "committed") {
		t.Errorf("partial given run: source %q, want the 10 fits of %s and the committed file", c.Source, file)
	}
}

// TestEstimateCostDefaultFlags: with no files given (psub protocol cows
// -profile full -slurm DIR, whose default results file is the committed
// one), the seconds are measured on all of the committed rows, named as
// such, and the Source says so once, next to the prior's memory.
func TestEstimateCostDefaultFlags(t *testing.T) {
	p, err := protocol.ByName("cows")
	if err != nil {
		t.Fatal(err)
	}
	shipped := protocol.DefaultResults("cows", protocol.Full)
	for _, given := range [][]string{nil, {shipped}} {
		c, err := protocol.EstimateCost(p, protocol.Full, given...)
		if err != nil {
			t.Fatal(err)
		}
		prior := must(cows.Experiment{}.Cost(protocol.Full))
		want := fmt.Sprintf("seconds: all %d fits measured in the committed results %s (", c.Fits, shipped)
		if !strings.HasPrefix(c.Source, want) || !strings.HasSuffix(c.Source, "; memory and build time: "+prior.Source) {
			t.Errorf("given %q: source %q, want %q…; memory and build time: %s", given, c.Source, want, prior.Source)
		}
	}
}

// TestMitoPriorCoversMeasuredPeak: the one measurement of mito's memory,
// the full run on two workers at 9c26855 (14 967 564 kB peak resident,
// /usr/bin/time -v, 2026-11-25), is within the prior's two-worker figure.
func TestMitoPriorCoversMeasuredPeak(t *testing.T) {
	const peakMiB = 14967564.0 / 1024
	c := must(mito.Experiment{}.Cost(protocol.Full))
	if two := c.MemoryMB + c.FitMemoryMB; two < peakMiB {
		t.Errorf("mito's prior gives two workers %v MiB, below the measured %.0f MiB", two, peakMiB)
	}
}

// must is a measured cost that must be there.
func must(c protocol.Cost, ok bool) protocol.Cost {
	if !ok {
		panic("no measured cost")
	}
	return c
}
