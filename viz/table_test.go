package viz

import (
	"math"
	"strings"
	"testing"
)

// Tables recorded in markdown files show their bold and code as such, not
// as raw asterisks and backticks (08's benchmark tables); other text, a
// lone asterisk included, is escaped as before.
func TestTableRendersInlineMarkdown(t *testing.T) {
	h := TableHTML([]string{"`solve` ms"}, [][]string{{"**Go/C++ CPU**", "**0.95**", "C2* <b>", "a ** b", "2*3*4"}})
	for _, want := range []string{"<code>solve</code> ms", "<b>Go/C++ CPU</b>", "<b>0.95</b>", "C2* &lt;b&gt;", "a ** b", "2*3*4"} {
		if !strings.Contains(h, want) {
			t.Errorf("table lacks %q:\n%s", want, h)
		}
	}
}

// A count table compared by ratio marks exactly its largest deviations, zeros
// against the paper's counts included, and a Flag of +Inf cannot hide marks.
func TestComparisonFactorMarksLargestDeviations(t *testing.T) {
	nan := math.NaN()
	c := Comparison{Corner: "set", Cols: []string{"active", "introduced"}, Format: "%.0f", Factor: 2,
		Rows:  []string{"C0", "C3", "C4", "new", "zero", "sign"},
		Paper: [][]float64{{326, 415}, {999, 1609}, {116, 699}, {0, nan}, {0, 5}, {-2, 3}},
		Ours:  [][]float64{{0, 0}, {173, 1076}, {15, 284}, {12, 38}, {0, 5}, {2, 3}}}
	_, rows := c.Cells()
	want := [][]string{
		{"C0", "0 (paper 326, ×0 !)", "0 (paper 415, ×0 !)"},
		{"C3", "173 (paper 999, ×0.17 !)", "1076 (paper 1609, ×0.67)"},
		{"C4", "15 (paper 116, ×0.13 !)", "284 (paper 699, ×0.41 !)"},
		{"new", "12 (paper 0, ×∞ !)", "38"},
		{"zero", "0 (paper 0, ×1)", "5 (paper 5, ×1)"},
		{"sign", "2 (paper -2, opposite sign !)", "3 (paper 3, ×1)"},
	}
	for i := range want {
		for j := range want[i] {
			if rows[i][j] != want[i][j] {
				t.Errorf("row %d col %d: %q, want %q", i, j, rows[i][j], want[i][j])
			}
		}
	}
	if h := c.HTML(); !strings.Contains(h, "! marks a factor above 2 either way") {
		t.Errorf("HTML does not state the rule: %s", h)
	}
	// A small ratio keeps two significant digits instead of rounding to 0.
	if s, marked := c.Deviation(4.92, 607); s != "×0.0081" || !marked {
		t.Errorf("small ratio: %q %v", s, marked)
	}
	if s, marked := c.Deviation(0.1941, 0.0035); s != "×55" || !marked {
		t.Errorf("large ratio: %q %v", s, marked)
	}
	// The same cells compared by difference with Flag +Inf: marked as with the default.
	c.Factor, c.Flag = 0, math.Inf(1)
	_, rows = c.Cells()
	if rows[0][1] != "0 (paper 326, Δ -326 !)" || rows[4][1] != "0 (paper 0, Δ +0)" {
		t.Errorf("Flag +Inf: %q, %q", rows[0][1], rows[4][1])
	}
	if !strings.Contains(c.HTML(), "! marks |Δ| above 1.5") {
		t.Errorf("HTML does not state the default rule: %s", c.HTML())
	}
}

// Δ is shown with the table's own precision: a difference of 0.008 in a
// "%.3f" table reads +0.008, not +0.0.
func TestComparisonDeltaUsesFormat(t *testing.T) {
	c := Comparison{Format: "%.3f", Flag: 0.005}
	if s, marked := c.Deviation(0.008, 0); s != "Δ +0.008" || !marked {
		t.Errorf("%q %v", s, marked)
	}
	if s, marked := (Comparison{}).Deviation(90, 93.1); s != "Δ -3.1" || !marked {
		t.Errorf("default: %q %v", s, marked)
	}
}
