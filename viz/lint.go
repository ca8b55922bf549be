package viz

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"

	"github.com/probably-submodular/crf/viz/chart"
)

// Lint draws p at the default size and lists what a reader would miss in
// the PNG: a character of the title, an axis label or a tick label that
// the font has no glyph for (gonum draws nothing: 10⁻⁴ came out as
// "10⁴") or draws illegibly ("½‖w‖²" came out as "½lwl²"), a bar axis that ends past its last
// labelled tick (the longest bar then cannot be read), and a legend
// outside the canvas. Nil means none of these. LintBars adds the checks
// that need the bars' series; tests of the experiments call both on their
// figures.
func Lint(p *plot.Plot) []string {
	_, L, err := renderPlot(p, Width, Height)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	glyphs := func(what string, sty text.Style, s string) {
		if m := missingGlyphs(sty, s); len(m) > 0 {
			out = append(out, fmt.Sprintf("%s %q: no glyph for %q in font %s", what, s, string(m), sty.Font.Typeface))
		}
	}
	glyphs("title", p.Title.TextStyle, p.Title.Text)
	glyphs("x label", p.X.Label.TextStyle, p.X.Label.Text)
	glyphs("y label", p.Y.Label.TextStyle, p.Y.Label.Text)
	q, _, _, _ := prepare(p)
	for _, a := range []struct {
		name string
		ax   plot.Axis
	}{{"x", q.X}, {"y", q.Y}} {
		for _, tk := range a.ax.Tick.Marker.Ticks(a.ax.Min, a.ax.Max) {
			glyphs(a.name+" tick", a.ax.Tick.Label, tk.Label)
		}
	}
	switch q.Y.Tick.Marker.(type) {
	case barAxisTicks, logBarTicks:
		if top := lastLabel(q.Y.Tick.Marker, L.yMin, L.yMax); L.yMax > top*(1+1e-9) {
			out = append(out, fmt.Sprintf("value axis ends at %g, past its last labelled tick %g: the longest bar cannot be read", L.yMax, top))
		}
	}
	canvas := vg.Rectangle{Max: vg.Point{X: L.w, Y: L.h}}
	if L.legend != (vg.Rectangle{}) && !(L.legend.Min.X >= canvas.Min.X && L.legend.Min.Y >= canvas.Min.Y && L.legend.Max.X <= canvas.Max.X && L.legend.Max.Y <= canvas.Max.Y) {
		out = append(out, fmt.Sprintf("legend %v lies outside the canvas %v", L.legend, canvas))
	}
	return out
}

// illegible are characters the chart font has but draws so that they read
// as another at chart sizes: ‖ comes out as a thin "l" ("½lwl²").
var illegible = map[rune]bool{'‖': true}

// missingGlyphs are the runes of s that the style's font has no glyph for,
// or draws illegibly.
func missingGlyphs(sty text.Style, s string) []rune {
	h, ok := sty.Handler.(text.Plain)
	if !ok || h.Fonts == nil || s == "" {
		return nil
	}
	face := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	if face.Face == nil {
		return nil
	}
	var buf sfnt.Buffer
	var missing []rune
	for _, r := range s {
		if r == '\n' || r == ' ' {
			continue
		}
		if i, err := face.Face.GlyphIndex(&buf, r); err != nil || i == 0 || illegible[r] {
			missing = append(missing, r)
		}
	}
	return missing
}

// LintBars is Lint of the chart PlotBars draws from b, plus what needs its
// series: a series with no non-zero value (a legend entry naming nothing
// drawn) and glyphs missing from a series or category name.
func LintBars(b chart.Bars) []string {
	p, err := PlotBars(b)
	if err != nil {
		return []string{err.Error()}
	}
	out := Lint(p)
	for _, c := range b.Categories {
		if m := missingGlyphs(p.X.Tick.Label, c); len(m) > 0 {
			out = append(out, fmt.Sprintf("category %q: no glyph for %q", c, string(m)))
		}
	}
	for _, s := range b.Series {
		if m := missingGlyphs(p.Legend.TextStyle, s.Name); len(m) > 0 {
			out = append(out, fmt.Sprintf("legend entry %q: no glyph for %q", s.Name, string(m)))
		}
		if !slices.ContainsFunc(s.Values, func(v float64) bool { return v != 0 && !math.IsNaN(v) }) {
			out = append(out, fmt.Sprintf("bar series %q of %q has no non-zero value: its legend entry names nothing drawn", s.Name, b.Title))
		}
	}
	return out
}
