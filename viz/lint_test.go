package viz

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"github.com/probably-submodular/crf/viz/chart"
)

// The defects issue #46 found in 07's PNGs, one case each: Lint and
// LintBars must name them, and the figures as fixed must pass.
func TestLintFindsMissingGlyphs(t *testing.T) {
	cats := []string{"C0", "C4", "TGC"}
	s := []BarSeries{{Name: "objective", Values: []float64{0.6, 0.02, 0.0006}}}
	bad := mustPlot(t)(Bars("training objective ½‖w‖² + C·ξ", "objective", cats, s))
	probs := Lint(bad)
	if len(probs) != 1 || !strings.Contains(probs[0], `"‖‖"`) {
		t.Errorf("Lint of a title with ‖ = %q, want one problem naming ‖", probs)
	}
	good := mustPlot(t)(Bars("training objective ½||w||² + C·ξ", "objective", cats, s))
	if probs := Lint(good); probs != nil {
		t.Errorf("Lint of a title every glyph of which is in the font = %q", probs)
	}
}

func TestBarAxisEndsAtALabelledTick(t *testing.T) {
	cats := []string{"C4", "TGC", "QPBO"}
	b := chart.Bars{Title: "non-submodular test edges", Unit: "% of test edges", Categories: cats,
		Series: []chart.Series{{Name: "non-submodular edges", Values: []float64{0, 16.87, 14.06}}}}
	if probs := LintBars(b); probs != nil {
		t.Errorf("LintBars = %q, want none: the axis should end at a labelled tick above 16.87", probs)
	}
	_, L, err := renderPlot(mustPlot(t)(PlotBars(b)), Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	top := math.Inf(-1)
	for _, tk := range (barAxisTicks{}).Ticks(L.yMin, L.yMax) {
		if tk.Label != "" {
			top = math.Max(top, tk.Value)
		}
	}
	if top < 16.87 {
		t.Errorf("the last labelled tick is %g, below the longest bar (16.87); axis %g…%g", top, L.yMin, L.yMax)
	}
	// labelledTop itself, on the range gonum would have drawn.
	// It ends at the nearest round number that gets a label, not far above
	// (gonum's ticks for 0…19.53 are labelled 0, 9, 18).
	for _, c := range []struct{ hi, want float64 }{{16.87, 20}, {19.53, 20}, {20, 20}, {0.62, 0.8}, {99.7, 100}} {
		if got := labelledTop(barAxisTicks{}, 0, c.hi); got != c.want {
			t.Errorf("labelledTop(0, %g) = %g, want %g", c.hi, got, c.want)
		}
	}
}

func TestLintBarsFindsAnEmptySeries(t *testing.T) {
	b := chart.Bars{Title: "inference exactness", Unit: "%", Categories: []string{"C4", "TGC"},
		Series: []chart.Series{{Name: "non-submodular edges", Values: []float64{0, 16.9}}, {Name: "nodes QPBO leaves unlabelled", Values: []float64{0, 0}}}}
	probs := LintBars(b)
	if len(probs) != 1 || !strings.Contains(probs[0], "nodes QPBO leaves unlabelled") {
		t.Errorf("LintBars = %q, want one problem naming the all-zero series", probs)
	}
	b.Series = b.Series[:1]
	if probs := LintBars(b); probs != nil {
		t.Errorf("LintBars without the empty series = %q", probs)
	}
}

// A log bar axis shows the smallest bar (07's TGC learner reports 0.0006
// beside C0's 0.6: on a linear axis that bar is not a pixel high) and runs
// over whole decades.
func TestLogBarsShowTheSmallestBar(t *testing.T) {
	cats := []string{"C0", "C4", "TGC"}
	s := []BarSeries{{Name: "reported", Values: []float64{0.62, 0.017, 0.0006}}, {Name: "certified", Values: []float64{0.62, 0.017, 0.07}, Errors: []float64{0.01, 0.001, 0.02}}}
	p := mustPlot(t)(LogBars("objective ½||w||² + C·ξ", "objective", cats, s))
	if probs := Lint(p); probs != nil {
		t.Errorf("Lint = %q", probs)
	}
	_, L, err := renderPlot(p, Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	if L.yMin != 1e-4 || L.yMax != 1 {
		t.Errorf("log bar axis %g…%g, want whole decades 0.0001…1", L.yMin, L.yMax)
	}
	q, _, _, _ := prepare(p)
	c := L.data
	for _, r := range (&groupedBars{series: s, fill: 0.8, log: true}).rects(draw.Canvas{Rectangle: c}, &q) {
		if h := r.rect.Size().Y; h < 10 {
			t.Errorf("bar %s of %q is %.1f points high: not readable", cats[r.category], s[r.series].Name, h)
		}
	}
	if _, err := LogBars("t", "y", cats, []BarSeries{{Name: "zero", Values: []float64{1, 0, 2}}}); err == nil || !strings.Contains(err.Error(), "C4") {
		t.Errorf("LogBars with a zero value: err = %v, want one naming the category", err)
	}
}

func mustPlot(t *testing.T) func(*plot.Plot, error) *plot.Plot {
	return func(p *plot.Plot, err error) *plot.Plot {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}
