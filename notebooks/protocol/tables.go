package protocol

// The values protocols hand to notebooks for drawing: plain data, so that
// this package draws nothing (package viz does).

import "github.com/probably-submodular/crf/viz/chart"

// Table is a titled table of strings (viz.ShowTableOf shows it).
type Table = chart.Table

// Comparison is a table of the paper's numbers beside ours. Its fields are
// those of viz.Comparison (Format, Flag and Factor mean the same), so a
// notebook shows it with viz.Comparison(c).Show().
type Comparison struct {
	Title      string
	Corner     string
	Rows, Cols []string
	Paper      [][]float64
	Ours       [][]float64
	Format     string
	Flag       float64
	Factor     float64
	Marks      map[string]string
	Notes      []string
}

// Bars is a bar chart's data (viz.ShowBars draws it).
type Bars = chart.Bars

// BarSeries is one series of Bars; Errors is nil for none.
type BarSeries = chart.Series
