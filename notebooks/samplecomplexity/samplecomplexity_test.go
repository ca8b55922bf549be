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
			rows = append(rows, grid.Result{Job: grid.Job{Dataset: "pts", Set: sizeLabel("n", n), Fold: rep, Tag: StageCoverage},
				Metrics: map[string]float64{"outside_hull": h, "outside_cone": c}})
		}
	}
	got := Experiment{}.Coverage(rows, "pts")
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
			if n, err := jobSize(j); err != nil || n < 1 {
				t.Errorf("%s: job %s: size %d, %v", p, j.Key(), n, err)
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
	row := func(j grid.Job, m map[string]float64) grid.Result { return grid.Result{Job: j, Metrics: m} }
	rows := []grid.Result{
		row(grid.Job{Dataset: "cows", Set: "n=10", Fold: 0, Tag: StageCoverage}, map[string]float64{"outside_hull": 1, "outside_cone": 0.5, "dim": 125}),
		row(grid.Job{Dataset: "cows", Set: "n=10", Fold: 1, Tag: StageCoverage}, map[string]float64{"outside_hull": 0.5, "outside_cone": 0.5, "dim": 125}),
		{Job: grid.Job{Dataset: "cows", Set: "n=20", Fold: 0, Tag: StageCoverage}, Error: "boom"},
		row(grid.Job{Dataset: "cows", Set: "k=4", Tag: StageC4}, map[string]float64{"images": 4, "edges": 40, "nonsubmodular_test": 0.25, "converged": 1, "iterations": 7}),
		row(grid.Job{Dataset: "cows", Set: "k=1", Tag: StageC4}, map[string]float64{"images": 1, "edges": 10, "nonsubmodular_test": 0.5}),
	}
	// Control rows in 2 dimensions lying on 3 · log(n)/n: the fitted scale is 3.
	for _, n := range []int{10, 100, 1000, 10000} {
		y := 3 * math.Log(float64(n)) / float64(n)
		rows = append(rows, row(grid.Job{Dataset: "uniform-2d", Set: sizeLabel("n", n), Tag: StageControl}, map[string]float64{"outside_hull": y}))
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
	for _, r := range rows {
		m := r.Metrics
		if r.Tag != StageC4 && !(0 <= m["outside_cone"] && m["outside_cone"] <= m["outside_hull"] && m["outside_hull"] <= 1) {
			t.Errorf("%s: outside cone %g, hull %g; want 0 ≤ cone ≤ hull ≤ 1", r.Key(), m["outside_cone"], m["outside_hull"])
		}
	}
	pts := sc.C4(rows)
	if len(pts) != 2 || pts[0].Edges >= pts[1].Edges || pts[1].OwnOutsideCone > pts[1].OwnOutsideHull {
		t.Errorf("C4 points %+v", pts)
	}
	if cov := sc.Coverage(rows, "cows"); len(cov) != 3 || cov[0].OutsideHull < cov[2].OutsideHull {
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
