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

// Comparison is a table of our values beside the paper's: Rows × Cols cells
// (viz.Comparison draws it). A NaN in Paper means the paper gives no
// number; a NaN in Ours means we did not measure it.
//
// Every cell with both values is checked for a deviation worth a reader's
// attention, marked '!'. There is no way to switch the marks off: values that
// differ in scale rather than by points (counts, times, small fractions) set
// Factor, so that the largest deviations are the ones marked.
type Comparison struct {
	Title      string
	Corner     string // header of the row-name column
	Rows, Cols []string
	Paper      [][]float64
	Ours       [][]float64
	Format     string  // fmt verb for values, default "%.1f"
	Flag       float64 // |ours − paper| above this is marked; default (also for 0, negative, Inf or NaN) 1.5
	// Factor, when above 1, compares by ratio instead of difference: a cell
	// reads "ours (paper, ×ours/paper)" and is marked when one value exceeds
	// the other by more than this factor. A zero against a non-zero value, or
	// values of opposite sign, are an infinite factor and always marked.
	Factor float64
	// Marks appends a mark to a row's or column's name (keyed by the name),
	// such as "†" on a column whose fits did not all converge; Notes, shown
	// under the table, say what each mark means.
	Marks map[string]string
	Notes []string
}
