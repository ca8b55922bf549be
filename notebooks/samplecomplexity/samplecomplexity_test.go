package samplecomplexity

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/protocol/protocoltest"
	"github.com/probably-submodular/crf/psub/feature"
)

// coverageAt split by size and repeat must give feature.Coverage's numbers,
// whose nested walk over sizes it replaces.
func TestCoverageAtMatchesFeatureCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	pts := func(n int) [][]float64 {
		out := make([][]float64, n)
		for i := range out {
			out[i] = []float64{rng.Float64(), rng.Float64() * rng.Float64(), rng.ExpFloat64()}
		}
		return out
	}
	train, held := pts(300), pts(80)
	sizes, reps, queries := []int{4, 16, 64, 300}, 3, 50
	want, err := feature.Coverage(train, held, feature.CoverageOptions{Sizes: sizes, Queries: queries, Repeats: reps, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	var rows []grid.Result
	for _, n := range sizes {
		for rep := range reps {
			h, c, err := coverageAt(train, held, n, rep, queries, 9)
			if err != nil {
				t.Fatal(err)
			}
			if c > h {
				t.Errorf("n=%d repeat %d: %.3f outside the cone but only %.3f outside the hull", n, rep, c, h)
			}
			rows = append(rows, row(Job{Stage: StageControl, N: n, Rep: rep, Dim: 3}, Metrics{CoverageRow: &CoverageRow{OutsideHull: h, OutsideCone: c}}))
		}
	}
	got := Experiment{}.Coverage(rows, 3)
	if len(got) != len(want) {
		t.Fatalf("%d points, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.N != w.N || math.Abs(g.OutsideHull-w.OutsideHull) > 1e-12 || math.Abs(g.OutsideCone-w.OutsideCone) > 1e-12 ||
			math.Abs(g.HullStdErr-w.HullStdErr) > 1e-12 || math.Abs(g.ConeStdErr-w.ConeStdErr) > 1e-12 {
			t.Errorf("n=%d: got %+v, feature.Coverage %+v", w.N, g, w)
		}
	}
	if want[0].OutsideHull == want[len(want)-1].OutsideHull {
		t.Errorf("coverage does not change with n (%+v): the comparison proves nothing", want)
	}
	if _, _, err := coverageAt(train, held, 301, 0, 0, 1); err == nil {
		t.Error("n beyond the training points: no error")
	}
}

// row is the results row of a job and its metrics.
func row(j Job, m Metrics) grid.Result {
	r, err := grid.Row[Job, Metrics]{Job: j, Metrics: m}.Result()
	if err != nil {
		panic(err)
	}
	return r
}

// TestJobCells checks the cells of the jobs as the results files name them.
func TestJobCells(t *testing.T) {
	for _, c := range []struct {
		j    Job
		want string
	}{
		{Job{Stage: StageCoverage, N: 8, Rep: 1}, "cows|n=8||0|1|coverage"},
		{Job{Stage: StageC4, N: 4, C: 1}, "cows|k=4|hamming|1|0|c4"},
		{Job{Stage: StageControl, N: 16, Dim: 3}, "uniform-3d|n=16||0|0|control"},
	} {
		cells, err := grid.Cells([]Job{c.j})
		if err != nil || cells[0].Key() != c.want {
			t.Fatalf("%+v: %v, %v; want %s", c.j, cells, err, c.want)
		}
		back, err := grid.Rows[Job, Metrics]([]grid.Result{{Job: cells[0]}})
		if err != nil || back[0].Job != c.j {
			t.Errorf("%s read back as %+v, %v", c.want, back[0].Job, err)
		}
	}
	for _, bad := range []grid.Job{{Dataset: "cows", Set: "n=x", Tag: StageCoverage}, {Dataset: "cows", Set: "k=4", Tag: StageC4},
		{Dataset: "uniform-d", Set: "n=4", Tag: StageControl}, {Dataset: "cows", Set: "n=4", Tag: "other"}} {
		if _, err := grid.Rows[Job, Metrics]([]grid.Result{{Job: bad}}); err == nil {
			t.Errorf("%s: read as a job", bad.Key())
		}
	}
}

func TestSampleComplexityJobs(t *testing.T) {
	sc := Experiment{}
	for _, p := range protocol.Profiles() {
		s := sc.Settings(p)
		jobs, err := sc.Jobs(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := len(s.Sizes)*s.Repeats + len(s.TrainImages) + len(s.ControlDims)*len(s.ControlSizes)
		if len(jobs) != want {
			t.Errorf("%s: %d jobs, want %d", p, len(jobs), want)
		}
		seen := map[string]bool{}
		for _, j := range jobs {
			if seen[j.Key()] {
				t.Errorf("%s: job %s twice", p, j.Key())
			}
			seen[j.Key()] = true
			if back, err := grid.Rows[Job, Metrics]([]grid.Result{{Job: j}}); err != nil || back[0].Job.N < 1 {
				t.Errorf("%s: job %s: read back as %+v, %v", p, j.Key(), back, err)
			}
		}
	}
	// Quick is notebook 06's quick profile.
	q := sc.Settings(protocol.Quick)
	if q.Images != 16 || q.TestImages != 8 || q.Queries != 60 || q.Repeats != 1 || q.Tol != 1e-2 ||
		!reflect.DeepEqual(q.Sizes, []int{10, 30, 100, 300, 1000, 3000}) || !reflect.DeepEqual(q.TrainImages, []int{1, 2, 4}) {
		t.Errorf("quick settings %+v differ from notebook 06's", q)
	}
}

func TestSampleComplexityTables(t *testing.T) {
	sc := Experiment{}
	rows := []grid.Result{
		row(Job{Stage: StageCoverage, N: 10}, Metrics{CoverageRow: &CoverageRow{OutsideHull: 1, OutsideCone: 0.5, Dim: 125}}),
		row(Job{Stage: StageCoverage, N: 10, Rep: 1}, Metrics{CoverageRow: &CoverageRow{OutsideHull: 0.5, OutsideCone: 0.5, Dim: 125}}),
		{Job: grid.Job{Dataset: "cows", Set: "n=20", Fold: 0, Tag: StageCoverage}, Error: "boom"},
		row(Job{Stage: StageC4, N: 4}, Metrics{C4Point: &C4Point{Images: 4, Edges: 40, NonSubmodular: 0.25, Converged: true, Iterations: 7}}),
		row(Job{Stage: StageC4, N: 1}, Metrics{C4Point: &C4Point{Images: 1, Edges: 10, NonSubmodular: 0.5}}),
	}
	// Control rows in 2 dimensions lying on 3 · log(n)/n: the fitted scale is 3.
	for _, n := range []int{10, 100, 1000, 10000} {
		y := 3 * math.Log(float64(n)) / float64(n)
		rows = append(rows, row(Job{Stage: StageControl, N: n, Dim: 2}, Metrics{CoverageRow: &CoverageRow{OutsideHull: y}}))
	}
	tab := sc.CoverageTable(rows)
	// n = 10: hull mean 0.75, sd 0.354, standard error 0.25; cone 0.5 ± 0.
	if len(tab.Rows) != 1 || !reflect.DeepEqual(tab.Rows[0], []string{"10", "0.750 ± 0.250", "0.500 ± 0.000"}) {
		t.Errorf("coverage table %v", tab.Rows)
	}
	c4 := sc.C4Table(rows)
	if len(c4.Rows) != 2 || c4.Rows[0][0] != "1" || c4.Rows[1][0] != "4" || c4.Rows[1][2] != "0.2500" || c4.Rows[1][6] != "true" || c4.Rows[0][6] != "false" {
		t.Errorf("C4 table %v", c4.Rows)
	}
	cmp, ok := sc.Comparison(rows)
	if !ok || cmp.Ours[0][0] != 25 || cmp.Rows[0] != "C4 (4 training images)" {
		t.Errorf("comparison %+v", cmp)
	}
	if sc.Dim(rows) != 125 {
		t.Errorf("dim %d", sc.Dim(rows))
	}
	ctl := sc.Control(protocol.Quick, rows)
	if len(ctl) != 2 || math.Abs(ctl[0].Scale-3) > 1e-12 || len(ctl[0].Ref) != 4 || math.Abs(ctl[0].Ref[3]-ctl[0].OutsideHull[3]) > 1e-15 {
		t.Errorf("control %+v", ctl)
	}
	if len(ctl[1].N) != 0 {
		t.Errorf("3-d control without rows: %+v", ctl[1])
	}
}

// TestSampleComplexityTiny runs the tiny profile on the real cows: every
// job succeeds, the fractions are nested as the argument says, a second run
// reuses every row, and two shards merge to the whole run.
func TestSampleComplexityTiny(t *testing.T) {
	sc := Experiment{}
	if _, err := sc.Build(protocol.Tiny, nil); errors.Is(err, data.ErrNotFound) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.jsonl")
	rows, err := sc.Run(context.Background(), protocol.Options{Profile: protocol.Tiny, Results: whole, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := sc.Jobs(protocol.Tiny, nil)
	if len(rows) != len(jobs) {
		t.Fatalf("%d rows for %d jobs", len(rows), len(jobs))
	}
	for _, r := range rowsOf(rows) {
		if m := r.Metrics.CoverageRow; r.Job.Stage != StageC4 && !(0 <= m.OutsideCone && m.OutsideCone <= m.OutsideHull && m.OutsideHull <= 1) {
			t.Errorf("%+v: outside cone %g, hull %g; want 0 ≤ cone ≤ hull ≤ 1", r.Job, m.OutsideCone, m.OutsideHull)
		}
	}
	pts := sc.C4(rows)
	if len(pts) != 2 || pts[0].Edges >= pts[1].Edges || pts[1].OwnOutsideCone > pts[1].OwnOutsideHull {
		t.Errorf("C4 points %+v", pts)
	}
	if cov := sc.Coverage(rows, 0); len(cov) != 3 || cov[0].OutsideHull < cov[2].OutsideHull {
		t.Errorf("coverage %+v: want 3 sizes, the hull's fraction not growing with n (nested samples)", cov)
	}
	again, err := sc.Run(context.Background(), protocol.Options{Profile: protocol.Tiny, Results: whole})
	if err != nil {
		t.Fatal(err)
	}
	for i := range again {
		if again[i].Seconds != rows[i].Seconds {
			t.Errorf("second run ran %s again", again[i].Key())
		}
	}
	protocoltest.ShardsMergeToWhole(t, sc, protocol.Tiny, dir, func(name string, s protocol.Shard) protocol.Options {
		return protocol.Options{Profile: protocol.Tiny, Results: filepath.Join(dir, name+".jsonl"), Shard: s}
	}, rows)
}
