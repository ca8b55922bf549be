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
	for l := 0; l < len(byLabel)+8 && len(byLabel) > 0; l++ {
		pts, ok := byLabel[l]
		if !ok {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(3)
		switch l {
		case 0:
			s.GlyphStyle.Color = color.NRGBA{170, 200, 230, 255}
		case 1:
			s.GlyphStyle.Color = color.NRGBA{180, 30, 40, 255}
		default:
			s.GlyphStyle.Color = palette[(l-2)%len(palette)]
		}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("label %d", l), s)
		delete(byLabel, l)
	}
	if len(ringed) > 0 {
		s, err := plotter.NewScatter(ringed)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Shape = draw.RingGlyph{}
		s.GlyphStyle.Radius = vg.Points(5)
		s.GlyphStyle.Color = color.Black
		p.Add(s)
		p.Legend.Add("highlighted", s)
	}
	p.Legend.Top = true
	return p, nil
}
