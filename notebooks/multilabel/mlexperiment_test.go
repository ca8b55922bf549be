package multilabel

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
)

func TestHammingStats(t *testing.T) {
	for _, tc := range []struct {
		name        string
		truth, pred [][]int
		mean, se    float64
		wantErr     bool
	}{
		// Per-example accuracies 1 and 0.5: mean 0.75, sd √(1/8), se sd/√2 = 0.25.
		{name: "two examples", truth: [][]int{{1, 0}, {1, 1}}, pred: [][]int{{1, 0}, {0, 1}}, mean: 0.75, se: 0.25},
		{name: "all right", truth: [][]int{{1, 0, 1}, {0, 0, 0}, {1, 1, 1}}, pred: [][]int{{1, 0, 1}, {0, 0, 0}, {1, 1, 1}}, mean: 1, se: 0},
		{name: "one example", truth: [][]int{{1, 0, 0, 1}}, pred: [][]int{{1, 1, 0, 0}}, mean: 0.5, se: 0},
		{name: "empty", wantErr: true},
		{name: "row count", truth: [][]int{{1}}, pred: [][]int{{1}, {0}}, wantErr: true},
		{name: "label count", truth: [][]int{{1, 0}}, pred: [][]int{{1}}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mean, se, err := HammingStats(tc.truth, tc.pred)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if math.Abs(mean-tc.mean) > 1e-12 || math.Abs(se-tc.se) > 1e-12 {
				t.Errorf("got %v ± %v, want %v ± %v", mean, se, tc.mean, tc.se)
			}
			if acc, _ := feature.HammingAccuracy(tc.truth, tc.pred); math.Abs(acc-mean) > 1e-12 {
				t.Errorf("mean %v differs from feature.HammingAccuracy %v", mean, acc)
			}
		})
	}
}

// smallMultiLabel is a synthetic multi-label problem (4 labels, 6
// features) with train and test examples.
func smallMultiLabel(t *testing.T, seed uint64, train, test int) *data.MultiLabelProblem {
	t.Helper()
	tr, te := data.SyntheticMultiLabel(data.SyntheticMultiLabelOptions{Seed: seed, Train: train, Test: test, Labels: 4, Features: 6})
	p, err := data.BuildMultiLabel(tr, te, data.MultiLabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The runner's test accuracy is that of the model's own predictions, scored
// independently; every column trains and returns its metrics; pairwise
// columns beat C0 on the synthetic problem built for it.
func TestMultiLabelExperiment(t *testing.T) {
	p := smallMultiLabel(t, 3, 60, 60)
	e := &Trainer{Problems: map[string]*data.MultiLabelProblem{"syn": p}, Tol: 1e-2, MaxIter: 100, Delayed: true, Workers: 1}
	cols := Columns()
	if testing.Short() {
		cols = []string{"C0", "C2", "TGC"}
	}
	acc := map[string]float64{}
	for _, col := range cols {
		job := grid.Job{Dataset: "syn", Set: col, Loss: "hamming", C: 0.1}
		m, err := e.Run(context.Background(), job)
		if err != nil {
			t.Fatalf("%s: %v", col, err)
		}
		for _, k := range []string{"train_acc", "train_se", "test_acc", "test_se", "iterations", "nonsub_test"} {
			if _, ok := m[k]; !ok {
				t.Errorf("%s: metric %s missing", col, k)
			}
		}
		if m["test_se"] <= 0 || m["test_se"] > 0.1 {
			t.Errorf("%s: test standard error %v outside (0, 0.1]", col, m["test_se"])
		}
		acc[col] = m["test_acc"]
	}
	// Independent scoring of C0: retrain with the same settings, predict by
	// hand and score with feature.HammingAccuracy.
	model, _, err := psub.Train(p.Train, 2, psub.Settings{C: 0.1, Tol: 1e-2, MaxIter: 100, Set: psub.C0{}, Delayed: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var truth, pred [][]int
	for i := range p.Test {
		y, err := model.Predict(&p.Test[i])
		if err != nil {
			t.Fatal(err)
		}
		truth, pred = append(truth, p.Test[i].Labels), append(pred, y.Labels)
	}
	if want, _ := feature.HammingAccuracy(truth, pred); math.Abs(acc["C0"]-want) > 1e-12 {
		t.Errorf("C0 test accuracy %v, independent scoring %v", acc["C0"], want)
	}
	if acc["C2"] <= acc["C0"] {
		t.Errorf("C2 test accuracy %v not above C0's %v on the synthetic problem", acc["C2"], acc["C0"])
	}
	if _, err := e.Run(context.Background(), grid.Job{Dataset: "nope", Set: "C0", Loss: "hamming", C: 0.1}); err == nil {
		t.Error("unknown data set accepted")
	}
	if _, err := e.Run(context.Background(), grid.Job{Dataset: "syn", Set: "C9", Loss: "hamming", C: 0.1}); err == nil {
		t.Error("unknown column accepted")
	}
}

// With Checkpoints, a job stopped by its iteration limit is continued, not
// restarted, by a run with a larger limit, and says so in its metrics.
func TestMultiLabelExperimentResumes(t *testing.T) {
	p := smallMultiLabel(t, 4, 40, 20)
	dir := t.TempDir()
	job := grid.Job{Dataset: "syn", Set: "C4", Loss: "hamming", C: 10}
	e := &Trainer{Problems: map[string]*data.MultiLabelProblem{"syn": p}, Tol: 1e-3, MaxIter: 3, Delayed: true, AddK: 10, Workers: 1, Checkpoints: dir}
	first, err := e.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if first["converged"] != 0 || first["resumed"] != 0 {
		t.Fatalf("3 iterations: converged %v, resumed %v; want a stopped fresh run", first["converged"], first["resumed"])
	}
	e.MaxIter = 200
	m, err := e.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if m["converged"] != 1 || m["resumed"] != 1 || m["iterations"] <= 3 {
		t.Errorf("continued: converged %v, resumed %v, iterations %v; want converged after resuming at 3", m["converged"], m["resumed"], m["iterations"])
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("a converged job left %v", left)
	}
}

// A job whose scoring fails after its training converged keeps the
// training's checkpoint (the scores are made before it goes): the next run
// resumes the converged fit instead of training again. The metrics carry
// what the certificate found.
func TestMultiLabelExperimentKeepsFitUntilScored(t *testing.T) {
	p := smallMultiLabel(t, 4, 40, 20)
	dir := t.TempDir()
	job := grid.Job{Dataset: "syn", Set: "C4", Loss: "hamming", C: 10}
	// A test example with a pairwise feature too many: predicting it fails.
	good := p.Test[0].Pairwise
	bad := make([][]float64, len(good))
	for k, row := range good {
		bad[k] = append(append([]float64(nil), row...), 0)
	}
	p.Test[0].Pairwise = bad
	e := &Trainer{Problems: map[string]*data.MultiLabelProblem{"syn": p}, Tol: 1e-3, MaxIter: 200, Delayed: true, AddK: 10, Workers: 1, Checkpoints: dir}
	if _, err := e.Run(context.Background(), job); err == nil || !strings.Contains(err.Error(), "test: instance 0") || !strings.Contains(err.Error(), "is kept") {
		t.Fatalf("scoring a bad test example: err %v, want its error and the kept checkpoint", err)
	}
	if f, _ := filepath.Glob(filepath.Join(dir, "*.ckpt")); len(f) != 1 {
		t.Fatalf("after the failed scoring %s holds %v, want the checkpoint", dir, f)
	}
	p.Test[0].Pairwise = good
	m, err := e.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if m["resumed"] != 1 || m["converged"] != 1 || m["problems"] != 0 || m["qp_missed"] != 0 || m["hard_violated"] != 0 {
		t.Errorf("rerun: resumed %v, converged %v, problems %v, qp_missed %v, hard_violated %v; want a certified fit resumed from the checkpoint",
			m["resumed"], m["converged"], m["problems"], m["qp_missed"], m["hard_violated"])
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("a stored job left %v", left)
	}
}

// The experiment runners record the learner's stop reason: a TRW-S column
// cut off after 2 iterations says "iteration cap", the same column given
// room stops by its rule.
func TestMultiLabelRecordsStop(t *testing.T) {
	tr, te := data.SyntheticMultiLabel(data.SyntheticMultiLabelOptions{Seed: 5, Train: 40, Test: 20, Labels: 4, Features: 6})
	p, err := data.BuildMultiLabel(tr, te, data.MultiLabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job := grid.Job{Dataset: "syn", Set: "TRWS", Loss: "hamming", C: 10}
	for _, tc := range []struct {
		maxIter int
		capped  bool
	}{{2, true}, {200, false}} {
		e := &Trainer{Problems: map[string]*data.MultiLabelProblem{"syn": p}, Tol: 1e-2, MaxIter: tc.maxIter, Workers: 1}
		m, err := e.Run(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		stop, conv, ok := grid.StopOf(m)
		if !ok || conv == tc.capped || (stop == psub.StopMaxIter) != tc.capped || m["converged"] != protocol.BoolMetric(!tc.capped) {
			t.Errorf("MaxIter %d: stop %v (recorded %v), converged %v, after %v iterations; want capped %v",
				tc.maxIter, stop, ok, m["converged"], m["iterations"], tc.capped)
		}
		t.Logf("MaxIter %d: %v iterations, %s", tc.maxIter, m["iterations"], grid.StopLabel(stop, m["gap"]))
	}
}
