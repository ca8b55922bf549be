package mito

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/datadir"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/protocol/protocoltest"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
)

func TestMitoJobs(t *testing.T) {
	m := Experiment{}
	for _, tc := range []struct {
		p      protocol.Profile
		listed int // before any row: the selection fits
	}{{protocol.Full, 8 * 11}, {protocol.Quick, 7 * 3}, {protocol.Tiny, 3 * 2}} {
		jobs, err := m.Jobs(tc.p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != tc.listed {
			t.Errorf("%s: %d jobs listed, want %d", tc.p, len(jobs), tc.listed)
		}
		for _, j := range jobs {
			if j.Tag != "select" || j.Dataset != "mito" || j.Loss != "avg" || j.Fold != 0 {
				t.Fatalf("%s: job %s, want dataset mito, loss avg, fold 0, stage select", tc.p, j.Key())
			}
		}
	}
	if s := m.Settings(protocol.Full); s.Crop != (data.MitoBox{}) || s.MaxIter != 5000 || s.Cs[0] != 1e-2 || s.Cs[10] != 1e3 {
		t.Errorf("full settings %+v, want the whole volumes, 5000 iterations, C from 1e-2 to 1e3", s)
	}
}

// TestMitoExperiments checks the split: selection trains on the first
// training half and validates on the second, the final fit trains on both.
func TestMitoExperiments(t *testing.T) {
	s := Experiment{}.Settings(protocol.Tiny)
	set := &data.SegmentedSet{Items: make([]*data.SegmentedImage, 3)}
	sel, final, err := s.Experiments(set, []data.Fold{{Train: []int{0, 1}, Test: []int{2}}}, protocol.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sel.Folds, []data.Fold{{Train: []int{0}, Test: []int{2}}}) || !reflect.DeepEqual(sel.Selection, []int{1}) || sel.HoldOut != 0 {
		t.Errorf("selection: folds %v, selection %v, hold-out %g; want train [0], validate [1], no hold-out", sel.Folds, sel.Selection, sel.HoldOut)
	}
	if !reflect.DeepEqual(final.Folds, []data.Fold{{Train: []int{0, 1}, Test: []int{2}}}) || final.Selection != nil {
		t.Errorf("final: folds %v, selection %v; want train [0 1], test [2]", final.Folds, final.Selection)
	}
	if _, _, err := s.Experiments(set, []data.Fold{{Train: []int{0}, Test: []int{2}}}, protocol.Options{}); err == nil {
		t.Error("a fold with one training item: no error")
	}
}

// mitoRow is a final row of one column.
func mitoRow(set string, trainCavg, testCavg, iou, voc, iters, nonsub float64) grid.Result {
	return grid.Result{Job: grid.Job{Dataset: "mito", Set: set, Loss: "avg", C: 1, Tag: "final"},
		Metrics: map[string]float64{"train_cavg": trainCavg, "test_cavg": testCavg, "test_iou": iou, "test_voc": voc,
			"iterations": iters, "nonsub_test": nonsub}}
}

// TestMitoTables checks the tables against rows and an oracle computed by
// hand.
func TestMitoTables(t *testing.T) {
	m, s := Experiment{}, Experiment{}.Settings(protocol.Tiny) // columns C0, C4, TGC
	final := protocol.Rows([]grid.Result{
		mitoRow("C0", 0.85, 0.8, 0.4, 0.7, 30, 0),
		mitoRow("C4", 0.99, 0.97, 0.7, 0.85, 140, 0.002),
		mitoRow("TGC", 0.9, 0.9, 0.6, 0.8, 25, 0.3),
	})
	// Truth 0 0 1 1 predicted 0 1 1 1: foreground IoU 2/3, background 1/2,
	// VOC their mean 7/12.
	oracle := feature.NewConfusion(2)
	if err := oracle.AddLabels([]int{0, 0, 1, 1}, []int{0, 1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	scores, iters := m.Scores(final, s, oracle)
	if want := []string{"C0", "C4", "TGC", "Oracle"}; !reflect.DeepEqual(scores.Cols, want) || !reflect.DeepEqual(iters.Cols, want) {
		t.Fatalf("columns %v and %v, want %v", scores.Cols, iters.Cols, want)
	}
	want := [][]float64{{85, 99, 90, math.NaN()}, {80, 97, 90, 100}, {40, 70, 60, 200.0 / 3}, {70, 85, 80, 700.0 / 12}}
	for i := range want {
		for k := range want[i] {
			if got := scores.Ours[i][k]; !(math.Abs(got-want[i][k]) < 1e-9 || math.IsNaN(got) && math.IsNaN(want[i][k])) {
				t.Errorf("scores[%s][%s] = %g, want %g", scores.Rows[i], scores.Cols[k], got, want[i][k])
			}
		}
	}
	if iters.Ours[0][1] != 140 || iters.Paper[0][1] != 3981 || scores.Paper[3][3] != 90.05 {
		t.Errorf("C4 iterations %g (paper %g), paper's oracle VOC %g; want 140 (3981), 90.05", iters.Ours[0][1], iters.Paper[0][1], scores.Paper[3][3])
	}
	// Only C4 of C1–C̄4 runs: 99 − 98.0 = +1.0 points, 140 iterations
	// against the paper's 3981.
	if got, want := m.AgainstPaper(final, s), "training 1−Δ_avg +1.0 to +1.0 points; 140–140 SSVM iterations against 3981–3981"; !strings.HasSuffix(got, want) {
		t.Errorf("against the paper: %q, want …%q", got, want)
	}
	if got, want := m.Headline(final, s), "test 1−Δ_avg: C4 ours 97.0 % (paper 96.2 %), C0 ours 80.0 % (paper 87.7 %)"; got != want {
		t.Errorf("headline %q, want %q", got, want)
	}
	b := m.ScoreBars(final, s)
	if len(b.Series) != 4 || b.Series[2].Values[2] != 60 || b.Series[0].Errors != nil {
		t.Errorf("bars %+v, want 4 series, TGC's IoU 60, no error bars", b)
	}
	ns := m.NonSubmodular(final, s)
	if math.Abs(ns.Ours[1][0]-0.2) > 1e-12 || ns.Paper[1][0] != 0.0035 || !math.IsNaN(ns.Paper[2][0]) {
		t.Errorf("non-submodular: ours %v, paper %v; want C4 0.2 %% (paper 0.0035), TGC no paper value", ns.Ours, ns.Paper)
	}
}

// TestMitoTiny runs the tiny profile on a crop of the real volumes whole and
// in two shards: selection fits train at the C of one training half (so
// they train on one half), every final fit saves a model that FinalModel
// loads and PredictAs applies with the column's own inference, and the
// merged shards equal the whole run.
func TestMitoTiny(t *testing.T) {
	datadir.Need(t, "epfl_mito")
	dir := t.TempDir()
	m := Experiment{}
	opts := func(name string, s protocol.Shard) protocol.Options {
		return protocol.Options{Profile: protocol.Tiny, Shard: s, Results: filepath.Join(dir, name+".jsonl"), Models: filepath.Join(dir, "models-"+name),
			Checkpoints: filepath.Join(dir, "checkpoints"), Workers: 2}
	}
	whole, err := m.Run(context.Background(), opts("whole", protocol.Shard{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != 6+3 {
		t.Fatalf("whole run: %d rows, want 6 selection and 3 final fits", len(whole))
	}
	set, folds, err := m.Build(protocol.Tiny, nil)
	if err != nil {
		t.Fatal(err)
	}
	half := []psub.Instance{set.Items[0].Instance}
	for _, row := range protocol.Tagged(whole, "select") {
		want, err := psub.PyStructCFor(row.Job.C, half, 2, psub.ClassAveraged{})
		if err != nil {
			t.Fatal(err)
		}
		if got := row.Metrics.CPsub; math.Abs(got-want) > 1e-12*want {
			t.Errorf("selection fit %s trained at psub's C = %g, want %g (the first half's)", row.Job.Key(), got, want)
		}
	}
	test := set.Items[folds[0].Test[0]]
	for _, tr := range protocol.Tagged(whole, "final") {
		row := tr.Job
		model, err := protocol.FinalModel(m, opts("whole", protocol.Shard{}), row.Set, row.Loss, row.Fold)
		if err != nil {
			t.Fatalf("final model of %s: %v", row.Key(), err)
		}
		y, err := protocol.PredictAs(model, &test.Instance, row.Set)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := protocol.PixelLabels(test, y, test.Image.Depth/2); err != nil {
			t.Errorf("%s: %v", row.Key(), err)
		}
	}
	protocoltest.ShardsMergeToWhole(t, m, protocol.Tiny, dir, opts, whole)
}
