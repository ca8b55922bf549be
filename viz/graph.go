package viz

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// GraphPlot draws a graph with node positions: edges as thin grey lines
// and nodes coloured by label (label 0 light, 1 dark red, others from the
// overlay palette). highlight, when not nil, rings the nodes where it is
// true (e.g. wrongly labelled nodes).
func GraphPlot(title string, pos [][2]float64, edges [][2]int, labels []int, highlight []bool) (*plot.Plot, error) {
	if len(labels) != len(pos) {
		return nil, fmt.Errorf("graph plot: %d labels for %d nodes", len(labels), len(pos))
	}
	if highlight != nil && len(highlight) != len(pos) {
		return nil, fmt.Errorf("graph plot: %d highlight flags for %d nodes", len(highlight), len(pos))
	}
	p := plot.New()
	p.Title.Text = title
	p.HideAxes()
	for e, ed := range edges {
		if ed[0] < 0 || ed[0] >= len(pos) || ed[1] < 0 || ed[1] >= len(pos) {
			return nil, fmt.Errorf("graph plot: edge %d (%d,%d) out of range", e, ed[0], ed[1])
		}
		l, err := plotter.NewLine(plotter.XYs{{X: pos[ed[0]][0], Y: -pos[ed[0]][1]}, {X: pos[ed[1]][0], Y: -pos[ed[1]][1]}})
		if err != nil {
			return nil, err
		}
		l.Color = color.Gray{190}
		l.Width = vg.Points(0.5)
		p.Add(l)
	}
	byLabel := map[int]plotter.XYs{}
	var ringed plotter.XYs
	for i, q := range pos {
		byLabel[labels[i]] = append(byLabel[labels[i]], plotter.XY{X: q[0], Y: -q[1]})
		if highlight != nil && highlight[i] {
			ringed = append(ringed, plotter.XY{X: q[0], Y: -q[1]})
		}
	}
	scatter := func(name string, pts plotter.XYs, glyph draw.GlyphStyle) error {
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		s.GlyphStyle = glyph
		p.Add(s)
		p.Legend.Add(name, s)
		return nil
	}
	for l := 0; l < len(byLabel)+8 && len(byLabel) > 0; l++ {
		pts, ok := byLabel[l]
		if !ok {
			continue
		}
		var c color.Color
		switch l {
		case 0:
			c = color.NRGBA{170, 200, 230, 255}
		case 1:
			c = color.NRGBA{180, 30, 40, 255}
		default:
			c = palette[(l-2)%len(palette)]
		}
		if err := scatter(fmt.Sprintf("label %d", l), pts, draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}); err != nil {
			return nil, err
		}
		delete(byLabel, l)
	}
	if len(ringed) > 0 {
		if err := scatter("highlighted", ringed, draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5), Shape: draw.RingGlyph{}}); err != nil {
			return nil, err
		}
	}
	p.Legend.Top = true
	return p, nil
}
