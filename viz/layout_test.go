package viz

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The tests here render charts to pixels and check what a reader would see
// by looking: nothing is cut off at the canvas edge, the legend covers no
// data, bars of one group stay clear of the next. With VIZ_PNG_DIR set they
// also write every chart they render there, to be looked at.

// chartKinds are one chart of each kind the notebooks draw, with the texts
// and data that broke the old layout: a title wider than the figure (05),
// a y label longer than the plot is high on a log axis (06), a flat curve
// along the top where the legend went (02), grouped bars of nine categories
// (07), category names wider than their slot (08), a graph whose nodes fill
// the canvas.
func chartKinds(t *testing.T) map[string]*plot.Plot {
	t.Helper()
	must := func(p *plot.Plot, err error) *plot.Plot {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	names := []string{"C0", "C1", "C2", "C2*", "C3", "C4", "TGC", "QPBO", "TRW-S"}
	train := []float64{71.5, 85.5, 94.8, 94.8, 99.7, 99.7, 98.5, 99.6, 99.7}
	test := []float64{72.5, 84.5, 94.9, 94.9, 99.5, 99.4, 98.3, 99.4, 99.6}
	se := []float64{0.7, 0.7, 0.3, 0.2, 0.1, 0.1, 0.1, 0.1, 0.1}
	nan := math.NaN()

	var control []Series
	for d := 2; d <= 3; d++ {
		var x, y, ref []float64
		for n := 8.0; n <= 8192; n *= 2 {
			x = append(x, n)
			y = append(y, 0.6*math.Pow(math.Log(n), float64(d-1))/n)
			ref = append(ref, 0.5*math.Pow(math.Log(n), float64(d-1))/n)
		}
		control = append(control, Series{Name: fmt.Sprintf("uniform on [0,1]^%d: outside hull", d), X: x, Y: y},
			Series{Name: fmt.Sprintf("%.2f·log^%d(n)/n", 0.5, d-1), X: x, Y: ref, Lo: scale(ref, 0.8), Hi: scale(ref, 1.2)})
	}
	var calls, flat, jagged []float64
	for i := range 300 {
		calls = append(calls, float64(550+i))
		flat = append(flat, 1.2e5)
		jagged = append(jagged, 1e3+float64((i*7919)%100000))
	}
	var pos [][2]float64
	var edges [][2]int
	var labels []int
	for i := range 12 {
		for j := range 8 {
			pos = append(pos, [2]float64{float64(i), float64(j)})
			labels = append(labels, (i+j)%2)
			if i > 0 {
				edges = append(edges, [2]int{len(pos) - 9, len(pos) - 1})
			}
		}
	}

	logControl := must(Lines("control: uniform distribution on a square and a cube", "n training points",
		"fraction of held-out points outside the hull", control, true))
	logControl.X.Scale, logControl.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1} // as notebook 06 does
	logControl.Legend.Top, logControl.Legend.Left = false, true
	accuracy := must(Bars("accuracy (fraction of nodes labelled right)", "%", names,
		[]BarSeries{{Name: "training", Values: train, Errors: se}, {Name: "test", Values: test, Errors: se}}))
	accuracy.Y.Min = 65 // as notebook 07 does
	return map[string]*plot.Plot{
		"lines-log-flat-top": must(Lines("(a) with pretraining: margins per QP call", "QP call", "margins computed",
			[]Series{{Name: "2-pass delayed", X: calls, Y: jagged}, {Name: "2-pass full", X: calls, Y: flat}}, true)),
		"lines-loglog-long-label": logControl,
		"lines-percent": must(Lines("held-out accuracy", "iteration", "accuracy %",
			[]Series{{Name: "train", X: []float64{1, 2, 3, 4}, Y: []float64{60, 80, 90, 95}}, {Name: "test", X: []float64{1, 2, 3, 4}, Y: []float64{55, 70, 80, 85}}}, false)),
		"bars-grouped-9": accuracy,
		"bars-long-title": must(Bars("test 1−Δ: scene (whole data set), ≤ 200 iterations, columns [C0 C2 C4 TGC QPBO TRWS] and a few words more so that one line cannot hold it", "%",
			names[:6], []BarSeries{{Name: "ours (test)", Values: test[:6], Errors: se[:6]}, {Name: "paper (test)", Values: []float64{84.5, 90.2, 90.4, 83.3, nan, 72.8}}})),
		"bars-three-series": must(Bars("SLIC, 1024×768 cow, 500 segments", "seconds", []string{"skimage (recorded)", "Go (recorded)", "Go live"},
			[]BarSeries{{Name: "wall", Values: []float64{4.3, 0.97, 0.37}}, {Name: "CPU", Values: []float64{1.29, 0.48, 0.55}}, {Name: "other", Values: []float64{0.5, 0.2, 0.3}}})),
		"bars-long-categories": must(Bars("Max-flow, 256² grid: solve time", "ms per solve",
			[]string{"C++ BK (recorded, CPU)", "Go (recorded, CPU)", "Go live (CPU)", "Go live (wall)"},
			[]BarSeries{{Name: "ms", Values: []float64{1.95, 1.84, 0.94, 0.92}}})),
		"scatter-loglog": must(Scatter("margins against time", "seconds", "margins", []Series{
			{Name: "delayed", X: []float64{1, 3, 10, 30}, Y: []float64{1e4, 1e5, 1e6, 1e7}},
			{Name: "full", X: []float64{2, 5, 20, 50}, Y: []float64{2e4, 3e5, 2e6, 9e6}}}, true, true)),
		"graph": must(GraphPlot("a synthetic training image: nodes coloured by ground truth", pos, edges, labels, nil)),
	}
}

func scale(v []float64, f float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = f * x
	}
	return out
}

// sizes are the notebook default and a small figure, where fitting is harder.
var sizes = []struct {
	name string
	w, h vg.Length
}{{"default", Width, Height}, {"small", 10 * vg.Centimeter, 7 * vg.Centimeter}}

func savePNG(t *testing.T, name string, img image.Image) {
	dir := os.Getenv("VIZ_PNG_DIR")
	if dir == "" {
		return
	}
	b, err := EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Nothing a chart draws may reach the canvas edge: text cut off by the edge
// (05's title, 06's y label) leaves ink there. The layout's own boxes must
// lie inside the canvas and apart from the plot, and the title must keep
// every word.
func TestChartsFitTheirCanvas(t *testing.T) {
	for name, p := range chartKinds(t) {
		for _, sz := range sizes {
			img, L, err := renderPlot(p, sz.w, sz.h)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			savePNG(t, name+"-"+sz.name, img)
			at := name + " (" + sz.name + ")"
			if n := borderInk(img, 4); n > 0 {
				t.Errorf("%s: %d drawn pixels within 4 pixels of the canvas edge", at, n)
			}
			canvas := vg.Rectangle{Max: vg.Point{X: sz.w, Y: sz.h}}
			for _, b := range []struct {
				what string
				r    vg.Rectangle
			}{{"title", L.titleRect}, {"x label", L.xLabelRect}, {"y label", L.yLabelRect}, {"legend", L.legend}} {
				if b.r.Size().X == 0 {
					continue
				}
				if !inside(b.r, canvas) {
					t.Errorf("%s: %s box %v outside the canvas %v", at, b.what, b.r, canvas)
				}
				if b.what != "legend" && overlaps(b.r, L.plotArea) {
					t.Errorf("%s: %s box %v overlaps the plot %v", at, b.what, b.r, L.plotArea)
				}
			}
			if got, want := strings.Fields(L.title), strings.Fields(p.Title.Text); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s: title drawn as %q, want every word of %q", at, L.title, p.Title.Text)
			}
			for _, tk := range L.xTicks {
				if w := L.xTickStyle.Width(tk.Label); w > L.slot {
					t.Errorf("%s: category name %q is %v wide, wider than the %v between names", at, tk.Label, w, L.slot)
				}
			}
			if L.titleRect.Size().X > 0 && inked(img, sz.h, L.titleRect) == 0 {
				t.Errorf("%s: nothing drawn in the title's box", at)
			}
		}
	}
}

// The legend covers no data: every pixel the legend changes was blank, with
// its neighbours, in the same chart drawn without the legend; and the
// legend stays inside the box the layout checked for data.
func TestLegendsCoverNoData(t *testing.T) {
	for name, p := range chartKinds(t) {
		for _, sz := range sizes {
			with, L, err := renderPlot(p, sz.w, sz.h)
			if err != nil {
				t.Fatal(err)
			}
			without, _, err := renderPlotLegend(p, sz.w, sz.h, false)
			if err != nil {
				t.Fatal(err)
			}
			at := name + " (" + sz.name + ")"
			box := pixelRect(sz.h, L.legend)
			changed, covered, outside := 0, 0, 0
			b := with.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if with.RGBAAt(x, y) == without.RGBAAt(x, y) {
						continue
					}
					changed++
					if !image.Pt(x, y).In(box) {
						outside++
					}
					for dy := -1; dy <= 1; dy++ {
						for dx := -1; dx <= 1; dx++ {
							if q := image.Pt(x+dx, y+dy); q.In(b) && isInk(without.RGBAAt(q.X, q.Y)) {
								covered++
								dy, dx = 2, 2
							}
						}
					}
				}
			}
			if changed == 0 {
				t.Errorf("%s: no legend drawn", at)
			}
			if covered > 0 {
				t.Errorf("%s: the legend draws over %d pixels at or next to data or text", at, covered)
			}
			if outside > 0 {
				t.Errorf("%s: %d legend pixels outside its box %v", at, outside, box)
			}
		}
	}
}

// Grouped bars: scanning a pixel row just above the axis, each category
// shows its bars in series order, side by side, centred on the category's
// position (where its label is drawn), inside its own slot, with blank
// columns between groups. This is the row that showed 07's overlapping
// groups; it is checked at both sizes and with two and three series.
func TestBarGroupsStayInTheirSlots(t *testing.T) {
	for name, nser := range map[string]int{"bars-grouped-9": 2, "bars-three-series": 3, "bars-long-categories": 1} {
		p := chartKinds(t)[name]
		for _, sz := range sizes {
			img, L, err := renderPlot(p, sz.w, sz.h)
			if err != nil {
				t.Fatal(err)
			}
			at := name + " (" + sz.name + ")"
			ncat := int(math.Round(p.X.Max - p.X.Min))
			row := int(math.Round((sz.h - L.data.Min.Y - 2).Dots(dpi)))
			groups := barGroups(img, row)
			if len(groups) != ncat {
				t.Fatalf("%s: %d groups of bars in row %d, want %d: %v", at, len(groups), row, ncat, groups)
			}
			slot := L.data.Size().X.Dots(dpi) / float64(ncat)
			for j, g := range groups {
				centre := L.data.Min.X.Dots(dpi) + (float64(j)+0.5)*slot
				lo, hi := centre-slot/2, centre+slot/2
				if len(g.series) != nser {
					t.Errorf("%s: category %d shows series %v, want 0…%d", at, j, g.series, nser-1)
				}
				for i, s := range g.series {
					if s != i {
						t.Errorf("%s: category %d shows series %v, want them in order", at, j, g.series)
						break
					}
				}
				if mid := float64(g.x0+g.x1) / 2; math.Abs(mid-centre) > 2 {
					t.Errorf("%s: category %d's bars centred at pixel %.1f, its label at %.1f", at, j, mid, centre)
				}
				if float64(g.x0) < lo || float64(g.x1) > hi {
					t.Errorf("%s: category %d's bars span pixels %d–%d, outside its slot %.1f–%.1f", at, j, g.x0, g.x1, lo, hi)
				}
			}
			for j := 1; j < len(groups); j++ {
				if gap := groups[j].x0 - groups[j-1].x1 - 1; gap < 3 {
					t.Errorf("%s: %d blank pixels between the bars of categories %d and %d", at, gap, j-1, j)
				}
			}
		}
	}
}

// barGroup is a run of adjacent bars in one pixel row: the series of each
// bar, left to right, and the first and last pixel column.
type barGroup struct {
	series []int
	x0, x1 int
}

// barGroups reads a pixel row: a pixel of exactly SeriesColor(i) belongs to
// series i's bar, a blank one separates groups, anything else (the blended
// pixel where two bars meet) joins the group it lies in.
func barGroups(img *image.RGBA, row int) []barGroup {
	var groups []barGroup
	var cur *barGroup
	for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
		c := img.RGBAAt(x, row)
		if !isInk(c) {
			if cur != nil {
				groups = append(groups, *cur)
				cur = nil
			}
			continue
		}
		s := -1
		for i, sc := range SeriesColors {
			if c.R == sc.R && c.G == sc.G && c.B == sc.B {
				s = i
			}
		}
		if s < 0 && cur == nil {
			continue // the axis line, not a bar
		}
		if cur == nil {
			cur = &barGroup{x0: x}
		}
		cur.x1 = x
		if s >= 0 && (len(cur.series) == 0 || cur.series[len(cur.series)-1] != s) {
			cur.series = append(cur.series, s)
		}
	}
	if cur != nil {
		groups = append(groups, *cur)
	}
	return groups
}

// A percent axis ends at 100 when the data come near it (07's accuracies,
// drawn up to 120 before), and where the data end when they are small.
func TestPercentAxesEndAt100(t *testing.T) {
	for _, c := range []struct {
		values []float64
		want   float64
	}{{[]float64{71.5, 99.7}, 100}, {[]float64{2, 30}, 30}} {
		p, err := Bars("t", "%", []string{"a", "b"}, []BarSeries{{Name: "s", Values: c.values}})
		if err != nil {
			t.Fatal(err)
		}
		_, L, err := renderPlot(p, Width, Height)
		if err != nil {
			t.Fatal(err)
		}
		if L.yMax != c.want {
			t.Errorf("bars up to %v on a %% axis: axis ends at %v, want %v", c.values[1], L.yMax, c.want)
		}
	}
}

// Bars are read by their length: an axis that does not start at zero says
// so in its label.
func TestRaisedBarAxisIsLabelled(t *testing.T) {
	p := chartKinds(t)["bars-grouped-9"]
	_, L, err := renderPlot(p, Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ReplaceAll(L.yLabel, "\n", " "), "axis starts at 65") {
		t.Errorf("y label %q does not say the axis starts at 65", L.yLabel)
	}
	p.Y.Min = 0
	if _, L, _ = renderPlot(p, Width, Height); strings.Contains(L.yLabel, "starts") {
		t.Errorf("y label %q marks an axis that starts at zero", L.yLabel)
	}
}

// Text drawn into a box stays in it, upright and turned, on one line and
// two: the layout's boxes are where the ink is.
func TestDrawTextStaysInItsBox(t *testing.T) {
	sty := plot.New().Title.TextStyle
	for _, rot := range []float64{0, math.Pi / 2} {
		for _, s := range []string{"fraction of held-out points", "test 1−Δ: scene\n(whole data set)"} {
			turned := sty
			turned.Rotation = rot
			box := textBox(turned, s, vg.Point{X: 40, Y: 30}, -1, -1)
			img, c := newCanvas(300, 300)
			drawText(draw.New(c), sty, s, box, rot)
			rgba := img.(*image.RGBA)
			in, out := 0, 0
			grown := pixelRect(300, box).Inset(-1)
			for y := 0; y < rgba.Bounds().Dy(); y++ {
				for x := 0; x < rgba.Bounds().Dx(); x++ {
					if isInk(rgba.RGBAAt(x, y)) {
						if image.Pt(x, y).In(grown) {
							in++
						} else {
							out++
						}
					}
				}
			}
			if in == 0 || out > 0 {
				t.Errorf("%q turned %.2f: %d pixels inside its box, %d outside", s, rot, in, out)
			}
		}
	}
}

// fitText wraps into at most two balanced lines when it can, shrinks the
// font when it must, and always keeps within the width.
func TestFitTextWrapsThenShrinks(t *testing.T) {
	sty := plot.New().Title.TextStyle
	long := "test 1−Δ: scene (whole data set), ≤ 200 iterations, columns [C0 C2 C4 TGC QPBO TRWS]"
	for _, width := range []vg.Length{1000, 300, 200, 120, 40} {
		got, s := fitText(sty, long, width)
		for _, line := range strings.Split(s, "\n") {
			if w := got.Width(line); w > width+wrapSlack {
				t.Errorf("width %v: line %q is %v wide", width, line, w)
			}
		}
		lines := strings.Count(s, "\n") + 1
		switch {
		case width == 1000 && (lines != 1 || got.Font.Size != sty.Font.Size):
			t.Errorf("width %v: %d lines at %v pt, want the text unchanged", width, lines, got.Font.Size)
		case width == 300 && (lines != 2 || got.Font.Size != sty.Font.Size):
			t.Errorf("width %v: %d lines at %v pt, want two lines at full size", width, lines, got.Font.Size)
		case width == 120 && got.Font.Size >= sty.Font.Size:
			t.Errorf("width %v: %d lines at %v pt, want a smaller font", width, lines, got.Font.Size)
		}
		if strings.Join(strings.Fields(s), "") != strings.Join(strings.Fields(long), "") {
			t.Errorf("width %v: text changed to %q", width, s)
		}
	}
	_, s := fitText(sty, "fraction of held-out points outside the hull", 180)
	if l := strings.Split(s, "\n"); len(l) != 2 || math.Abs(float64(sty.Width(l[0])-sty.Width(l[1]))) > float64(sty.Width("outside")) {
		t.Errorf("unbalanced lines %q", s)
	}
}

// Log axes: labelled ticks only, powers of ten written the same way on one
// axis, 2 and 5 added on short axes.
func TestLogTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(lo, hi) {
			if tk.Label == "" {
				t.Errorf("[%g, %g]: unlabelled tick at %g", lo, hi, tk.Value)
			}
			out = append(out, tk.Label)
		}
		return out
	}
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{1000, 1.2e7, "10³ 10⁴ 10⁵ 10⁶ 10⁷"},
		{1000, 1.2e5, "1000 2000 5000 10000 20000 50000 100000"},
		{0.001, 0.7, "0.001 0.002 0.005 0.01 0.02 0.05 0.1 0.2 0.5"},
		{2, 8, "2 3 4 5 6 7 8"},
		{1e-12, 1, "1e−12 1e−10 1e−8 1e−6 1e−4 1e−2 1e0"}, // the font has no ⁰ or ⁻
	} {
		if got := strings.Join(labels(c.lo, c.hi), " "); got != c.want {
			t.Errorf("[%g, %g]: ticks %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}

// Linear tick labels are written in their shortest form, not with the
// step's precision on every label (00's "25.00, 100.00, 175.00").
func TestPlainTickLabels(t *testing.T) {
	var got []string
	for _, tk := range (plainTicks{}).Ticks(1, 182) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	for _, l := range got {
		if strings.HasSuffix(l, ".00") || strings.HasSuffix(l, ".0") {
			t.Errorf("ticks on [1, 182]: label %q", l)
		}
	}
	if len(got) < 2 {
		t.Errorf("ticks on [1, 182]: %q, want at least two labels", got)
	}
	for _, tk := range (plainTicks{}).Ticks(0, 0.3) {
		if tk.Label != "" && len(tk.Label) > 4 {
			t.Errorf("ticks on [0, 0.3]: label %q", tk.Label)
		}
	}
}

// One series has one colour in the static and the interactive chart.
func TestStaticAndInteractiveShareThePalette(t *testing.T) {
	s := []Series{{Name: "train", X: []float64{1, 2}, Y: []float64{3, 4}}, {Name: "test", X: []float64{1, 2}, Y: []float64{2, 3}}}
	h := EChartHTML(EChartLines("t", "x", "y", s, false))
	hex := seriesHex()
	if !strings.Contains(h, `"color":["`+strings.Join(hex, `","`)+`"]`) {
		t.Errorf("echarts option does not list the palette %v in order", hex)
	}
	p, err := Lines("t", "x", "y", s, false)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := renderPlot(p, Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	for i := range s {
		if !hasColour(img, SeriesColor(i)) {
			t.Errorf("static chart has no pixel of series %d's colour %v", i, SeriesColor(i))
		}
	}
}

// A series given a colour keeps it in a chart of other series, static and
// interactive (02 shows two configurations per static panel and all nine in
// the interactive chart).
func TestPinnedSeriesColour(t *testing.T) {
	pinned := SeriesColor(6)
	s := []Series{{Name: "2-pass delayed", X: []float64{1, 2}, Y: []float64{3, 4}, Color: pinned}}
	p, err := Lines("t", "x", "y", s, false)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := renderPlot(p, Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	if !hasColour(img, pinned) || hasColour(img, SeriesColor(0)) {
		t.Errorf("static chart does not draw the series in its pinned colour %v", pinned)
	}
	b, err := Bars("t", "y", []string{"a"}, []BarSeries{{Name: "b", Values: []float64{1}, Color: pinned}})
	if err != nil {
		t.Fatal(err)
	}
	if img, _, err = renderPlot(b, Width, Height); err != nil || !hasColour(img, pinned) {
		t.Errorf("bar chart does not draw the bar in its pinned colour %v (%v)", pinned, err)
	}
	if h := EChartHTML(EChartLines("t", "x", "y", s, false)); !strings.Contains(h, `"lineStyle":{"color":"`+cssColor(pinned)+`"`) {
		t.Errorf("echarts series not in its pinned colour %s:\n%s", cssColor(pinned), h)
	}
}

func hasColour(img *image.RGBA, c color.NRGBA) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if p := img.RGBAAt(x, y); p.R == c.R && p.G == c.G && p.B == c.B {
				return true
			}
		}
	}
	return false
}

func borderInk(img *image.RGBA, k int) int {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if (x < b.Min.X+k || x >= b.Max.X-k || y < b.Min.Y+k || y >= b.Max.Y-k) && isInk(img.RGBAAt(x, y)) {
				n++
			}
		}
	}
	return n
}

func inside(r, outer vg.Rectangle) bool {
	return r.Min.X >= outer.Min.X && r.Min.Y >= outer.Min.Y && r.Max.X <= outer.Max.X && r.Max.Y <= outer.Max.Y
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}
