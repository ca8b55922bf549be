package protocol

// The values protocols hand to notebooks for drawing: plain data, so that
// this package draws nothing (package viz does).

import (
	"fmt"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/viz/chart"
)

// Table is a titled table of strings (viz.ShowTableOf shows it).
type Table = chart.Table

// SetName is a column as the paper writes it (C4bar is C̄4).
func SetName(set string) string {
	if set == "C4bar" {
		return "C̄4"
	}
	return set
}

// Comparison is a table of the paper's numbers beside ours (a notebook
// shows it with viz.Comparison(c).Show()).
type Comparison = chart.Comparison

// Bars is a bar chart's data (viz.ShowBars draws it).
type Bars = chart.Bars

// BarSeries is one series of Bars; Errors is nil for none.
type BarSeries = chart.Series

// PairedOutcome is a paired t-test written out: the table's cell, the
// folds, and the headline's shorter form.
type PairedOutcome struct{ Text, N, Short string }

// PairedTest is the paired t-test across folds of metric between sets a
// and b (loss), and their means in %.
func PairedTest(final []Row, loss string, metric func(Metrics) float64, a, b string) (mean string, out PairedOutcome) {
	t, p, n, err := grid.PairedAcrossFolds(final, metric,
		func(j grid.Job) bool { return j.Set == a && j.Loss == loss },
		func(j grid.Job) bool { return j.Set == b && j.Loss == loss })
	ma, _, _ := grid.Aggregate(final, a, loss, metric)
	mb, _, _ := grid.Aggregate(final, b, loss, metric)
	out = PairedOutcome{Text: fmt.Sprintf("t = %.2f, p = %.2g", t, p), N: fmt.Sprint(n), Short: fmt.Sprintf("p = %.2g over %d folds", p, n)}
	if err != nil {
		out.Text, out.Short = "n/a: "+err.Error(), "no t-test: "+err.Error()
	}
	return fmt.Sprintf("%.1f vs %.1f", 100*ma, 100*mb), out
}
