// Package chart holds the plain values that charts and tables are drawn
// from: the experiments (package notebooks/protocol) compute them, package viz
// draws them. It imports nothing, so computing a table does not pull in
// the drawing libraries.
package chart

// Table is a titled table of strings.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
}

// Bars is a grouped bar chart's data: per series, one value (and error
// bar) per category.
type Bars struct {
	Title, Unit string
	Categories  []string
	Series      []Series
	// LogY draws the values on a log axis (they must then be positive):
	// for values that span decades, where the short bars are the point.
	LogY bool
}

// Series is one series of Bars; Errors is nil for none, and a NaN value
// leaves its bar out.
type Series struct {
	Name           string
	Values, Errors []float64
}
