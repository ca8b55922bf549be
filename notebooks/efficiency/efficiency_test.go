package efficiency

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

func TestEfficiencyJobs(t *testing.T) {
	e := Experiment{}
	for _, p := range protocol.Profiles() {
		jobs, err := e.Jobs(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != 11 {
			t.Errorf("%s: %d jobs, want 11 configurations", p, len(jobs))
		}
		seen := map[string]bool{}
		for _, j := range jobs {
			if seen[e.Group(j)] {
				t.Errorf("%s: group %s twice", p, e.Group(j))
			}
			seen[e.Group(j)] = true
		}
	}
	want := map[protocol.Profile]Settings{
		protocol.Full:  {Images: 0, Downscale: 1, Folds: 10, Fold: 0, PyStructC: 1, Minibatches: 4},
		protocol.Quick: {Images: 30, Downscale: 2, Folds: 10, Fold: 0, PyStructC: 1, Minibatches: 4},
	}
	for p, w := range want {
		if got := e.Settings(p); got != w {
			t.Errorf("%s settings %+v, notebook 02's %+v", p, got, w)
		}
	}
	names := []string{}
	for _, c := range e.Configs(protocol.Quick, 0.2) {
		names = append(names, c.Name)
		if c.Settings.C != 0.2 {
			t.Errorf("%s at C = %g, want 0.2", c.Name, c.Settings.C)
		}
	}
	if names[3] != "2-pass delayed" || names[4] != "4 minibatches, delayed" || names[5] != "2-pass full" || !strings.HasPrefix(names[6], "def. submodular") || names[10] != "2-pass delayed, tight" {
		t.Errorf("configurations %q", names)
	}
}

// efficiencyRows are result rows of the quick profile's jobs with made-up
// numbers: configuration i computes margins[i]·10⁶ margins in iters[i]
// iterations, spread over three QP calls (none in the first).
func efficiencyRows(t *testing.T, margins []float64, iters []int, cpu []float64) []grid.Result {
	jobs, _ := Experiment{}.Jobs(protocol.Quick, nil)
	var rows []grid.Result
	for i, j := range jobs {
		m := int64(margins[i] * 1e6)
		c := Curves{QPMargins: []int64{0, m / 2, m - m/2}, Iters: []int{1, 2}, IterMargins: []int64{m / 2, m - m/2}}
		d, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, grid.Result{Job: j, Detail: d, Metrics: map[string]float64{
			"margins": float64(m), "iterations": float64(iters[i]), "constraint_seconds": margins[i] / 10,
			"train_seconds": float64(iters[i]) / 10, "cpu_seconds": cpu[i], "converged": 1, "primal": 1 + float64(i)/100}})
	}
	return rows
}

func TestEfficiencyTables(t *testing.T) {
	e := Experiment{}
	margins := []float64{0, 100, 50, 10, 20, 40, 0, 80, 25, 5, 2}
	iters := []int{300, 600, 600, 660, 600, 700, 400, 600, 600, 650, 660}
	cpu := []float64{10, 20, 21, 15, 18, 19, 5, 19, 19, 12, 14}
	rs, err := e.Results(protocol.Quick, efficiencyRows(t, margins, iters, cpu))
	if err != nil {
		t.Fatal(err)
	}
	if rs[3].Name != "2-pass delayed" || rs[3].Margins != 10e6 || rs[3].Iterations != 660 {
		t.Errorf("result 3: %+v", rs[3])
	}
	// 2-pass delayed / 1-pass full: ours 10/100, the paper's 6.5/102.5;
	// the four rows' time 30 + 60 + 60 + 66 = 216 s, the paper's 607 + 593 + 652 + 555.
	if h := e.Headline(rs); h != "margins computed by 2-pass delayed ÷ 1-pass, full: ours 0.10, paper 0.06; total training of the four rows: ours 216 s, paper 2407 s" {
		t.Errorf("headline %q", h)
	}
	r := e.Ratios(rs)
	if !math.IsNaN(r.Ours[0][0]) || r.Ours[2][0] != 0.5 || r.Ours[3][2] != 2.2 || r.Ours[1][3] != 2 || r.Paper[1][2] != 581.0/296 {
		t.Errorf("ratios %v, paper %v", r.Ours, r.Paper)
	}
	abs := e.TunedAbsolute(rs)
	if abs.Rows[3] != rs[9].Name || abs.Ours[3][0] != 5 || !math.IsNaN(abs.Ours[0][0]) || abs.Ours[0][1] != 400 {
		t.Errorf("tuned absolute %v %v", abs.Rows, abs.Ours)
	}
	tab, line := e.Tuned(rs)
	if tab.Rows[3][1] != "10 → 5 (×0.50)" || tab.Rows[0][1] != "–" || line != "the four rows: 216.0 s wall in the paper's setting, 225.0 s in the tuned one" {
		t.Errorf("tuned %q, %q", tab.Rows, line)
	}
	cs, err := e.Curves(rs, []string{"2-pass delayed", "1-pass, full"}, true)
	// Running totals 0, 5·10⁶, 10·10⁶ over the QP calls: the zero is left out.
	if err != nil || cs[0].Place != 3 || !reflect.DeepEqual(cs[0].X, []float64{2, 3}) || !reflect.DeepEqual(cs[0].Y, []float64{5e6, 10e6}) {
		t.Errorf("curves %+v, %v", cs, err)
	}
	if _, err := e.Curves(rs, []string{"3-pass"}, false); err == nil {
		t.Error("curve of an unknown configuration: no error")
	}
	it, _ := e.IterationCurves(rs, []string{"1-pass, full"})
	if !reflect.DeepEqual(it[0].Y, []float64{50e6, 100e6}) {
		t.Errorf("iteration curve %v", it[0].Y)
	}
	b, lines := e.Minibatches(rs)
	if !reflect.DeepEqual(b.Series[0].Values, []float64{50, 10, 20}) || len(lines) != 3 || !strings.Contains(lines[2], "600 iterations") {
		t.Errorf("minibatches %+v %q", b, lines)
	}
	if x := e.Extra(rs); !strings.Contains(x, "4 minibatches, delayed: 20·10⁶ margins, 600 iterations") ||
		!strings.Contains(x, "2-pass delayed, tight: 2·10⁶ margins, 660 iterations") {
		t.Errorf("extra %q", x)
	}
	rows := efficiencyRows(t, margins, iters, cpu)
	rows[2].Detail = nil
	if _, err := e.Results(protocol.Quick, rows); err == nil {
		t.Error("a row without curves: no error")
	}
	if _, err := e.Results(protocol.Quick, rows[1:]); err == nil {
		t.Error("a missing configuration: no error")
	}
}

// TestEfficiencyTiny runs the tiny profile on the real cows: Algorithms 1
// and 2 take the same path (the delayed bound only skips margins that
// cannot be violated), the tuned rows reach the same optimum, every row's
// QP-call curve adds up to its margins, and two shards merge with the whole
// run (the same metrics and curves).
func TestEfficiencyTiny(t *testing.T) {
	e := Experiment{}
	if _, err := e.Build(protocol.Tiny, nil); errors.Is(err, data.ErrNotFound) {
		t.Skip(err)
	} else if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rows, err := e.Run(context.Background(), protocol.Options{Profile: protocol.Tiny, Results: filepath.Join(dir, "whole.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := e.Results(protocol.Tiny, rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		_, _, run := MarginCurves(r.Trace)
		_, perIter := MarginsPerIteration(r.Trace)
		// Margins computed after the last iteration (the final check) are
		// in no iteration's count.
		if len(run) == 0 || int64(run[len(run)-1]) != r.Margins || int64(perIter[len(perIter)-1]) > r.Margins {
			t.Errorf("%s: curves end at %v (per QP call) and %v (per iteration), want %d and at most that", r.Name, run[len(run)-1:], perIter[len(perIter)-1:], r.Margins)
		}
	}
	full, delayed := rs[1], rs[2]
	if full.Iterations != delayed.Iterations || full.HardIntroduced != delayed.HardIntroduced ||
		math.Abs(full.Primal-delayed.Primal) > 1e-9*math.Abs(full.Primal) || delayed.Margins > full.Margins || rs[0].Margins != 0 {
		t.Errorf("1-pass full %+v\n1-pass delayed %+v\nwant the same path with fewer margins", full, delayed)
	}
	for i := range 4 { // each tuned row reaches its paper row's optimum, within the relative gap 1e-3
		if p, r := rs[i], rs[6+i]; !r.Converged || math.Abs(r.Primal-p.Primal) > 1e-3*p.Primal {
			t.Errorf("%s: final primal %g, %s's %g", r.Name, r.Primal, p.Name, p.Primal)
		}
	}
	// The tight bound only skips margins that cannot be violated: the same
	// path as the paper's 2-pass row, with at most its margins.
	if p, r := rs[3], rs[10]; r.Name != "2-pass delayed, tight" || r.Iterations != p.Iterations || r.HardIntroduced != p.HardIntroduced ||
		math.Abs(r.Primal-p.Primal) > 1e-9*math.Abs(p.Primal) || r.Margins > p.Margins {
		t.Errorf("%+v\nagainst %+v: want the same path with at most its margins", r, p)
	}
	var files []string
	for i := 1; i <= 2; i++ {
		f := filepath.Join(dir, "shard"+string(rune('0'+i))+".jsonl")
		if _, err := e.Run(context.Background(), protocol.Options{Profile: protocol.Tiny, Results: f, Shard: protocol.Shard{I: i, N: 2}}); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	out := filepath.Join(dir, "merged.jsonl")
	rep, err := protocol.Merge(e, protocol.Tiny, out, append(files, filepath.Join(dir, "whole.jsonl")))
	if err != nil || !rep.Complete || rep.Rows != 11 || rep.Duplicates != 11 {
		t.Fatalf("merge of the shards and the whole run: %v %+v; want 11 rows, each a duplicate with the same detail", err, rep)
	}
}
