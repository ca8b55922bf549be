package protocol

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{{"", Shard{}, true}, {"1/1", Shard{1, 1}, true}, {"3/8", Shard{3, 8}, true},
		{"0/4", Shard{}, false}, {"5/4", Shard{}, false}, {"1", Shard{}, false}, {"a/b", Shard{}, false}, {"1/0", Shard{}, false}} {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseProfile(t *testing.T) {
	for _, p := range Profiles() {
		if got, err := ParseProfile(string(p)); err != nil || got != p {
			t.Errorf("ParseProfile(%q) = %v, %v", p, got, err)
		}
	}
	if _, err := ParseProfile("fast"); err == nil || !strings.Contains(err.Error(), "quick") {
		t.Errorf("ParseProfile(fast): %v, want an error listing the profiles", err)
	}
	t.Setenv("PSUB_PROFILE", "huge")
	if _, err := EnvProfile(); err == nil || !strings.Contains(err.Error(), "PSUB_PROFILE") {
		t.Errorf("EnvProfile with PSUB_PROFILE=huge: %v, want an error naming the variable", err)
	}
}

// toy is a protocol with the cows shape on made-up scores: a selection of C
// per (set, loss, fold), then a final fit at the best C. Its job function
// is deterministic, so a run's rows can be compared across shardings.
type toy struct {
	s     SegmentationSettings
	fail  string // key of a job that fails
	calls *int
}

func (toy) Name() string  { return "toy" }
func (toy) Title() string { return "a toy protocol" }
func (p toy) Jobs(_ Profile, rows []grid.Result) ([]grid.Job, error) {
	return SegmentationJobs("toy", p.s, rows), nil
}
func (toy) Group(j grid.Job) string { return SegmentationGroup(j) }
func (p toy) Run(ctx context.Context, opt Options) ([]grid.Result, error) {
	opt, err := opt.WithDefaults(p.Name())
	if err != nil {
		return nil, err
	}
	return RunStaged(ctx, p, opt, p.fit, p.s.Axesless(), nil)
}

// fit scores C by its distance to a set- and fold-dependent optimum.
func (p toy) fit(_ context.Context, j grid.Job) (map[string]float64, error) {
	if p.calls != nil {
		*p.calls++
	}
	if j.Key() == p.fail {
		return nil, errors.New("boom")
	}
	best := float64(len(j.Set)+j.Fold) / 2
	return map[string]float64{MetricSelect: -math.Abs(math.Log(j.C / best)), "train_seconds": float64(len(j.Key()))}, nil
}

func toySettings() SegmentationSettings {
	return SegmentationSettings{Folds: 3, Cs: []float64{0.5, 1, 2}, Sets: []string{"A", "BB", "CCC"}, Losses: []string{"x", "y"}}
}

func TestSegmentationJobsStages(t *testing.T) {
	s := toySettings()
	jobs := SegmentationJobs("toy", s, nil)
	if len(jobs) != 3*2*3*3 {
		t.Fatalf("%d jobs before any row, want the 54 selection fits", len(jobs))
	}
	// Rows of all but one selection fit of one group: every other group
	// gets its final fit, at its best C.
	var rows []grid.Result
	p := toy{s: s}
	for _, j := range jobs {
		if j.Set == "A" && j.Loss == "x" && j.Fold == 0 && j.C == 2 {
			continue
		}
		m, _ := p.fit(context.Background(), j)
		rows = append(rows, grid.Result{Job: j, Metrics: m})
	}
	jobs = SegmentationJobs("toy", s, rows)
	var finals []grid.Job
	for _, j := range jobs {
		if j.Tag == "final" {
			finals = append(finals, j)
		}
	}
	if len(finals) != 3*2*3-1 {
		t.Fatalf("%d final jobs, want 17 (one group's selection is incomplete)", len(finals))
	}
	for _, f := range finals {
		want := float64(len(f.Set)+f.Fold) / 2
		var bestC float64
		bestD := math.Inf(1)
		for _, c := range s.Cs { // brute force over the grid, ties to the smaller C
			if d := math.Abs(math.Log(c / want)); d < bestD-1e-12 {
				bestC, bestD = c, d
			}
		}
		if f.C != bestC {
			t.Errorf("final %s at C = %g, want %g", f.Key(), f.C, bestC)
		}
		if f.Set == "A" && f.Loss == "x" && f.Fold == 0 {
			t.Errorf("final fit %s listed before its selection is complete", f.Key())
		}
	}
}

func TestShardsPartitionGroups(t *testing.T) {
	s := toySettings()
	jobs := SegmentationJobs("toy", s, nil)
	for n := 1; n <= 7; n++ {
		order := groupOrder(jobs, SegmentationGroup)
		owner := map[string]int{}
		total := 0
		for i := 1; i <= n; i++ {
			for _, j := range (Shard{i, n}).pick(jobs, SegmentationGroup, order) {
				g := SegmentationGroup(j)
				if o, ok := owner[g]; ok && o != i {
					t.Fatalf("n=%d: group %s in shards %d and %d", n, g, o, i)
				}
				owner[g] = i
				total++
			}
		}
		if total != len(jobs) {
			t.Errorf("n=%d: shards hold %d jobs, want %d", n, total, len(jobs))
		}
	}
}

// comparable strips what differs between two runs of the same fit.
func comparable(rs []grid.Result) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, r := range rs {
		m := map[string]float64{}
		for k, v := range r.Metrics {
			if !IsTiming(k) {
				m[k] = v
			}
		}
		out[r.Key()] = m
	}
	return out
}

func TestShardedRunMergesToWholeRun(t *testing.T) {
	dir := t.TempDir()
	s := toySettings()
	calls := 0
	p := toy{s: s, calls: &calls}
	whole, err := p.Run(context.Background(), Options{Results: filepath.Join(dir, "whole.jsonl"), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != 54+18 {
		t.Fatalf("whole run: %d rows, want 72", len(whole))
	}
	// Resume: nothing runs again.
	calls = 0
	if _, err := p.Run(context.Background(), Options{Results: filepath.Join(dir, "whole.jsonl")}); err != nil || calls != 0 {
		t.Fatalf("second run: %d fits ran again (err %v), want 0", calls, err)
	}
	var files []string
	for i := 1; i <= 4; i++ {
		f := filepath.Join(dir, "shard", string(rune('0'+i))+".jsonl")
		if _, err := p.Run(context.Background(), Options{Results: f, Shard: Shard{i, 4}}); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// Merging only three shards reports the fourth's fits missing.
	rep, err := Merge(p, Quick, filepath.Join(dir, "part.jsonl"), files[:3])
	if err != nil {
		t.Fatal(err)
	}
	if rep.Complete || len(rep.Missing) == 0 {
		t.Errorf("merge of 3 of 4 shards: complete %v, %d missing; want incomplete", rep.Complete, len(rep.Missing))
	}
	out := filepath.Join(dir, "merged.jsonl")
	rep, err = Merge(p, Quick, out, append(files, files[0])) // a file twice: duplicates, no conflict
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete || rep.Rows != 72 || rep.Duplicates == 0 {
		t.Errorf("merge: %+v; want 72 rows, complete, duplicates counted", rep)
	}
	merged, err := grid.ReadResults(out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(comparable(merged), comparable(whole)) {
		t.Errorf("merged shards differ from the whole run")
	}
}

func TestMergeRefusesConflicts(t *testing.T) {
	dir := t.TempDir()
	p := toy{s: SegmentationSettings{Folds: 2, Cs: []float64{1}, Sets: []string{"A"}, Losses: []string{"x"}}}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if _, err := p.Run(context.Background(), Options{Results: a}); err != nil {
		t.Fatal(err)
	}
	rows, err := grid.ReadResults(a)
	if err != nil {
		t.Fatal(err)
	}
	rows[0].Metrics[MetricSelect] += 1
	f, err := os.Create(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := grid.WriteResultsJSONL(f, rows[:1]); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "out.jsonl")
	rep, err := Merge(p, Quick, out, []string{a, b})
	if err == nil || len(rep.Conflicts) != 1 || !strings.Contains(err.Error(), "b.jsonl") {
		t.Fatalf("merge of disagreeing files: %v, %+v; want one conflict naming the files", err, rep)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused merge wrote %s", out)
	}
}

func TestFailedJobIsReportedAndRetried(t *testing.T) {
	dir := t.TempDir()
	s := SegmentationSettings{Folds: 2, Cs: []float64{1, 2}, Sets: []string{"A"}, Losses: []string{"x"}}
	bad := grid.Job{Dataset: "toy", Set: "A", Loss: "x", C: 2, Fold: 1, Tag: "select"}
	p := toy{s: s, fail: bad.Key()}
	res := filepath.Join(dir, "r.jsonl")
	_, err := p.Run(context.Background(), Options{Results: res})
	if err == nil || !strings.Contains(err.Error(), bad.Key()) {
		t.Fatalf("run with a failing fit: %v, want an error naming %s", err, bad.Key())
	}
	rep, err := Merge(p, Quick, filepath.Join(dir, "m.jsonl"), []string{res})
	// The failed group's final fit cannot be listed yet: the report names
	// the failed fit, and the merge is incomplete.
	if err != nil || rep.Complete || len(rep.Failed) != 1 || rep.Rows != 5 {
		t.Fatalf("merge after a failure: %v %+v; want 1 failed of 5 rows, incomplete", err, rep)
	}
	calls := 0
	p.fail, p.calls = "", &calls
	if _, err := p.Run(context.Background(), Options{Results: res}); err != nil {
		t.Fatal(err)
	}
	if calls != 2 { // the failed selection fit, then its group's final fit
		t.Errorf("rerun ran %d fits, want 2", calls)
	}
}

func TestDefaultResults(t *testing.T) {
	full, quick := DefaultResults("cows", Full), DefaultResults("cows", Quick)
	if !strings.HasSuffix(full, filepath.Join("notebooks", "results", "cows-full.jsonl")) {
		t.Errorf("full profile's rows in %s, want notebooks/results/cows-full.jsonl (the committed raw records)", full)
	}
	if !strings.HasSuffix(quick, filepath.Join("out", "cows-quick.jsonl")) {
		t.Errorf("quick profile's rows in %s, want out/cows-quick.jsonl", quick)
	}
}

func TestDefaultModels(t *testing.T) {
	full := DefaultModels("cows", Full)
	if !strings.HasSuffix(full, filepath.Join("notebooks", "results", "models", "cows-full")) {
		t.Errorf("full profile's models in %s, want notebooks/results/models/cows-full (committed beside the rows)", full)
	}
	if filepath.Dir(filepath.Dir(full)) != filepath.Dir(DefaultResults("cows", Full)) {
		t.Errorf("full profile's models in %s, not under the directory of its rows %s", full, DefaultResults("cows", Full))
	}
	// Quick runs (the notebooks' default, and tests) must not write into
	// the committed notebooks/results.
	for _, p := range []Profile{Quick, Tiny} {
		got := DefaultModels("cows", p)
		if want := filepath.Join("out", "models", "cows-"+string(p)); !strings.HasSuffix(got, want) {
			t.Errorf("%s profile's models in %s, want %s", p, got, want)
		}
		opt, err := Options{Profile: p}.WithDefaults("cows")
		if err != nil {
			t.Fatal(err)
		}
		if opt.Models != got || strings.Contains(opt.Models, filepath.Join("notebooks", "results")) {
			t.Errorf("%s profile: Options.Models defaults to %s, want %s", p, opt.Models, got)
		}
	}
	opt, err := Options{Profile: Full}.WithDefaults("cows")
	if err != nil || opt.Models != full {
		t.Errorf("full profile: Options.Models defaults to %s (%v), want %s", opt.Models, err, full)
	}
	// A run with its own results file keeps its models beside them, not
	// over the committed ones.
	own := filepath.Join(t.TempDir(), "runs", "cows.jsonl")
	if opt, _ := (Options{Profile: Full, Results: own}).WithDefaults("cows"); opt.Models != filepath.Join(filepath.Dir(own), "models", "cows-full") {
		t.Errorf("full profile with results %s: models in %s, want beside the results", own, opt.Models)
	}
	if opt, _ := (Options{Profile: Full, Models: "elsewhere"}).WithDefaults("cows"); opt.Models != "elsewhere" {
		t.Errorf("a given Models %q was replaced by %q", "elsewhere", opt.Models)
	}
}
