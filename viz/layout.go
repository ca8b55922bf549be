package viz

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Static charts are drawn by gonum, but viz lays out what gonum places
// without looking at the canvas: the title and the axis labels (gonum
// centres them whatever their length, so long ones are clipped on both
// sides, and on a log axis it reserves room for the y label around the
// linear midpoint, which leaves an empty band above the plot) and the legend
// (gonum puts it in a fixed corner, over whatever data are there). Every
// static chart goes through renderPlot, whoever built the plot and whatever its
// fields say afterwards.

const (
	dpi       = 96              // the PNG's resolution; 16 cm is then 605 pixels
	margin    = vg.Length(6)    // blank border around everything, in points
	gap       = vg.Length(4)    // between the title, the labels and the plot
	minFont   = vg.Length(7.5)  // text is shrunk no further than this to fit
	legendPad = vg.Length(3)    // clearance kept around a legend
	inkLevel  = 235             // a channel below this is drawn, not background
	maxLines  = 2               // lines a title or axis label may wrap into
	wrapSlack = vg.Length(0.01) // rounding allowance when comparing widths
)

// layout is where render put each part of a chart, in points from the lower
// left corner of the w×h canvas (tests check it against the pixels).
type layout struct {
	w, h vg.Length

	title, xLabel, yLabel             string // as drawn: wrapped, with notes
	titleRect, xLabelRect, yLabelRect vg.Rectangle

	plotArea vg.Rectangle // handed to gonum for the axes and the data
	data     vg.Rectangle // where the data are drawn (gonum's data canvas)

	legend       vg.Rectangle // the legend's box, zero when there is none
	legendInBand bool         // no corner of the data was free: drawn above them

	yMin, yMax float64 // the y range drawn

	xTicks     plot.ConstantTicks // category names as drawn (wrapped), if any
	xTickStyle text.Style
	slot       vg.Length // room between neighbouring category names
}

// renderPlot draws p at w×h and returns the image and its layout. p itself is
// not changed.
func renderPlot(p *plot.Plot, w, h vg.Length) (*image.RGBA, layout, error) {
	return renderPlotLegend(p, w, h, true)
}

// renderPlotLegend is renderPlot, with the legend drawn or (for tests that
// compare the two) left out of the same layout.
func renderPlotLegend(p *plot.Plot, w, h vg.Length, withLegend bool) (img *image.RGBA, L layout, err error) {
	// gonum panics on data it cannot draw (a log axis reaching zero, say):
	// the notebook gets an error naming the chart instead.
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("chart %q: %v", p.Title.Text, r)
		}
	}()
	q, title, xl, yl := prepare(p)
	L = layout{w: w, h: h}
	content := vg.Rectangle{Min: vg.Point{X: margin, Y: margin}, Max: vg.Point{X: w - margin, Y: h - margin}}

	top := content.Max.Y
	titleSty := p.Title.TextStyle
	if title != "" {
		titleSty, L.title = fitText(titleSty, title, content.Size().X)
		L.titleRect = textBox(titleSty, L.title, vg.Point{X: (content.Min.X + content.Max.X) / 2, Y: top}, 0, 1)
		top = L.titleRect.Min.Y - gap
	}

	legendSize := p.Legend.Rectangle(draw.Canvas{}).Size()
	hasLegend := legendSize.X > 0 && legendSize.Y > 0
	legendSize = vg.Point{X: legendSize.X + 2*legendPad, Y: legendSize.Y + 2*legendPad}

	xSty, ySty := p.X.Label.TextStyle, p.Y.Label.TextStyle
	ySty.Rotation = 0 // fitted upright, drawn turned
	arrange := func(band vg.Length) {
		// Labels are fitted to the data area, which depends on the labels'
		// own sizes: two rounds settle it (a label only ever shrinks).
		L.xLabel, L.yLabel = xl, yl
		for range 2 {
			xh, yw := vg.Length(0), vg.Length(0)
			if L.xLabel != "" {
				xh = xSty.Rectangle(L.xLabel).Size().Y + gap
			}
			if L.yLabel != "" {
				yw = ySty.Rectangle(L.yLabel).Size().Y + gap
			}
			L.plotArea = vg.Rectangle{Min: vg.Point{X: content.Min.X + yw, Y: content.Min.Y + xh}, Max: vg.Point{X: content.Max.X, Y: top - band}}
			L.data = q.DataCanvas(draw.Canvas{Rectangle: L.plotArea}).Rectangle
			if nominal, ok := p.X.Tick.Marker.(plot.ConstantTicks); ok {
				// Category names wider than their slot run into their
				// neighbours (08's "C++ BK (recorded, CPU)"): wrap them.
				L.slot = tickSpacing(nominal, q.X.Max-q.X.Min, L.data.Size().X)
				q.X.Tick.Label, q.X.Tick.Marker = fitTicks(p.X.Tick.Label, nominal, L.slot-gap)
				L.xTicks = q.X.Tick.Marker.(plot.ConstantTicks)
				L.xTickStyle = q.X.Tick.Label
				L.data = q.DataCanvas(draw.Canvas{Rectangle: L.plotArea}).Rectangle
			}
			if xl != "" {
				xSty, L.xLabel = fitText(p.X.Label.TextStyle, xl, L.data.Size().X)
			}
			if yl != "" {
				s := p.Y.Label.TextStyle
				s.Rotation = 0
				ySty, L.yLabel = fitText(s, yl, L.data.Size().Y)
			}
		}
		L.xLabelRect, L.yLabelRect = vg.Rectangle{}, vg.Rectangle{}
		if L.xLabel != "" {
			L.xLabelRect = textBox(xSty, L.xLabel, vg.Point{X: (L.data.Min.X + L.data.Max.X) / 2, Y: content.Min.Y}, 0, -1)
		}
		if L.yLabel != "" {
			turned := ySty
			turned.Rotation = math.Pi / 2
			L.yLabelRect = textBox(turned, L.yLabel, vg.Point{X: content.Min.X, Y: (L.data.Min.Y + L.data.Max.Y) / 2}, -1, 0)
		}
	}

	arrange(0)
	canvasImg, c := newCanvas(w, h)
	q.Draw(draw.Canvas{Canvas: c, Rectangle: L.plotArea})
	if hasLegend {
		var ok bool
		L.legend, ok = freeCorner(canvasImg.(*image.RGBA), h, L.data, legendSize, p.Legend.Top, p.Legend.Left)
		if !ok {
			// Every corner holds data: the legend gets a band of its own
			// between the title and the plot.
			arrange(legendSize.Y + gap)
			L.legendInBand = true
			L.legend = vg.Rectangle{Min: vg.Point{X: L.data.Min.X, Y: top - legendSize.Y}, Max: vg.Point{X: L.data.Min.X + legendSize.X, Y: top}}
			canvasImg, c = newCanvas(w, h)
			q.Draw(draw.Canvas{Canvas: c, Rectangle: L.plotArea})
		}
	}
	L.yMin, L.yMax = q.Y.Min, q.Y.Max

	dc := draw.New(c)
	if L.title != "" {
		drawText(dc, titleSty, L.title, L.titleRect, 0)
	}
	if L.xLabel != "" {
		drawText(dc, xSty, L.xLabel, L.xLabelRect, 0)
	}
	if L.yLabel != "" {
		drawText(dc, ySty, L.yLabel, L.yLabelRect, math.Pi/2)
	}
	if hasLegend && withLegend {
		l := p.Legend
		l.Top, l.Left, l.XOffs, l.YOffs = true, true, 0, 0
		inner := vg.Rectangle{Min: L.legend.Min.Add(vg.Point{X: legendPad, Y: legendPad}), Max: L.legend.Max.Sub(vg.Point{X: legendPad, Y: legendPad})}
		// gonum draws the first entry a descent below the box's top.
		inner = inner.Add(vg.Point{Y: l.TextStyle.FontExtents().Descent})
		l.Draw(draw.Canvas{Canvas: c, Rectangle: inner})
	}
	return canvasImg.(*image.RGBA), L, nil
}

// prepare returns a copy of p to hand to gonum (no title, axis labels or
// legend: render places those) and the texts it took out, with the axis
// conventions applied: a bar axis that does not start at zero says so, log
// and linear axes get viz's tick labels (logTicks, plainTicks).
func prepare(p *plot.Plot) (q plot.Plot, title, xLabel, yLabel string) {
	q = *p
	title, xLabel, yLabel = p.Title.Text, p.X.Label.Text, p.Y.Label.Text
	q.Title.Text, q.X.Label.Text, q.Y.Label.Text = "", "", ""
	q.Legend = plot.NewLegend()

	for _, a := range []*plot.Axis{&q.X, &q.Y} {
		switch a.Tick.Marker.(type) {
		case plot.LogTicks:
			a.Tick.Marker = logTicks{}
		case plot.DefaultTicks:
			a.Tick.Marker = plainTicks{}
		}
	}
	_, yLog := q.Y.Scale.(plot.LogScale)
	if _, bars := q.Y.Tick.Marker.(barAxisTicks); bars && !yLog {
		if q.Y.Min > 0 {
			yLabel += baselineNote(q.Y.Min)
		}
		q.Y.Max = labelledTop(q.Y.Tick.Marker, q.Y.Min, q.Y.Max)
	}
	if _, logBars := q.Y.Tick.Marker.(logBarTicks); logBars && q.Y.Min > 0 {
		// Whole decades: a labelled power of ten above every bar.
		q.Y.Min = math.Pow10(int(math.Floor(math.Log10(q.Y.Min) + 1e-9)))
		q.Y.Max = math.Pow10(int(math.Ceil(math.Log10(q.Y.Max) - 1e-9)))
	}
	return q, title, xLabel, yLabel
}

// labelledTop is where a bar axis from lo to hi ends so that its last
// labelled tick is at or above hi: gonum ends it at the longest bar, which
// then runs past the last number a reader can read it against (07's
// exactness chart: a bar of 16.9 on an axis labelled up to 16).
func labelledTop(m plot.Ticker, lo, hi float64) float64 {
	if !(hi > lo) || lastLabel(m, lo, hi) >= hi*(1-1e-9) {
		return hi
	}
	// The smallest round number above hi whose axis is labelled at its end.
	e := math.Pow10(int(math.Floor(math.Log10(math.Abs(hi)))))
	for _, k := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 15, 20} {
		if c := k * e; c >= hi && lastLabel(m, lo, c) >= c*(1-1e-9) {
			return c
		}
	}
	return hi
}

// lastLabel is the value of the last labelled tick that m puts on an axis
// from lo to hi (−Inf for none).
func lastLabel(m plot.Ticker, lo, hi float64) float64 {
	t := math.Inf(-1)
	for _, tk := range m.Ticks(lo, hi) {
		if tk.Label != "" {
			t = math.Max(t, tk.Value)
		}
	}
	return t
}

func newCanvas(w, h vg.Length) (image.Image, *vgimg.Canvas) {
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	return c.Image(), c
}

// tickSpacing is the smallest distance, in points, between neighbouring
// ticks on an axis of the given data span and length.
func tickSpacing(ticks plot.ConstantTicks, span float64, length vg.Length) vg.Length {
	d := math.Inf(1)
	for i := 1; i < len(ticks); i++ {
		d = math.Min(d, math.Abs(ticks[i].Value-ticks[i-1].Value))
	}
	if math.IsInf(d, 1) || span <= 0 {
		return length
	}
	return length * vg.Length(d/span)
}

// fitTicks wraps category names to the given width, all at one font size:
// the largest at which every name fits (see fitText).
func fitTicks(sty text.Style, ticks plot.ConstantTicks, width vg.Length) (text.Style, plot.ConstantTicks) {
	size := sty.Font.Size
	for _, t := range ticks {
		if t.Label != "" {
			f, _ := fitText(sty, t.Label, width)
			size = min(size, f.Font.Size)
		}
	}
	sty.Font.Size = size
	out := make(plot.ConstantTicks, len(ticks))
	for i, t := range ticks {
		out[i] = t
		if t.Label != "" {
			_, out[i].Label = fitText(sty, t.Label, width)
		}
	}
	return sty, out
}

// fitText wraps s at spaces into at most maxLines lines no wider than width,
// shrinking the font (not below minFont) when wrapping is not enough; at the
// smallest size, words are broken too, so the text always fits its width.
func fitText(sty text.Style, s string, width vg.Length) (text.Style, string) {
	for size := sty.Font.Size; size >= minFont; size *= 0.92 {
		t := sty
		t.Font.Size = size
		if lines, ok := wrapWords(t, s, width, false); ok && len(lines) <= maxLines {
			return t, strings.Join(balance(t, s, width, lines), "\n")
		}
	}
	t := sty
	t.Font.Size = minFont
	lines, _ := wrapWords(t, s, width, true)
	return t, strings.Join(lines, "\n")
}

// balance rewraps text that wrapWords broke into lines at the narrowest
// width that needs no more lines, so a wrapped title reads as two halves
// rather than a line and an orphan word.
func balance(sty text.Style, s string, width vg.Length, lines []string) []string {
	if len(lines) < 2 {
		return lines
	}
	lo, hi := vg.Length(0), width
	for range 30 {
		mid := (lo + hi) / 2
		if l, ok := wrapWords(sty, s, mid, false); ok && len(l) <= len(lines) {
			hi = mid
		} else {
			lo = mid
		}
	}
	l, _ := wrapWords(sty, s, hi, false)
	return l
}

// wrapWords breaks s greedily at spaces; ok is false when a single word is
// wider than width (unless breakWords, which then splits it between letters).
func wrapWords(sty text.Style, s string, width vg.Length, breakWords bool) (lines []string, ok bool) {
	ok = true
	line := ""
	for _, word := range strings.Fields(s) {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if sty.Width(try) <= width+wrapSlack {
			line = try
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		line = word
		if sty.Width(word) > width+wrapSlack {
			if !breakWords {
				ok = false
				continue
			}
			rs := []rune(word)
			for len(rs) > 0 {
				n := len(rs)
				for n > 1 && sty.Width(string(rs[:n])) > width+wrapSlack {
					n--
				}
				if n == len(rs) {
					break
				}
				lines = append(lines, string(rs[:n]))
				rs = rs[n:]
			}
			line = string(rs)
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines, ok
}

// textBox is the rectangle text takes when its box is anchored at pt:
// ax = -1, 0, 1 puts pt at the box's left, centre or right; ay = -1, 0, 1 at
// its bottom, middle or top.
func textBox(sty text.Style, s string, pt vg.Point, ax, ay float64) vg.Rectangle {
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	r := sty.Rectangle(s)
	size := r.Size()
	min := vg.Point{X: pt.X - vg.Length((ax+1)/2)*size.X, Y: pt.Y - vg.Length((ay+1)/2)*size.Y}
	return vg.Rectangle{Min: min, Max: min.Add(size)}
}

// drawText draws s (turned by rot) so that its box is the rectangle box.
func drawText(c draw.Canvas, sty text.Style, s string, box vg.Rectangle, rot float64) {
	sty.Rotation = rot
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	r := sty.Rectangle(s)
	centre := vg.Point{X: (box.Min.X + box.Max.X) / 2, Y: (box.Min.Y + box.Max.Y) / 2}
	pt := centre.Sub(vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2})
	c.FillText(sty, pt, s)
}

// freeCorner looks for a place of the given size inside the data area where
// the rendered data (img, drawn without a legend) leave every pixel blank:
// first the corner the plot's legend asks for, then the others, then the
// middles of the edges.
func freeCorner(img *image.RGBA, h vg.Length, data vg.Rectangle, size vg.Point, top, left bool) (vg.Rectangle, bool) {
	type spot struct{ fx, fy float64 } // 0 = left/bottom, 1 = right/top
	fx, fy := 1.0, 0.0
	if left {
		fx = 0
	}
	if top {
		fy = 1
	}
	spots := []spot{{fx, fy}, {1, 1}, {0, 1}, {1, 0}, {0, 0}, {0.5, 1}, {0.5, 0}, {1, 0.5}, {0, 0.5}}
	free := data.Size().Sub(size)
	if free.X < 0 || free.Y < 0 {
		return vg.Rectangle{}, false
	}
	for _, s := range spots {
		min := data.Min.Add(vg.Point{X: vg.Length(s.fx) * free.X, Y: vg.Length(s.fy) * free.Y})
		r := vg.Rectangle{Min: min, Max: min.Add(size)}
		if inked(img, h, r) == 0 {
			return r, true
		}
	}
	return vg.Rectangle{}, false
}

// inked counts the drawn pixels of img inside r (points, y up; the canvas is
// h points high).
func inked(img *image.RGBA, h vg.Length, r vg.Rectangle) int {
	b := pixelRect(h, r).Intersect(img.Bounds())
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if isInk(img.RGBAAt(x, y)) {
				n++
			}
		}
	}
	return n
}

func isInk(c color.RGBA) bool { return c.R < inkLevel || c.G < inkLevel || c.B < inkLevel }

// pixelRect converts a rectangle in points (y up) to pixels (y down),
// rounding outwards.
func pixelRect(h vg.Length, r vg.Rectangle) image.Rectangle {
	px := func(v vg.Length) float64 { return v.Dots(dpi) }
	return image.Rect(int(math.Floor(px(r.Min.X))), int(math.Floor(px(h-r.Max.Y))), int(math.Ceil(px(r.Max.X))), int(math.Ceil(px(h-r.Min.Y))))
}
