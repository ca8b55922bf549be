package viz

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one curve: Y against X, with an optional shaded range
// [Lo, Hi] (nil for none).
type Series struct {
	Name   string
	X, Y   []float64
	Lo, Hi []float64
}

// BarSeries is one bar per category, with optional symmetric error bars.
type BarSeries struct {
	Name   string
	Values []float64
	Errors []float64 // nil for none
}

// Default figure size for static charts.
const (
	Width  = 16 * vg.Centimeter
	Height = 9 * vg.Centimeter
)

// PNG renders a plot as PNG bytes of the given size.
func PNG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	wt, err := p.WriterTo(w, h, "png")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
// (values must then be positive).
func Lines(title, xLabel, yLabel string, series []Series, logY bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	p.Legend.Top = true
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("series %q: %d x values, %d y values", s.Name, len(s.X), len(s.Y))
		}
		c := plotutil.Color(i)
		if s.Lo != nil && s.Hi != nil {
			if len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X) {
				return nil, fmt.Errorf("series %q: range has %d/%d values for %d points", s.Name, len(s.Lo), len(s.Hi), len(s.X))
			}
			band := make(plotter.XYs, 0, 2*len(s.X))
			for j := range s.X {
				band = append(band, plotter.XY{X: s.X[j], Y: s.Hi[j]})
			}
			for j := len(s.X) - 1; j >= 0; j-- {
				band = append(band, plotter.XY{X: s.X[j], Y: s.Lo[j]})
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			r, g, b, _ := c.RGBA()
			poly.Color = color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 60}
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
	return p, nil
}

// Bars draws grouped bars, one group per category and one bar per series,
// with error bars where given.
func Bars(title, yLabel string, categories []string, series []BarSeries) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.Y.Label.Text = title, yLabel
	p.Legend.Top = true
	n := len(series)
	w := vg.Points(math.Max(4, 60/float64(max(n, 1))))
	for i, s := range series {
		if len(s.Values) != len(categories) {
			return nil, fmt.Errorf("bar series %q: %d values for %d categories", s.Name, len(s.Values), len(categories))
		}
		bars, err := plotter.NewBarChart(plotter.Values(s.Values), w)
		if err != nil {
			return nil, fmt.Errorf("bar series %q: %w", s.Name, err)
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Width = 0
		bars.Offset = vg.Length(float64(i)-float64(n-1)/2) * w
		p.Add(bars)
		p.Legend.Add(s.Name, bars)
		if s.Errors != nil {
			if len(s.Errors) != len(s.Values) {
				return nil, fmt.Errorf("bar series %q: %d errors for %d values", s.Name, len(s.Errors), len(s.Values))
			}
			eb := errorBars{values: s.Values, errs: s.Errors}
			ep, err := plotter.NewYErrorBars(eb)
			if err != nil {
				return nil, err
			}
			ep.XYs = nil
			ep.XYs = make(plotter.XYs, len(s.Values))
			for j := range s.Values {
				ep.XYs[j] = plotter.XY{X: float64(j), Y: s.Values[j]}
			}
			off := bars.Offset
			p.Add(shifted{ep, off})
		}
	}
	p.NominalX(categories...)
	// Headroom so the legend does not cover the tallest bars.
	p.Legend.Left = true
	p.Y.Max += 0.25 * (p.Y.Max - math.Min(p.Y.Min, 0))
	return p, nil
}

type errorBars struct{ values, errs []float64 }

func (e errorBars) Len() int                    { return len(e.values) }
func (e errorBars) XY(i int) (float64, float64) { return float64(i), e.values[i] }
func (e errorBars) YError(i int) (float64, float64) {
	return e.errs[i], e.errs[i]
}

// shifted draws error bars offset horizontally to sit on their bar.
type shifted struct {
	*plotter.YErrorBars
	off vg.Length
}

func (s shifted) Plot(c draw.Canvas, p *plot.Plot) {
	c.Rectangle.Min.X += s.off
	c.Rectangle.Max.X += s.off
	s.YErrorBars.Plot(c, p)
}

// Scatter draws point clouds, one colour per series (Lo/Hi are ignored);
// logX and logY use log scales (values must then be positive).
func Scatter(title, xLabel, yLabel string, series []Series, logX, logY bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	p.Legend.Top = true
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	for i, s := range series {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("series %q: %d x values, %d y values", s.Name, len(s.X), len(s.Y))
		}
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
		sc.GlyphStyle.Color = plotutil.Color(i)
		sc.GlyphStyle.Shape = plotutil.Shape(i)
		sc.GlyphStyle.Radius = vg.Points(2.5)
		p.Add(sc)
		p.Legend.Add(s.Name, sc)
	}
	return p, nil
}
