package viz

import (
	"fmt"

	"github.com/probably-submodular/crf/viz/chart"
)

// ShowTableOf shows a titled table (its title as a line above it).
func ShowTableOf(t chart.Table) {
	if t.Title != "" {
		ShowMarkdown("**" + t.Title + "**")
	}
	ShowTable(t.Header, t.Rows)
}

// BarSeriesOf turns plain series into drawable ones (colours by position).
func BarSeriesOf(ss []chart.Series) []BarSeries {
	out := make([]BarSeries, len(ss))
	for i, s := range ss {
		out[i] = BarSeries{Name: s.Name, Values: s.Values, Errors: s.Errors}
	}
	return out
}

// ShowBars draws a bar chart once, as a static figure (gonum plot, kept in
// every render and checked by Lint): an interactive twin said the same, and
// the values sit in the table beside each chart.
func ShowBars(b chart.Bars) error {
	p, err := Bars(b.Title, b.Unit, b.Categories, BarSeriesOf(b.Series))
	if err != nil {
		return fmt.Errorf("bars %q: %w", b.Title, err)
	}
	return ShowPlot(p)
}
