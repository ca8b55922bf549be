package viz

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/probably-submodular/crf/viz/chart"
)

// Series is one curve: Y against X, with an optional shaded range
// [Lo, Hi] (nil for none).
type Series struct {
	Name   string
	X, Y   []float64
	Lo, Hi []float64
	// Color, when set, is the series' colour in static and interactive
	// charts alike; nil means SeriesColor of its position in the chart. A
	// notebook that shows a series in charts of different series sets sets
	// it (say to SeriesColor of the series' place in the full set) so the
	// series keeps one colour.
	Color color.Color
}

// BarSeries is one bar per category, with optional symmetric error bars.
type BarSeries struct {
	Name   string
	Values []float64
	Errors []float64   // nil for none
	Color  color.Color // as Series.Color
}

// colorOf is the colour of the series at position i with colour c.
func colorOf(c color.Color, i int) color.NRGBA {
	if c == nil {
		return SeriesColor(i)
	}
	return color.NRGBAModel.Convert(c).(color.NRGBA)
}

// Default figure size for static charts.
const (
	Width  = 16 * vg.Centimeter
	Height = 9 * vg.Centimeter
)

// PNG renders a plot as PNG bytes of the given size. Whoever built the
// plot, viz lays out its title, axis labels and legend (see renderPlot): titles
// and labels wrap or shrink to fit, the legend goes where it covers no data.
func PNG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	img, _, err := renderPlot(p, w, h)
	if err != nil {
		return nil, err
	}
	return EncodePNG(img)
}

// ShowPlot displays a plot inline as PNG at the default size.
func ShowPlot(p *plot.Plot) error {
	b, err := PNG(p, Width, Height)
	if err != nil {
		return err
	}
	ShowPNG(b)
	return nil
}

// Lines draws curves with optional shaded ranges; logY uses a log scale
// (values must then be positive). A y label with "%" marks a percent axis,
// which ends at 100 when the data reach past 50.
func Lines(title, xLabel, yLabel string, series []Series, logY bool) (*plot.Plot, error) {
	p, err := newPlot(title, xLabel, yLabel, series, false, logY)
	if err != nil {
		return nil, err
	}
	for i, s := range series {
		c := colorOf(s.Color, i)
		if s.Lo != nil && s.Hi != nil {
			if len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X) {
				return nil, fmt.Errorf("series %q: range has %d/%d values for %d points", s.Name, len(s.Lo), len(s.Hi), len(s.X))
			}
			band := make(plotter.XYs, 2*len(s.X)) // along Hi, back along Lo
			for j, x := range s.X {
				band[j], band[len(band)-1-j] = plotter.XY{X: x, Y: s.Hi[j]}, plotter.XY{X: x, Y: s.Lo[j]}
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			poly.Color = color.NRGBA{c.R, c.G, c.B, 60}
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		pts := make(plotter.XYs, len(s.X))
		for j := range s.X {
			y := s.Y[j]
			if logY && y <= 0 {
				y = math.NaN()
			}
			pts[j] = plotter.XY{X: s.X[j], Y: y}
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		line.Color = c
		line.Width = vg.Points(1.5)
		line.Dashes = plotutil.Dashes(i)
		p.Add(line)
		p.Legend.Add(s.Name, line)
	}
	percentAxis(p, yLabel, logY)
	return p, nil
}

// percentAxis ends a percent axis at 100 when the data reach past half of
// it (see percentMax).
func percentAxis(p *plot.Plot, yLabel string, logY bool) {
	if isPercent(yLabel) && !logY {
		if top, ok := percentMax(p.Y.Max); ok {
			p.Y.Max = top
		}
	}
}

// Bars draws grouped bars, one group per category and one bar per series,
// with error bars where given (NaN values leave their bar out). The groups
// fill 80 % of each category's slot, so a gap separates them and each group
// sits centred on its label whatever the number of bars and the width of
// the figure. The value axis starts at zero; a caller who raises p.Y.Min
// gets the axis label marked "axis starts at …". A y label with "%" marks a
// percent axis, which ends at 100 when the data reach past 50.
func Bars(title, yLabel string, categories []string, series []BarSeries) (*plot.Plot, error) {
	return bars(title, yLabel, categories, series, false)
}

// LogBars is Bars on a log value axis, for values that span decades (the
// short bars are then as readable as the long ones). Every value must be
// positive (NaN leaves its bar out); the axis runs over whole decades.
func LogBars(title, yLabel string, categories []string, series []BarSeries) (*plot.Plot, error) {
	for _, s := range series {
		for j, v := range s.Values {
			if v <= 0 {
				return nil, fmt.Errorf("bar chart %q: series %q, %s: value %g cannot be drawn on a log axis", title, s.Name, categories[min(j, len(categories)-1)], v)
			}
		}
	}
	return bars(title, yLabel, categories, series, true)
}

// PlotBars draws b with Bars, or LogBars when b.LogY.
func PlotBars(b chart.Bars) (*plot.Plot, error) {
	if b.LogY {
		return LogBars(b.Title, b.Unit, b.Categories, BarSeriesOf(b.Series))
	}
	return Bars(b.Title, b.Unit, b.Categories, BarSeriesOf(b.Series))
}

// bars is Bars, or LogBars when logY, once every series has one value (and
// error) per category.
func bars(title, yLabel string, categories []string, series []BarSeries, logY bool) (*plot.Plot, error) {
	for _, s := range series {
		if len(s.Values) != len(categories) {
			return nil, fmt.Errorf("bar series %q: %d values for %d categories", s.Name, len(s.Values), len(categories))
		}
		if s.Errors != nil && len(s.Errors) != len(s.Values) {
			return nil, fmt.Errorf("bar series %q: %d errors for %d values", s.Name, len(s.Errors), len(s.Values))
		}
	}
	if len(categories) == 0 {
		return nil, fmt.Errorf("bar chart %q: no categories", title)
	}
	p := plot.New()
	p.Title.Text, p.Y.Label.Text = title, yLabel
	p.Legend.Top = true
	if logY {
		p.Y.Scale = plot.LogScale{}
	}
	g := &groupedBars{series: series, fill: 0.8, log: logY}
	p.Add(g)
	for i, s := range series {
		p.Legend.Add(s.Name, barThumb{colorOf(s.Color, i)})
	}
	p.NominalX(categories...)
	// NominalX pads the y axis by half the first name so that name is not
	// cut off; renderPlot keeps every name inside, and the padding would
	// only push the first group away from the axis.
	p.Y.Padding = plot.New().Y.Padding
	p.Y.Tick.Marker = barAxisTicks{}
	if logY {
		p.Y.Tick.Marker = logBarTicks{}
	}
	percentAxis(p, yLabel, logY)
	return p, nil
}

// groupedBars draws the bars of Bars: category j at x = j, its group of
// bars fill·(slot width) wide, bar i of the group in series i's colour.
type groupedBars struct {
	series []BarSeries
	fill   float64
	log    bool // on a log axis: the range starts at the smallest value, not 0
}

// DataRange spans every slot [j−½, j+½] and every bar from zero, error bars
// included.
func (g *groupedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = 0, 0
	if g.log {
		ymin, ymax = math.Inf(1), math.Inf(-1)
	}
	n := 0
	for _, s := range g.series {
		n = max(n, len(s.Values))
		for j, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			e := 0.0
			if s.Errors != nil && !math.IsNaN(s.Errors[j]) {
				e = math.Abs(s.Errors[j])
			}
			lo := v - e
			if g.log && lo <= 0 {
				lo = v // an error bar reaching zero is cut at the axis
			}
			ymin, ymax = math.Min(ymin, lo), math.Max(ymax, v+e)
		}
	}
	return -0.5, float64(n) - 0.5, ymin, ymax
}

// barRect is one bar as drawn: series i, category j, in canvas points.
type barRect struct {
	series, category int
	rect             vg.Rectangle
}

// rects places every bar on the data canvas c; values are clamped to the
// y range, so a bar below the axis start is not drawn past it.
func (g *groupedBars) rects(c draw.Canvas, p *plot.Plot) []barRect {
	trX, trY := p.Transforms(&c)
	clamp := func(v float64) float64 { return math.Max(p.Y.Min, math.Min(p.Y.Max, v)) }
	base := clamp(0)
	if _, log := p.Y.Scale.(plot.LogScale); log {
		base = p.Y.Min
	}
	slot := trX(1) - trX(0)
	n := len(g.series)
	w := slot * vg.Length(g.fill) / vg.Length(max(n, 1))
	var out []barRect
	for i, s := range g.series {
		for j, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			x0 := trX(float64(j)) - slot*vg.Length(g.fill)/2 + vg.Length(i)*w
			y0, y1 := trY(base), trY(clamp(v))
			out = append(out, barRect{i, j, vg.Rectangle{Min: vg.Point{X: x0, Y: min(y0, y1)}, Max: vg.Point{X: x0 + w, Y: max(y0, y1)}}})
		}
	}
	return out
}

func (g *groupedBars) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	clamp := func(v float64) float64 { return math.Max(p.Y.Min, math.Min(p.Y.Max, v)) }
	errSty := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	for _, b := range g.rects(c, p) {
		r := b.rect
		c.FillPolygon(colorOf(g.series[b.series].Color, b.series), []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
		s := g.series[b.series]
		if s.Errors == nil || math.IsNaN(s.Errors[b.category]) {
			continue
		}
		v, e := s.Values[b.category], math.Abs(s.Errors[b.category])
		x := (r.Min.X + r.Max.X) / 2
		lo, hi := trY(clamp(v-e)), trY(clamp(v+e))
		c.StrokeLine2(errSty, x, lo, x, hi)
		cap := min(r.Size().X*0.3, vg.Points(3))
		c.StrokeLine2(errSty, x-cap, lo, x+cap, lo)
		c.StrokeLine2(errSty, x-cap, hi, x+cap, hi)
	}
}

// barThumb is a bar series' legend entry: a filled box in its colour.
type barThumb struct{ c color.Color }

func (t barThumb) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(t.c, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// Scatter draws point clouds, one colour per series (Lo/Hi are ignored);
// logX and logY use log scales (values must then be positive).
func Scatter(title, xLabel, yLabel string, series []Series, logX, logY bool) (*plot.Plot, error) {
	p, err := newPlot(title, xLabel, yLabel, series, logX, logY)
	if err != nil {
		return nil, err
	}
	for i, s := range series {
		pts := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if (logX && s.X[j] <= 0) || (logY && s.Y[j] <= 0) {
				continue // not drawable on a log axis
			}
			pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		sc.GlyphStyle.Color = colorOf(s.Color, i)
		sc.GlyphStyle.Shape = plotutil.Shape(i)
		sc.GlyphStyle.Radius = vg.Points(2.5)
		p.Add(sc)
		p.Legend.Add(s.Name, sc)
	}
	percentAxis(p, yLabel, logY)
	return p, nil
}

// newPlot is the frame of Lines and Scatter: titles, the legend on top and
// log axes, once every series has one y value per x value.
func newPlot(title, xLabel, yLabel string, series []Series, logX, logY bool) (*plot.Plot, error) {
	for _, s := range series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("series %q: %d x values, %d y values", s.Name, len(s.X), len(s.Y))
		}
	}
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	p.Legend.Top = true
	if logX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	}
	return p, nil
}
