package retina

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/datadir"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/protocol/protocoltest"
)

func TestRetinaJobs(t *testing.T) {
	r := Experiment{}
	for _, tc := range []struct {
		p       protocol.Profile
		listed  int // before any row: the selection fits, or the finals with one C
		stageOf string
	}{{protocol.Full, 7 * 5 * 40, "select"}, {protocol.Quick, 6 * 2, "final"}, {protocol.Tiny, 3 * 2 * 2, "select"}} {
		jobs, err := r.Jobs(tc.p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != tc.listed {
			t.Errorf("%s: %d jobs listed, want %d", tc.p, len(jobs), tc.listed)
		}
		for _, j := range jobs {
			if j.Tag != tc.stageOf || j.Dataset != "retina" || j.Loss != "avg" {
				t.Fatalf("%s: job %s, want dataset retina, loss avg, stage %s", tc.p, j.Key(), tc.stageOf)
			}
		}
	}
	// The full profile is the paper's protocol on 50 horses.
	s := r.Settings(protocol.Full)
	if s.Images != 50 || s.Folds != 40 || s.Test != 10 || s.Tol != 1e-4 || !slices.Contains(s.Sets, "QPBO") {
		t.Errorf("full settings %+v, want 50 images, 40 folds of 40/10, tolerance 1e-4, a QPBO column", s)
	}
}

// retinaRow is a final row of the tiny profile's columns.
func retinaRow(set string, fold int, cavg, iou, voc, nonsub float64) grid.Result {
	return grid.Result{Job: grid.Job{Dataset: "retina", Set: set, Loss: "avg", C: 1, Fold: fold, Tag: "final"},
		Metrics: map[string]float64{"test_cavg": cavg, "test_iou": iou, "test_voc": voc, "nonsub_test": nonsub}}
}

// TestRetinaTables checks the tables against rows computed by hand.
func TestRetinaTables(t *testing.T) {
	r, s := Experiment{}, Experiment{}.Settings(protocol.Tiny)
	rows := []grid.Result{
		retinaRow("C0", 0, 0.6, 0.2, 0.4, 0), retinaRow("C0", 1, 0.8, 0.4, 0.6, 0),
		retinaRow("C4", 0, 0.8, 0.3, 0.5, 0.01), retinaRow("C4", 1, 0.9, 0.5, 0.7, 0.03),
		retinaRow("QPBO", 0, 0.7, 0.3, 0.5, 0.2), retinaRow("QPBO", 1, 0.6, 0.5, 0.5, 0.1),
	}
	c := r.Scores(protocol.Rows(rows), s)
	if !reflect.DeepEqual(c.Cols, []string{"C0", "C4", "QPBO"}) || len(c.Ours) != 3 {
		t.Fatalf("scores: columns %v, %d rows", c.Cols, len(c.Ours))
	}
	want := [][]float64{{70, 85, 65}, {30, 40, 40}, {50, 60, 50}}
	for i := range want {
		for k := range want[i] {
			if math.Abs(c.Ours[i][k]-want[i][k]) > 1e-9 {
				t.Errorf("scores[%s][%s] = %g, want %g", c.Rows[i], c.Cols[k], c.Ours[i][k], want[i][k])
			}
		}
	}
	if c.Paper[0][1] != 96.6 || c.Paper[2][2] != 81.7 {
		t.Errorf("paper values C4 1−Δ_avg %g, QPBO VOC %g; want 96.6, 81.7", c.Paper[0][1], c.Paper[2][2])
	}
	if h := r.Headline(protocol.Rows(rows), s); !strings.Contains(h, "ours 85.0 vs NaN") || !strings.Contains(h, "paper 96.6 vs NaN") {
		t.Errorf("headline without C2 = %q", h)
	}
	b := r.ScoreBars(protocol.Rows(rows), s)
	// C4's test 1−Δ_avg: mean 85, standard error sd/√2 = 0.0707/√2 = 5 points.
	if math.Abs(b.Series[0].Values[1]-85) > 1e-9 || math.Abs(b.Series[0].Errors[1]-5) > 1e-9 {
		t.Errorf("bars C4: %g ± %g, want 85 ± 5", b.Series[0].Values[1], b.Series[0].Errors[1])
	}
	// Only the pair C4–QPBO runs in the tiny profile. Its test 1−Δ_avg
	// differences are 0.1 and 0.3: t = 0.2 / (0.1414/√2) = 2 with one degree
	// of freedom, where Student's t is Cauchy: p = 1 − (2/π)·atan(2).
	tt := r.PairedTests(protocol.Rows(rows), s)
	if len(tt.Rows) != 3 {
		t.Fatalf("paired tests: %v, want C4 vs QPBO on 3 metrics", tt.Rows)
	}
	p := 1 - 2/math.Pi*math.Atan(2)
	wantT := fmt.Sprintf("t = 2.00, p = %.2g", p)
	if got := tt.Rows[0]; got[0] != "test_cavg" || got[1] != "C4 vs QPBO" || got[2] != "85.0 vs 65.0" || got[3] != "2" || got[4] != wantT {
		t.Errorf("paired test row %v, want test_cavg, C4 vs QPBO, 85.0 vs 65.0, 2 folds, %s", got, wantT)
	}
	ns := r.NonSubmodular(protocol.Rows(rows), s)
	if math.Abs(ns.Ours[1][0]-2) > 1e-9 || math.Abs(ns.Ours[2][0]-15) > 1e-9 || ns.Paper[1][0] != 1 || !math.IsNaN(ns.Paper[2][0]) {
		t.Errorf("non-submodular: ours %v, paper %v; want C4 2 %% (paper 1), QPBO 15 %% (no paper value)", ns.Ours, ns.Paper)
	}
}

// TestRetinaTiny runs the tiny profile on the real horses whole and in two
// shards: the random folds hold out 2 of 6 images each, every final fit
// converges and saves a model that FinalModel loads and PredictAs applies
// with the column's own inference, and the merged shards equal the whole
// run.
func TestRetinaTiny(t *testing.T) {
	datadir.Need(t, "weizmann_horse")
	dir := t.TempDir()
	r := Experiment{}
	opts := func(name string, s protocol.Shard) protocol.Options {
		return protocol.Options{Profile: protocol.Tiny, Shard: s, Results: filepath.Join(dir, name+".jsonl"), Models: filepath.Join(dir, "models-"+name), Workers: 2}
	}
	whole, err := r.Run(context.Background(), opts("whole", protocol.Shard{}))
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != 12+6 {
		t.Fatalf("whole run: %d rows, want 12 selection and 6 final fits", len(whole))
	}
	set, err := r.Build(protocol.Tiny, nil)
	if err != nil {
		t.Fatal(err)
	}
	folds, err := r.Folds(protocol.Tiny, set)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Items) != 6 || len(folds) != 2 {
		t.Fatalf("%d images, %d folds; want 6 and 2", len(set.Items), len(folds))
	}
	for f, fold := range folds {
		if len(fold.Test) != 2 || len(fold.Train) != 4 {
			t.Errorf("fold %d: %d train / %d test, want 4/2", f, len(fold.Train), len(fold.Test))
		}
	}
	for _, tr := range protocol.Tagged(whole, "final") {
		row := tr.Job
		if !tr.Metrics.Converged || tr.Error != "" {
			t.Errorf("final fit %s did not converge: %+v, %s", row.Key(), tr.Metrics.Fit, tr.Error)
		}
		model, err := protocol.FinalModel(r, opts("whole", protocol.Shard{}), row.Set, row.Loss, row.Fold)
		if err != nil {
			t.Fatalf("final model of %s: %v", row.Key(), err)
		}
		it := set.Items[folds[row.Fold].Test[0]]
		y, err := protocol.PredictAs(model, &it.Instance, row.Set)
		if err != nil {
			t.Fatal(err)
		}
		px, err := protocol.PixelLabels(it, y, 0)
		if err != nil || len(px) != it.Regions.Width*it.Regions.Height {
			t.Errorf("%s: %d pixel labels (%v)", row.Key(), len(px), err)
		}
	}
	protocoltest.ShardsMergeToWhole(t, r, protocol.Tiny, dir, opts, whole)
}
