package efficiency

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// Paper is the paper's efficiency table: margins computed (10⁶),
// SSVM iterations, constraint generation (s) and total training (s) of the
// definitely submodular row, 1-pass full, 1-pass delayed and 2-pass delayed
// (NaN: none).
var Paper = [][]float64{
	{math.NaN(), 296, math.NaN(), 607},
	{102.5, 581, 400, 593},
	{67.9, 581, 329, 652},
	{6.5, 658, 41, 555},
}

// Results are the rows as data.EfficiencyResults in the order of Configs,
// each Trace holding only what the curves need (the margins of every QP
// call and iteration; MarginCurves, MarginsPerIteration). It
// fails when a configuration has no successful row.
func (e Experiment) Results(p protocol.Profile, rows []grid.Result) ([]Result, error) {
	typed, _ := grid.Rows[Job, Result](rows) // a row that does not read is failed
	by := map[Job]grid.Row[Job, Result]{}
	for _, r := range typed {
		by[r.Job] = r
	}
	var out []Result
	for _, j := range e.jobs(p) {
		r, ok := by[j]
		switch {
		case !ok:
			return nil, fmt.Errorf("efficiency %s: no row of %q", p, j.Config)
		case r.Error != "":
			return nil, fmt.Errorf("efficiency %s: %q failed: %s", p, j.Config, r.Error)
		}
		var c Curves
		if err := json.Unmarshal(r.Detail, &c); err != nil || len(c.Iters) != len(c.IterMargins) {
			return nil, fmt.Errorf("efficiency %s: %q: no curves in its row's detail (%v)", p, j.Config, err)
		}
		tr := &psub.Trace{}
		for _, m := range c.QPMargins {
			tr.QPCalls = append(tr.QPCalls, psub.QPCall{Margins: m})
		}
		for i, it := range c.Iters {
			tr.Iterations = append(tr.Iterations, psub.Iteration{Iter: it, Margins: c.IterMargins[i]})
		}
		res := r.Metrics
		res.Name, res.Trace = j.Config, tr
		out = append(out, res)
	}
	return out, nil
}

// Table lists every configuration's numbers.
func (Experiment) Table(rs []Result) protocol.Table {
	t := protocol.Table{Title: "efficiency: every configuration", Header: []string{"configuration", "margins computed", "SSVM iterations",
		"constraint gen. s", "total s (wall)", "total s (CPU)", "converged", "hard active / introduced", "final primal"}}
	for _, r := range rs {
		t.Rows = append(t.Rows, []string{r.Name, strconv.FormatInt(r.Margins, 10), strconv.Itoa(r.Iterations),
			fmt.Sprintf("%.2f", r.ConstraintSeconds), fmt.Sprintf("%.2f", r.Seconds), fmt.Sprintf("%.2f", r.CPUSeconds),
			strconv.FormatBool(bool(r.Converged)), fmt.Sprintf("%d / %d", r.ActiveHard, r.HardIntroduced), fmt.Sprintf("%.6g", r.Primal)})
	}
	return t
}

// absolute is four rows' values in the columns of Paper (the
// first row, definitely submodular, computes no margins).
func absolute(rs []Result) (names []string, ours [][]float64) {
	for i, r := range rs {
		names = append(names, r.Name)
		m, cg := float64(r.Margins)/1e6, r.ConstraintSeconds
		if i == 0 {
			m, cg = math.NaN(), math.NaN()
		}
		ours = append(ours, []float64{m, float64(r.Iterations), cg, r.Seconds})
	}
	return names, ours
}

var efficiencyCols = []string{"margins computed (10⁶)", "SSVM iterations", "constraint gen. (s)", "total training (s)"}

// Absolute is the paper's four rows beside ours (absolute values: margins
// in 10⁶, times in s, wall).
func (Experiment) Absolute(rs []Result) protocol.Comparison {
	names, ours := absolute(rs[:4])
	return protocol.Comparison{Title: "Efficiency, absolute (one fold; margins in 10⁶, times in s, wall)", Corner: "method",
		Rows: names, Cols: efficiencyCols, Paper: Paper, Ours: ours, Format: "%.3g", Factor: 2}
}

// TunedAbsolute is the same four rows in the tuned setting (results 6–9)
// beside the paper's.
func (Experiment) TunedAbsolute(rs []Result) protocol.Comparison {
	names, ours := absolute(rs[6:10])
	return protocol.Comparison{Title: "Tuned setting, absolute (one fold; margins in 10⁶, times in s, wall)", Corner: "method",
		Rows: names, Cols: efficiencyCols, Paper: Paper, Ours: ours, Format: "%.3g", Factor: 2}
}

// Ratios compares what can be compared across machines and problem sizes:
// margins and constraint-generation time relative to 1-pass full,
// iterations and total time relative to the definitely submodular row (our
// total in process CPU seconds: wall time on a shared machine includes
// waiting for others).
func (Experiment) Ratios(rs []Result) protocol.Comparison {
	paper := Paper
	var pr, or [][]float64
	for i := range 4 {
		r := rs[i]
		om, oc := float64(r.Margins)/float64(rs[1].Margins), r.ConstraintSeconds/rs[1].ConstraintSeconds
		if i == 0 {
			om, oc = math.NaN(), math.NaN()
		}
		pr = append(pr, []float64{paper[i][0] / paper[1][0], paper[i][2] / paper[1][2], paper[i][1] / paper[0][1], paper[i][3] / paper[0][3]})
		or = append(or, []float64{om, oc, float64(r.Iterations) / float64(rs[0].Iterations), r.CPUSeconds / rs[0].CPUSeconds})
	}
	names, _ := absolute(rs[:4])
	return protocol.Comparison{Title: "Efficiency, ratios between rows", Corner: "method", Rows: names,
		Cols:  []string{"margins / 1-pass full", "constraint gen. / 1-pass full", "iterations / def. submodular", "total CPU time / def. submodular"},
		Paper: pr, Ours: or, Format: "%.2f", Factor: 1.25}
}

// Extra says the numbers of the rows the paper has no value for
// (minibatches, 2-pass full, and 2-pass delayed with the tight bound in the
// paper's setting when the results hold it).
func (Experiment) Extra(rs []Result) string {
	s := "extra rows (no paper value): "
	extra := rs[4:6]
	if len(rs) > 10 {
		extra = append(slices.Clip(extra), rs[10:]...)
	}
	for _, r := range extra {
		s += fmt.Sprintf("%s: %.3g·10⁶ margins, %d iterations, %.2f s constraint gen., %.2f s total;  ",
			r.Name, float64(r.Margins)/1e6, r.Iterations, r.ConstraintSeconds, r.Seconds)
	}
	return s
}

// Headline is 2-pass delayed's margins relative to 1-pass full, ours and the
// paper's, and the four rows' total training time.
func (e Experiment) Headline(rs []Result) string {
	ratios := e.Ratios(rs)
	_, ours := absolute(rs[:4])
	var oursTotal, paperTotal float64
	for i := range 4 {
		oursTotal, paperTotal = oursTotal+ours[i][3], paperTotal+Paper[i][3]
	}
	return fmt.Sprintf("margins computed by %s ÷ %s: ours %.2f, paper %.2f; total training of the four rows: ours %.0f s, paper %.0f s",
		rs[3].Name, rs[1].Name, ratios.Ours[3][0], ratios.Paper[3][0], oursTotal, paperTotal)
}

// Tuned compares each of the paper's four rows in the paper's setting
// (results 0–3) with the tuned one (6–9): margins, wall and CPU time, final
// primal; and says the four rows' wall time in both.
func (Experiment) Tuned(rs []Result) (protocol.Table, string) {
	t := protocol.Table{Title: "the paper's setting → the tuned one", Header: []string{"row", "margins (10⁶), paper's setting → tuned",
		"wall s", "CPU s", "final primal, paper's setting / tuned"}}
	total, totalPaper := 0.0, 0.0
	for i := range 4 {
		r, p := rs[6+i], rs[i]
		margins := "–"
		if p.Margins > 0 {
			margins = fmt.Sprintf("%.3g → %.3g (×%.2f)", float64(p.Margins)/1e6, float64(r.Margins)/1e6, float64(r.Margins)/float64(p.Margins))
		}
		t.Rows = append(t.Rows, []string{r.Name, margins, fmt.Sprintf("%.1f → %.1f", p.Seconds, r.Seconds),
			fmt.Sprintf("%.1f → %.1f", p.CPUSeconds, r.CPUSeconds), fmt.Sprintf("%.7g / %.7g", p.Primal, r.Primal)})
		total, totalPaper = total+r.Seconds, totalPaper+p.Seconds
	}
	return t, fmt.Sprintf("the four rows: %.1f s wall in the paper's setting, %.1f s in the tuned one", totalPaper, total)
}

// Curve is one configuration's curve; Place is its position in the
// results (a notebook colours it by that, the same in every chart).
type Curve struct {
	Name  string
	Place int
	X, Y  []float64
}

// Curves are the compute-gains curves of the named configurations: margins
// per QP call, or (running) their running total, against the QP call,
// points without margins left out (for log axes).
func (Experiment) Curves(rs []Result, names []string, running bool) ([]Curve, error) {
	return curves(rs, names, func(r Result) (x, y []float64) {
		x, per, run := MarginCurves(r.Trace)
		if running {
			return x, run
		}
		return x, per
	})
}

// IterationCurves are the running totals of margins per cutting-plane
// iteration of the named configurations.
func (Experiment) IterationCurves(rs []Result, names []string) ([]Curve, error) {
	return curves(rs, names, func(r Result) (x, y []float64) { return MarginsPerIteration(r.Trace) })
}

func curves(rs []Result, names []string, f func(Result) (x, y []float64)) ([]Curve, error) {
	var out []Curve
	for _, n := range names {
		i := place(rs, n)
		if i < 0 {
			return nil, fmt.Errorf("efficiency: no configuration %q", n)
		}
		x, y := Positive(f(rs[i]))
		out = append(out, Curve{Name: n, Place: i, X: x, Y: y})
	}
	return out, nil
}

// place is the position of configuration name in rs, -1 when absent.
func place(rs []Result, name string) int {
	return slices.IndexFunc(rs, func(r Result) bool { return r.Name == name })
}

// MinibatchRows are the rows the minibatch section compares: 1-pass and
// 2-pass delayed, and constraint minibatches.
func (Experiment) MinibatchRows(rs []Result) []string {
	return []string{"1-pass, delayed", "2-pass delayed", rs[4].Name}
}

// Minibatches is the margins computed (10⁶) by the minibatch section's
// rows, and one line per row with its margins, iterations and
// constraint-generation time.
func (e Experiment) Minibatches(rs []Result) (protocol.Bars, []string) {
	b := protocol.Bars{Title: "Delayed generation: 1 pass, 2 passes, minibatches", Unit: "margins computed (10⁶)"}
	s := protocol.BarSeries{Name: "margins (10⁶)"}
	var lines []string
	for _, n := range e.MinibatchRows(rs) {
		r := rs[place(rs, n)]
		b.Categories, s.Values = append(b.Categories, n), append(s.Values, float64(r.Margins)/1e6)
		lines = append(lines, fmt.Sprintf("%-26s %8.3g·10⁶ margins  %4d iterations  %6.2f s constraint generation",
			n, float64(r.Margins)/1e6, r.Iterations, r.ConstraintSeconds))
	}
	b.Series = []protocol.BarSeries{s}
	return b, lines
}
