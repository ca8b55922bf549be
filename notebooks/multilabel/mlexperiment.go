package multilabel

// Experiment runner of notebook 05 (multi-label classification,
// notebooks/TARGETS.md §5): every column of the paper's table (C0, C2, C4,
// TGC, QPBO, TRW-S) is trained on the graphs of data.BuildMultiLabel and scored by
// Hamming accuracy 1 − Δ on the training and the test examples, with the
// standard error of the per-example Hamming accuracy across examples.

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// Trainer trains and scores one column of the multi-label table
// per job. Its Run method is a grid.JobFunc for grid.Run: job.Dataset names an
// entry of Problems, job.Set a column (ColumnByName: "C0", "C2", "C4", "TGC",
// "QPBO", "TRWS"), job.Loss the loss (psub.LossByName; the paper's is "hamming")
// and job.C the regularisation constant (the paper's 0.1). Job.Fold is unused
// (the data sets come with one train/test split).
type Trainer struct {
	Problems map[string]*data.MultiLabelProblem
	// Tol, MaxIter, Delayed, AddK and Workers go to psub.Settings (the
	// paper: Tol 1e-2, MaxIter 200). Workers 0 means all cores: set 1 when
	// grid.Run runs jobs in parallel.
	Tol     float64
	MaxIter int
	Delayed bool
	AddK    int
	Workers int
	// Checkpoints, when set, is the psub.Settings.CheckpointDir of every
	// training: a job interrupted (a closed notebook, an ended session)
	// resumes from its last cutting-plane iteration when run again, also
	// when it was stopped after its training, while scoring (see TrainJob).
	Checkpoints string
	// Progress, when set, is called after every cutting-plane iteration of
	// every job (from the job's goroutine).
	Progress func(job grid.Job, it psub.Iteration)

	// prep holds each problem's training graphs prepared (psub.Prepare),
	// at its first job: the jobs of a problem train and score on them.
	// The test graphs are checked against each model when scored, as a
	// bad one is refused naming it.
	mu   sync.Mutex
	prep map[*data.MultiLabelProblem]*preparedProblem
}

// preparedProblem is a problem's training graphs prepared, and the slice
// they were prepared from (prepared again when the problem's changes).
type preparedProblem struct {
	train []psub.Instance
	set   *psub.Prepared
}

// prepared returns p's training graphs prepared for two labels.
func (e *Trainer) prepared(p *data.MultiLabelProblem) (*psub.Prepared, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c := e.prep[p]; c != nil && sameSlice(c.train, p.Train) {
		return c.set, nil
	}
	set, err := psub.Prepare(p.Train, 2)
	if err != nil {
		return nil, fmt.Errorf("training graphs: %w", err)
	}
	if e.prep == nil {
		e.prep = map[*data.MultiLabelProblem]*preparedProblem{}
	}
	e.prep[p] = &preparedProblem{train: p.Train, set: set}
	return set, nil
}

func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Run trains job.Set on the training graphs of job.Dataset and scores it.
// Metrics: train_acc, train_se, test_acc, test_se (Hamming accuracy and the
// standard error of the per-example Hamming accuracy across examples, see
// HammingStats), nonsub_test (fraction of non-submodular test edges under
// the model), truncated_test (edges TGC truncated when predicting the test
// set, for the columns predicted by TGC), and the training metrics of
// TrainJob: iterations, stop and converged (StopLabel says it in words),
// what the certificate found (hard_violated, qp_missed, problems, scale),
// primal, gap, hard_introduced, hard_active, train_seconds (all runs of a
// resumed training) and resumed (how often it was resumed from a
// checkpoint). The scoring is done before the training's checkpoint is
// removed (see TrainJob).
func (e *Trainer) Run(ctx context.Context, job grid.Job) (map[string]float64, error) {
	p, ok := e.Problems[job.Dataset]
	if !ok || p == nil {
		return nil, fmt.Errorf("multi-label job %s: no problem %q", job.Key(), job.Dataset)
	}
	base := psub.Settings{Tol: e.Tol, MaxIter: e.MaxIter, Delayed: e.Delayed, Workers: e.Workers,
		CheckpointDir: e.Checkpoints, Tuning: psub.Tuning{AddK: e.AddK},
		Description: fmt.Sprintf("%s %s %s C=%g", job.Dataset, job.Set, job.Loss, job.C)}
	if e.Progress != nil {
		base.Progress = func(it psub.Iteration) { e.Progress(job, it) }
	}
	prep, err := e.prepared(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", job.Dataset, err)
	}
	m, err := protocol.TrainJob(ctx, job, prep, p.Test, base, nil, func(model *psub.Model, col protocol.Column, m map[string]float64) error {
		return scoreMultiLabel(model, col, p, prep, m)
	})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", job.Dataset, job.Set, err)
	}
	return m, nil
}

// scoreMultiLabel records the scores of Run in m.
func scoreMultiLabel(model *psub.Model, col protocol.Column, p *data.MultiLabelProblem, train *psub.Prepared, m map[string]float64) error {
	for _, part := range []struct {
		prefix string
		set    []psub.Instance
		prep   *psub.Prepared // nil: scored unprepared
	}{{"train_", p.Train, train}, {"test_", p.Test, nil}} {
		var ev psub.Evaluation
		var err error
		if part.prep != nil {
			ev, err = model.EvaluatePrepared(part.prep, col.Test)
		} else {
			ev, err = model.EvaluateWith(part.set, col.Test)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", part.prefix[:len(part.prefix)-1], err)
		}
		truth, pred := make([][]int, len(part.set)), make([][]int, len(part.set))
		for i := range part.set {
			truth[i], pred[i] = part.set[i].Labels, ev.Predictions[i].Labels
		}
		// Per example, not pooled as ev.Accuracy: the paper's mean and
		// its standard error.
		mean, se, err := HammingStats(truth, pred)
		if err != nil {
			return err
		}
		m[part.prefix+"acc"], m[part.prefix+"se"] = mean, se
		if part.prefix == "test_" {
			m["truncated_test"] = float64(ev.Truncated)
		}
	}
	var err error
	m["nonsub_test"], err = model.NonSubmodularFraction(p.Test, 0)
	return err
}

// HammingStats is the mean over examples of the per-example Hamming accuracy
// a_i = (labels of example i predicted right)/(labels of example i), and its
// standard error sd(a)/√n across the n examples (0 for one example). With
// the same number of labels in every example (multi-label data) the mean is
// feature.HammingAccuracy, 1 − Δ with Δ the Hamming loss.
func HammingStats(truth, pred [][]int) (mean, se float64, err error) {
	n := len(truth)
	if n == 0 || len(pred) != n {
		return math.NaN(), math.NaN(), fmt.Errorf("hamming: %d truth rows, %d predictions (want the same, > 0)", n, len(pred))
	}
	acc := make([]float64, n)
	for i := range truth {
		if len(truth[i]) == 0 || len(pred[i]) != len(truth[i]) {
			return math.NaN(), math.NaN(), fmt.Errorf("hamming: example %d has %d labels, %d predicted (want the same, > 0)", i, len(truth[i]), len(pred[i]))
		}
		right := 0
		for k, y := range truth[i] {
			if pred[i][k] == y {
				right++
			}
		}
		acc[i] = float64(right) / float64(len(truth[i]))
		mean += acc[i]
	}
	mean /= float64(n)
	if n > 1 {
		ss := 0.0
		for _, a := range acc {
			ss += (a - mean) * (a - mean)
		}
		se = math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	}
	return mean, se, nil
}

// Columns are the paper's columns, in the table's order.
func Columns() []string { return []string{"C0", "C2", "C4", "TGC", "QPBO", "TRWS"} }

// Params is what the results of a Trainer on one data
// set depend on besides the job. Workers, Checkpoints and Progress change
// how, not what.
type Params struct {
	Tol     float64
	MaxIter int
	Delayed bool
	AddK    int
	Data    string // protocol.InstancesDigest of the training and test graphs
}

// Params returns e's Params for the problem named dataset (Data
// is "" when e has no such problem).
func (e *Trainer) Params(dataset string) Params {
	p := Params{Tol: e.Tol, MaxIter: e.MaxIter, Delayed: e.Delayed, AddK: e.AddK}
	if pr := e.Problems[dataset]; pr != nil {
		p.Data = protocol.InstancesDigest(pr.Train, pr.Test)
	}
	return p
}
