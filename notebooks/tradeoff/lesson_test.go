package tradeoff

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/viz"
)

// committedRuns are the full profile's committed rows as ladders.
func committedRuns(t *testing.T) [][]Row {
	t.Helper()
	rows, err := grid.ReadResults(filepath.Join("..", "results", "tradeoff-full.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	runs, err := Experiment{}.Runs(protocol.Full, rows)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// The lesson's numbers are those of the rows: each quoted value is
// recomputed here, and a change of the rows changes the text.
func TestLessonQuotesTheRows(t *testing.T) {
	tr := Experiment{}
	runs := committedRuns(t)
	text, err := tr.Lesson(runs)
	if err != nil {
		t.Fatal(err)
	}
	c4, tg, trws := entryIndex(runs, "C4"), entryIndex(runs, "TGC"), entryIndex(runs, "TRW-S")
	acc, _ := Stat(runs, c4, func(r Row) float64 { return 100 * r.TestAcc })
	c4s, _ := Stat(runs, c4, func(r Row) float64 { return r.Seconds })
	ts, _ := Stat(runs, trws, func(r Row) float64 { return r.Seconds })
	rep, _ := Stat(runs, tg, func(r Row) float64 { return r.Primal })
	hi, _ := Stat(runs, tg, func(r Row) float64 { return r.PrimalHi })
	for _, want := range []string{
		fmt.Sprintf("%.1f ±", acc), fmt.Sprintf("TRW-S took %.1f× as long", ts/c4s),
		fmt.Sprintf("reported %.4g", rep), fmt.Sprintf("… %.4g", hi), "5 seeds, mean ± standard error",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("lesson lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "%!") {
		t.Errorf("lesson has a formatting error:\n%s", text)
	}
	// On the committed rows TGC loses on every seed (certified worse, lower
	// accuracy): the lesson names it as the loser.
	if !strings.Contains(text, "certified objective: **TGC") {
		t.Errorf("lesson does not name TGC as the entry that loses:\n%s", text)
	}
	// One seed: no standard errors, and the text says so.
	one, err := tr.Lesson(runs[:1])
	if err != nil || !strings.Contains(one, "one seed, so no standard error") || strings.Contains(one, "±") {
		t.Errorf("one-seed lesson (err %v):\n%s", err, one)
	}
	if one == text {
		t.Error("the lesson of one seed is the lesson of five")
	}
	if _, err := tr.Lesson([][]Row{runs[0][:3]}); err == nil {
		t.Error("a ladder without C4 gave a lesson")
	}
}

// Every figure of notebook 07 passes viz's layout checks on the committed
// rows: glyphs the chart font draws, no all-zero series, bar axes that end
// at a labelled tick. The old capacity title (½‖w‖²) and exactness chart
// (an all-zero QPBO series) fail them.
func TestFiguresPassLint(t *testing.T) {
	tr := Experiment{}
	runs := committedRuns(t)
	for _, b := range []protocol.Bars{tr.Capacity(runs), tr.Accuracy(runs), tr.Exactness(runs)} {
		for _, p := range viz.LintBars(b) {
			t.Errorf("%s: %s", b.Title, p)
		}
	}
	if c := tr.Capacity(runs); !c.LogY {
		t.Error("the capacity chart is on a linear axis, where the TGC learner's value is not a pixel high")
	}
	old := tr.Capacity(runs)
	old.Title = "training objective ½‖w‖² + C·ξ"
	if viz.LintBars(old) == nil {
		t.Error("LintBars passes the old capacity title")
	}
	names, xs, ys := tr.TimeAccuracy(runs)
	var series []viz.Series
	for i := range names {
		series = append(series, viz.Series{Name: names[i], X: xs[i], Y: ys[i]})
	}
	p, err := viz.Scatter("test accuracy against training time", "training seconds per model", "test accuracy %", series, true, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range viz.Lint(p) {
		t.Errorf("time-accuracy chart: %s", pr)
	}
	if note := tr.ExactnessNote(protocol.Full, runs); !strings.Contains(note, "of 900 (model, test image) pairs") {
		t.Errorf("exactness note: %s (want 5 seeds × 9 models × 20 images)", note)
	}
}

func TestEntriesAndRunDetails(t *testing.T) {
	tr := Experiment{}
	e := tr.Entries(protocol.Quick)
	if len(e.Rows) != len(Ladder()) || !strings.Contains(e.Title, "C_reg = 1") || e.Rows[6][1] != "anything (unconstrained)" {
		t.Errorf("entries table: %+v", e)
	}
	rows := []grid.Result{{Job: grid.Job{Set: "C4"}, Seconds: 1.5, Metrics: map[string]float64{"train_seconds": 1}}}
	rows[0].Code.Commit = "abc123"
	d := tr.RunDetails(protocol.Quick, rows, "reused 1 of 1")
	for _, want := range []string{"abc123 (1 rows)", "1.5s of job time", "1s of it training", "reused 1 of 1", "tradeoff-quick.jsonl"} {
		if !strings.Contains(d, want) {
			t.Errorf("run details lack %q:\n%s", want, d)
		}
	}
}

func TestLadderSteps(t *testing.T) {
	rows := []Row{{Name: "C0", Primal: 0.6, TestAcc: 0.7}, {Name: "C1", Primal: 0.4, TestAcc: 0.85}, {Name: "C2", Primal: 0.13, TestAcc: 0.956},
		{Name: "C2*", Primal: 0.12, TestAcc: 0.953}, {Name: "C3", Primal: 0.02, TestAcc: 0.99}, {Name: "C4", Primal: 0.017, TestAcc: 0.997}}
	s := LadderSteps(rows, 1e-3)
	if !strings.Contains(s, "falls at every step") || !strings.Contains(s, "C2 → C2* (-0.3 points)") || strings.Contains(s, "C3 → C4 (") {
		t.Errorf("LadderSteps = %q", s)
	}
	rows[5].Primal = 0.05 // C4 above C3 and C2*: impossible for nested sets
	if s := LadderSteps(rows, 1e-3); !strings.Contains(s, "C3 → C4 (0.02 → 0.05)") || strings.Contains(s, "C2* → C4 (") {
		t.Errorf("LadderSteps with C4 above C3 = %q", s)
	}
}
