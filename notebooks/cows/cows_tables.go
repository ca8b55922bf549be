package cows

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// The paper's cows numbers (notebooks/TARGETS.md §1 and §3).
var (
	// cowsHard is the "constraints" table: hard constraints active at
	// convergence and introduced in all, Hamming loss.
	cowsHard = map[string][2]float64{"C0": {326, 415}, "C1": {301, 426}, "C2": {256, 405}, "C4bar": {126, 814}, "C3": {999, 1609}, "C4": {116, 699}}
	// cowsNonSub is §3's cows column: non-submodular test edges, in %.
	cowsNonSub = map[string]float64{"C0": 0, "C1": 0, "C2": 0, "C3": 5, "C4": 0, "C4bar": 0}
	// cowsPairs are the paired comparisons of the t-test table, the
	// paper's claim (C4 > C1) first.
	cowsPairs = [][2]string{{"C4", "C1"}, {"C4", "C2"}, {"C2", "C1"}, {"C1", "C0"}, {"C4bar", "C4"}}
	// testMetrics are the two accuracies of the figure and the t-tests.
	// (name in the figure, in the t-test table as the results file has it).
	testMetrics = []struct {
		name, column string
		metric       func(protocol.Metrics) float64
	}{{"global accuracy", "test_acc", protocol.TestAcc}, {"class-averaged accuracy", "test_cavg", protocol.TestCavg}}
)

// AccuracyBars are the §1 accuracy figure's data for one loss: global and
// class-averaged test accuracy (%) of every set, mean and standard error
// over the folds.
func (Experiment) AccuracyBars(final []protocol.Row, s protocol.SegmentationSettings, loss string) protocol.Bars {
	b := protocol.Bars{Title: fmt.Sprintf("cows, test superpixel accuracy, trained with the %s loss", loss), Unit: "%", Categories: s.Sets}
	for _, m := range testMetrics {
		bs := protocol.BarSeries{Name: m.name}
		for _, set := range s.Sets {
			v, se, _ := grid.Aggregate(final, set, loss, m.metric)
			bs.Values, bs.Errors = append(bs.Values, 100*v), append(bs.Errors, 100*se)
		}
		b.Series = append(b.Series, bs)
	}
	return b
}

// PairedTests is the table of paired t-tests across folds (both metrics,
// every loss) and the headline line: the paper's claim C4 > C1 on the
// first loss.
func (Experiment) PairedTests(final []protocol.Row, s protocol.SegmentationSettings) (protocol.Table, string) {
	t := protocol.Table{Title: "paired t-tests across folds", Header: []string{"loss", "metric", "pair", "mean %", "folds", "paired t-test"}}
	for _, loss := range s.Losses {
		for _, m := range testMetrics {
			for _, pair := range cowsPairs {
				mean, test := protocol.PairedTest(final, loss, m.metric, pair[0], pair[1])
				t.Rows = append(t.Rows, []string{loss, m.column, pair[0] + " vs " + pair[1], mean, test.N, test.Text})
			}
		}
	}
	loss := s.Losses[0]
	_, test := protocol.PairedTest(final, loss, protocol.TestAcc, "C4", "C1")
	m4, _, _ := grid.Aggregate(final, "C4", loss, protocol.TestAcc)
	m1, _, _ := grid.Aggregate(final, "C1", loss, protocol.TestAcc)
	headline := fmt.Sprintf("test accuracy (%s loss), C4 vs C1: ours %.1f vs %.1f %%, %s; paper: C4 > C1 with p < 10⁻⁵ over 10 folds", loss, 100*m4, 100*m1, test.Short)
	return t, headline
}

// HardConstraints is the "constraints" table beside the paper's: hard
// constraints active at convergence and introduced, Hamming loss, compared
// by ratio.
func (Experiment) HardConstraints(final []protocol.Row, s protocol.SegmentationSettings) protocol.Comparison {
	c := protocol.Comparison{Title: "hard constraints, cows, Hamming loss", Corner: "set", Cols: []string{"active at convergence", "all introduced"}, Format: "%.0f", Factor: 2}
	for _, set := range s.Sets {
		a, _, _ := grid.Aggregate(final, set, "hamming", protocol.HardActive)
		i, _, _ := grid.Aggregate(final, set, "hamming", protocol.HardIntroduced)
		pv, ok := cowsHard[set]
		if !ok {
			pv = [2]float64{math.NaN(), math.NaN()}
		}
		c.Rows, c.Paper, c.Ours = append(c.Rows, set), append(c.Paper, pv[:]), append(c.Ours, []float64{a, i})
	}
	protocol.MarkCapped(&c, final, s.Sets, protocol.SetIs("hamming"))
	return c
}

// NonSubmodular is §3's cows column beside ours: the percentage of test
// edges whose learned potentials are not submodular, both losses.
func (Experiment) NonSubmodular(final []protocol.Row, s protocol.SegmentationSettings) protocol.Comparison {
	c := protocol.Comparison{Title: "non-submodular test edges (%), cows", Corner: "set", Cols: []string{"Hamming loss", "class-averaged loss"}, Format: "%.3f", Factor: 2}
	for _, set := range s.Sets {
		h, _, _ := grid.Aggregate(final, set, "hamming", protocol.NonSubTest)
		a, _, _ := grid.Aggregate(final, set, "avg", protocol.NonSubTest)
		pv, ok := cowsNonSub[set]
		if !ok {
			pv = math.NaN()
		}
		c.Rows, c.Paper, c.Ours = append(c.Rows, set), append(c.Paper, []float64{pv, pv}), append(c.Ours, []float64{100 * h, 100 * a})
	}
	protocol.MarkCapped(&c, final, s.Sets, protocol.SetIs(""))
	return c
}

// NonSubmodularEdges writes the non-submodular fractions of C3 and C4
// (Hamming loss) as edge counts over the folds' test images, and how the
// paper's figure compares read as a fraction and as a percentage.
func (Experiment) NonSubmodularEdges(final []protocol.Row, set *data.SegmentedSet, folds []data.Fold) []string {
	var lines []string
	for _, m := range []string{"C3", "C4"} {
		var edges, bad float64
		n := 0
		for _, r := range final {
			if r.Job.Set != m || r.Job.Loss != "hamming" || r.Error != "" {
				continue
			}
			k := 0
			for _, i := range folds[r.Job.Fold].Test {
				k += len(set.Items[i].Instance.Edges)
			}
			edges, bad, n = edges+float64(k), bad+r.Metrics.NonSubTest*float64(k), n+1
		}
		if n == 0 {
			continue
		}
		f := bad / edges
		line := fmt.Sprintf("%s, Hamming loss: %.0f non-submodular of %.0f test edges in %d folds (%.2g; %.1f per fold of %.0f)", m, bad, edges, n, f, bad/float64(n), edges/float64(n))
		if p := cowsNonSub[m] / 100; p > 0 && f > 0 {
			line += fmt.Sprintf("; the paper's %g is %.0f times ours read as a fraction, %.0f times read as a percentage", p, p/f, p/100/f)
		}
		lines = append(lines, line)
	}
	return lines
}
