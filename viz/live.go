package viz

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The drawing of the live controls (notebooks 00 and 07): one frame per
// position of the controls, as HTML with inline SVG (no script, so it shows
// the same in the notebook, in the saved .ipynb and in the static site). A
// frame draws a labelled graph with some edges marked (the test
// segmentation with its non-submodular edges) beside one small panel per
// metric, where the values of earlier frames stay as a faint trace so a
// student sees which way the last change moved each number.

// LiveGraph is the graph a frame draws: node positions (in any unit; the
// drawing keeps the aspect ratio, y pointing down), edges, the true and the
// predicted label of every node (0 or 1), and the edges to mark.
type LiveGraph struct {
	Name        string
	Pos         [][2]float64
	Edges       [][2]int
	Truth, Pred []int
	Marked      []bool // per edge; nil marks none
	MarkedLabel string // what a marked edge means, for the legend
}

// LiveMetric is one number of a frame. Lo and Hi, when they differ, bracket
// the value (a certified interval), and the panel shows the interval.
type LiveMetric struct {
	Name   string
	Value  float64
	Lo, Hi float64 // both 0: no interval
	Format string  // fmt verb for the value, e.g. "%.1f %%" (default "%.4g")
	// Lower marks a metric for which less is better (an objective, an
	// error rate): its change is then green when it falls. Otherwise a rise
	// is green.
	Lower bool
}

func (m LiveMetric) text() string {
	f := m.Format
	if f == "" {
		f = "%.4g"
	}
	if m.interval() {
		return fmt.Sprintf(f+" … "+f, m.Lo, m.Hi)
	}
	return fmt.Sprintf(f, m.Value)
}

func (m LiveMetric) interval() bool { return (m.Lo != 0 || m.Hi != 0) && m.Lo != m.Hi }

// LiveFrame is what one position of the controls shows.
type LiveFrame struct {
	Title   string // the settings, e.g. "C4, C = 1, 4 training graphs"
	Note    string // a line under the title (time taken, how training stopped)
	Graph   LiveGraph
	Metrics []LiveMetric
}

// liveTraceLen is how many earlier frames the panels keep.
const liveTraceLen = 12

// Check reports what is inconsistent in the frame: lengths that do not
// match, edges out of range, labels other than 0 and 1, values that are not
// finite.
func (f LiveFrame) Check() error {
	g := f.Graph
	n := len(g.Pos)
	if len(g.Truth) != n || len(g.Pred) != n {
		return fmt.Errorf("live frame %q: %d positions, %d true and %d predicted labels", f.Title, n, len(g.Truth), len(g.Pred))
	}
	if g.Marked != nil && len(g.Marked) != len(g.Edges) {
		return fmt.Errorf("live frame %q: %d edge marks for %d edges", f.Title, len(g.Marked), len(g.Edges))
	}
	for i, e := range g.Edges {
		if e[0] < 0 || e[0] >= n || e[1] < 0 || e[1] >= n {
			return fmt.Errorf("live frame %q: edge %d (%d,%d) outside the %d nodes", f.Title, i, e[0], e[1], n)
		}
	}
	for k := range n {
		if g.Truth[k] < 0 || g.Truth[k] > 1 || g.Pred[k] < 0 || g.Pred[k] > 1 {
			return fmt.Errorf("live frame %q: node %d has labels %d (true), %d (predicted); want 0 or 1", f.Title, k, g.Truth[k], g.Pred[k])
		}
		for _, v := range g.Pos[k] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("live frame %q: node %d at %v", f.Title, k, g.Pos[k])
			}
		}
	}
	for _, m := range f.Metrics {
		for _, v := range []float64{m.Value, m.Lo, m.Hi} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("live frame %q: metric %q is %v (interval %v … %v)", f.Title, m.Name, m.Value, m.Lo, m.Hi)
			}
		}
	}
	return nil
}

// LiveHTML draws frame cur with the metrics of the frames before it (prev,
// oldest first; only their titles and metrics are used, matched by metric
// name, and only the last 12) as a faint trace.
//
// Every metric's panel carries data-metric (its name) and data-value (the
// value printed with %g, the upper end for an interval), and the frame's
// root carries data-title, so tests and scripts can read what is drawn.
func LiveHTML(cur LiveFrame, prev []LiveFrame) (string, error) {
	if err := cur.Check(); err != nil {
		return "", err
	}
	if len(prev) > liveTraceLen {
		prev = prev[len(prev)-liveTraceLen:]
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="psub-live" data-title="%s" style="font-family:sans-serif;font-size:13px;max-width:920px">`, html.EscapeString(cur.Title))
	fmt.Fprintf(&b, `<div style="font-weight:bold;font-size:14px">%s</div>`, html.EscapeString(cur.Title))
	if cur.Note != "" {
		fmt.Fprintf(&b, `<div style="color:#555">%s</div>`, html.EscapeString(cur.Note))
	}
	b.WriteString(`<div style="display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start">`)
	b.WriteString(liveGraphSVG(cur.Graph))
	b.WriteString(`<div>`)
	for _, m := range cur.Metrics {
		var trace []liveTracePoint
		for _, p := range prev {
			for _, pm := range p.Metrics {
				if pm.Name == m.Name {
					trace = append(trace, liveTracePoint{value: pm.plotted(), text: pm.text(), title: p.Title})
				}
			}
		}
		b.WriteString(liveMetricSVG(m, trace))
	}
	b.WriteString(`</div></div></div>`)
	return b.String(), nil
}

// plotted is the value a panel plots: the upper end of an interval (for the
// objective, the certified value).
func (m LiveMetric) plotted() float64 {
	if m.interval() {
		return m.Hi
	}
	return m.Value
}

type liveTracePoint struct {
	value       float64
	text, title string
}

// Colours of the drawing: those of GraphPlot for the labels.
const (
	liveBG     = "#aac8e6" // label 0
	liveFG     = "#b41e28" // label 1
	liveMarked = "#f08c00" // marked edges
	liveEdge   = "#c8c8c8"
)

func liveGraphSVG(g LiveGraph) string {
	const size, pad = 360.0, 14.0
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range g.Pos {
		minX, maxX = math.Min(minX, p[0]), math.Max(maxX, p[0])
		minY, maxY = math.Min(minY, p[1]), math.Max(maxY, p[1])
	}
	span := math.Max(maxX-minX, maxY-minY)
	if !(span > 0) {
		span = 1
	}
	scale := (size - 2*pad) / span
	xy := func(k int) (float64, float64) {
		return pad + (g.Pos[k][0]-minX)*scale, pad + (g.Pos[k][1]-minY)*scale
	}
	wrong, marked := 0, 0
	var b strings.Builder
	// The caption is HTML below the drawing, so a long MarkedLabel wraps
	// instead of running past the drawing's edge ("…(TGC truncates").
	fmt.Fprintf(&b, `<div style="width:%.0fpx">`, size)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" style="display:block">`, size, size, size, size)
	fmt.Fprintf(&b, `<rect width="%.0f" height="%.0f" fill="white" stroke="#ddd"/>`, size, size)
	// Plain edges first, marked edges over them.
	for pass := range 2 {
		for i, e := range g.Edges {
			m := g.Marked != nil && g.Marked[i]
			if m != (pass == 1) {
				continue
			}
			x0, y0 := xy(e[0])
			x1, y1 := xy(e[1])
			if m {
				marked++
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`, x0, y0, x1, y1, liveMarked)
			} else {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1"/>`, x0, y0, x1, y1, liveEdge)
			}
		}
	}
	r := math.Max(2.5, math.Min(7, 0.3*scale))
	for k := range g.Pos {
		x, y := xy(k)
		fill := liveBG
		if g.Pred[k] == 1 {
			fill = liveFG
		}
		stroke := `stroke="white" stroke-width="0.5"`
		if g.Pred[k] != g.Truth[k] {
			wrong++
			stroke = `stroke="black" stroke-width="2"`
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" %s/>`, x, y, r, fill, stroke)
	}
	b.WriteString(`</svg>`)
	dot := func(c string) string {
		return fmt.Sprintf(`<span style="display:inline-block;width:10px;height:10px;border-radius:5px;background:%s"></span>`, c)
	}
	fmt.Fprintf(&b, `<div class="psub-live-caption" style="line-height:1.4">%s: %d of %d nodes wrong (ringed)<br/>%s foreground &#160; %s background<br/>`,
		html.EscapeString(g.Name), wrong, len(g.Pos), dot(liveFG), dot(liveBG))
	fmt.Fprintf(&b, `<span style="display:inline-block;width:14px;height:3px;vertical-align:middle;background:%s"></span> <span data-marked="%d">%s: %d of %d edges</span></div></div>`,
		liveMarked, marked, html.EscapeString(cmp.Or(g.MarkedLabel, "marked edges")), marked, len(g.Edges))
	return b.String()
}

// liveMetricSVG draws one metric's panel: its name and value, the change
// since the previous frame, and a line through the values of the earlier
// frames (faint) ending at the current one.
func liveMetricSVG(m LiveMetric, trace []liveTracePoint) string {
	const w, h = 520.0, 86.0
	const left, right, top, bottom = 235.0, 14.0, 10.0, 12.0
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" class="psub-live-metric" data-metric="%s" data-value="%s" role="img" style="display:block">`,
		w, h, w, h, html.EscapeString(m.Name), strconv.FormatFloat(m.plotted(), 'g', -1, 64))
	fmt.Fprintf(&b, `<text x="4" y="20" fill="#333">%s</text>`, html.EscapeString(m.Name))
	fmt.Fprintf(&b, `<text x="4" y="46" font-size="20" font-weight="bold">%s</text>`, html.EscapeString(m.text()))
	if len(trace) == 0 {
		// Nothing to compare with yet (and never, in a static page): no
		// trace box, rather than an empty one.
		b.WriteString(`</svg>`)
		return b.String()
	}
	last := trace[len(trace)-1]
	d := m.plotted() - last.value
	arrow, col := "=", "#555"
	if m.Lower {
		d = -d // colour by better/worse; the arrow still shows the direction
	}
	switch {
	case d > 0:
		col = "#2a7a2a"
	case d < 0:
		col = "#a33"
	}
	switch raw := m.plotted() - last.value; {
	case raw > 0:
		arrow = "▲"
	case raw < 0:
		arrow = "▼"
	}
	fmt.Fprintf(&b, `<text x="4" y="68" fill="%s">%s was %s</text>`, col, arrow, html.EscapeString(last.text))
	fmt.Fprintf(&b, `<text x="4" y="82" fill="#888" font-size="10">(%s)</text>`, html.EscapeString(clipText(last.title, 36)))
	// The trace: earlier values faint, the current one bold.
	vals := make([]float64, 0, len(trace)+1)
	for _, p := range trace {
		vals = append(vals, p.value)
	}
	vals = append(vals, m.plotted())
	lo, hi := slices.Min(vals), slices.Max(vals)
	if hi-lo <= 1e-12*math.Max(1, math.Abs(hi)) {
		// One value (or all equal): a band of ±10 % around it, not below 0
		// for a value that is not.
		pad := math.Max(0.1*math.Abs(hi), 1e-9)
		if hi == 0 {
			pad = 1
		}
		lo, hi = lo-pad, hi+pad
		if vals[0] >= 0 {
			lo = math.Max(lo, 0)
		}
	}
	// Points stay inside the box: a dot's radius (5) clear of each edge.
	const inset = 7.0
	x := func(i int) float64 {
		return left + inset + (w-left-right-2*inset)*float64(i+liveTraceLen-len(vals)+1)/float64(liveTraceLen)
	}
	y := func(v float64) float64 { return top + inset + (h-top-bottom-2*inset)*(hi-v)/(hi-lo) }
	fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="#fafafa" stroke="#eee"/>`, left, top, w-left-right, h-top-bottom)
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" fill="#999" text-anchor="end">%s</text>`, left-3, top+inset+4, html.EscapeString(shortNum(hi)))
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="10" fill="#999" text-anchor="end">%s</text>`, left-3, h-bottom-inset+4, html.EscapeString(shortNum(lo)))
	var pts []string
	for i, v := range vals {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
	}
	fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#bbb" stroke-width="1.5"/>`, strings.Join(pts, " "))
	for i, p := range trace {
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#ccc"><title>%s: %s</title></circle>`, x(i), y(p.value), html.EscapeString(p.title), html.EscapeString(p.text))
	}
	n := len(vals) - 1
	fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5" fill="#1f4e9c"><title>now: %s</title></circle>`, x(n), y(vals[n]), html.EscapeString(m.text()))
	b.WriteString(`</svg>`)
	return b.String()
}

func shortNum(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
