package viz

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"

	"github.com/probably-submodular/crf/internal/modroot"
	"github.com/probably-submodular/crf/internal/safefile"
)

// EchartsNpmFile is the echarts file of the npm package, relative to the npm
// prefix where scripts/assets installs it (.cache/npm at the module root).
const EchartsNpmFile = "node_modules/echarts/dist/echarts.common.min.js"

// echartsRelPath is where scripts/setup installs the echarts npm package,
// relative to the module root.
const echartsRelPath = ".cache/npm/" + EchartsNpmFile

// EchartsLibrary returns the echarts JavaScript installed by scripts/setup
// (or the file named by PSUB_ECHARTS_JS), so charts render offline.
func EchartsLibrary() (string, error) {
	var tried []string
	if p := os.Getenv("PSUB_ECHARTS_JS"); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			return string(b), nil
		}
		tried = append(tried, p+" (PSUB_ECHARTS_JS)")
	}
	if root, err := modroot.Find(""); err == nil {
		p := filepath.Join(root, echartsRelPath)
		if b, err := os.ReadFile(p); err == nil {
			return string(b), nil
		}
		tried = append(tried, p)
	}
	return "", fmt.Errorf("interactive charts unavailable: echarts JavaScript not found (looked in %s); run scripts/setup", strings.Join(tried, ", "))
}

// EchartsAsset is where the echarts library sits, relative to a notebook's
// folder and to the rendered site's pages alike, and so the relative URL
// that loads it in both: Jupyter serves notebooks/assets/echarts.min.js
// beside the notebooks (/notebooks/assets/… redirects to /files/assets/…),
// and the site builder writes out/assets/echarts.min.js beside the pages.
// The library lives there once instead of inside every saved notebook.
const EchartsAsset = "assets/echarts.min.js"

// EchartsAssetJS is the file written at EchartsAsset: the library wrapped
// so that it always defines the global echarts, in ASCII. Pages that carry
// require.js (Jupyter's notebook and nbconvert's HTML do) would otherwise
// make its UMD wrapper register an anonymous AMD module and leave
// window.echarts undefined. The library's few non-ASCII characters (Chinese
// locale strings, and the "国" it measures text height with) are written as
// \uXXXX escapes, all inside string literals, so the file reads the same
// whatever encoding a page decodes its scripts with (a page without a
// charset got taller text boxes and overlapping titles).
func EchartsAssetJS(lib string) string {
	return "/* echarts for psub's notebooks (written by viz.WriteEchartsAsset from the npm package; " +
		"wrapped so that it defines window.echarts beside require.js) */\n" +
		"(function(define, module, exports){\n" + asciiJS(lib) + "\n}).call(window, undefined, undefined, undefined);\n"
}

// asciiJS writes every non-ASCII character of JavaScript source as \uXXXX
// escapes of its UTF-16 code units.
func asciiJS(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, "\\u%04x", u)
		}
	}
	return b.String()
}

// WriteEchartsAsset makes dir/EchartsAsset hold EchartsAssetJS(lib), the
// library's text (EchartsLibrary), writing it atomically when it is missing
// or differs, and returns its path.
func WriteEchartsAsset(dir, lib string) (string, error) {
	p := filepath.Join(dir, filepath.FromSlash(EchartsAsset))
	want := []byte(EchartsAssetJS(lib))
	if have, err := os.ReadFile(p); err == nil && bytes.Equal(have, want) {
		return p, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("interactive charts: %w", err)
	}
	if err := safefile.WriteBytes(p, want); err != nil {
		return "", fmt.Errorf("interactive charts: writing the echarts library: %w", err)
	}
	return p, nil
}

// EchartsLoader is the HTML output that loads the library for the charts
// after it: one script tag with the relative URL EchartsAsset. Charts wait
// for window.echarts (EChartHTML), so the order of loading does not matter.
func EchartsLoader() string {
	return `<script src="` + EchartsAsset + `"></script>`
}

// EChartHTML renders a go-echarts chart as an HTML fragment that draws
// itself once the echarts library (loaded by Header) is present. No CDN is
// referenced. Every y-axis name is aligned to start at its axis and run
// right, over the space reserved above the plot: echarts centres it on the
// axis line by default, which cuts a long name at the chart's left edge
// (go-echarts has no field for the name's alignment).
func EChartHTML(c render.Renderer) string {
	s := c.RenderSnippet()
	_, id, _ := strings.Cut(s.Element, `id="`)
	id, _, _ = strings.Cut(id, `"`)
	return s.Element + fmt.Sprintf(`<script type="text/javascript">
(function(){
  function draw(){
    if (!window.echarts) { setTimeout(draw, 100); return; }
    var c = echarts.init(document.getElementById(%q), null, {renderer: "canvas"});
    var o = %s;
    [].concat(o.yAxis || []).forEach(function(a){
      if (a && a.name) { a.nameTextStyle = Object.assign({align: "left"}, a.nameTextStyle || {}); }
    });
    c.setOption(o);
  }
  draw();
})();
</script>`, id, strings.TrimSuffix(strings.TrimSpace(s.Option), ";"))
}

// ShowEChart displays a go-echarts chart inline.
func ShowEChart(c render.Renderer) { ShowHTML(EChartHTML(c)) }

// Layout of the interactive charts, in CSS pixels: the title on the first
// line, the legend on as many lines as its entries need below it, the
// y-axis name above the plot, and under the plot the x-axis labels, the
// x-axis name and the zoom slider, each in a band of its own.
// echarts places the legend and the slider on top of the plot or of each
// other unless told where they go.
const (
	echartWidth     = 760
	echartPlot      = 240 // height of the plot itself
	echartTitleH    = 34  // title band
	echartLegendRow = 22  // one line of legend entries
	echartYNameH    = 28  // band for the y-axis name above the plot
	echartXAxisH    = 52  // x-axis labels and name below the plot
	echartSliderH   = 48  // echarts draws the slider 30 px high, 7+7 px from the bottom
	echartSide      = 16
)

// legendRows estimates how many lines echarts' legend needs at the chart's
// width: entries are a 25 px symbol, a 5 px gap, the name (at most 7.5 px a
// character at 12 px sans-serif, wider than echarts' measure) and a 10 px gap.
func legendRows(names []string) int {
	avail := float64(echartWidth - 2*echartSide)
	rows, x := 1, 0.0
	for _, n := range names {
		w := 25 + 5 + 7.5*float64(len([]rune(n))) + 10
		if x > 0 && x+w > avail {
			rows, x = rows+1, 0
		}
		x += w
	}
	return rows
}

// EChartLines builds an interactive line chart with a zoom slider and hover
// tooltips; series are drawn against their own x values on a numeric axis,
// a log axis when the x values grow geometrically (see geometric). logY uses
// a log y axis; a y label with "%" marks a percent axis, which ends at 100
// when the data reach past 50.
func EChartLines(title, xLabel, yLabel string, series []Series, logY bool) *charts.Line {
	// The series' names, for the legend, and their largest value, for a
	// percent axis.
	var names []string
	dataMax := math.Inf(-1)
	for _, s := range series {
		names = append(names, s.Name)
		for _, v := range s.Y {
			dataMax = math.Max(dataMax, v)
		}
	}
	yAxis := opts.YAxis{Name: yLabel, Scale: opts.Bool(true)}
	if logY {
		yAxis.Type = "log"
	} else if m, ok := percentMax(dataMax); ok && isPercent(yLabel) {
		yAxis.Max = m
	}
	xAxis := opts.XAxis{Type: "value", Name: xLabel, NameLocation: "middle", NameGap: 28, Scale: opts.Bool(true)}
	if geometric(series) {
		xAxis.Type = "log"
	}
	top := echartTitleH + legendRows(names)*echartLegendRow + echartYNameH
	bottom := echartXAxisH + echartSliderH
	l := charts.NewLine()
	l.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: fmt.Sprintf("%dpx", echartWidth), Height: fmt.Sprintf("%dpx", top+echartPlot+bottom)}),
		charts.WithColorsOpts(opts.Colors(seriesHex())),
		charts.WithTitleOpts(opts.Title{Title: title, Left: fmt.Sprint(echartSide), Top: "4", TitleStyle: &opts.TextStyle{FontSize: 15}}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "plain", Top: fmt.Sprint(echartTitleH), Left: fmt.Sprint(echartSide), Right: fmt.Sprint(echartSide), Padding: 0}),
		charts.WithGridOpts(opts.Grid{Top: fmt.Sprint(top), Bottom: fmt.Sprint(bottom), Left: "80", Right: "40"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider"}, opts.DataZoom{Type: "inside"}),
		charts.WithXAxisOpts(xAxis),
		charts.WithYAxisOpts(yAxis),
	)
	for i, s := range series {
		items := make([]opts.LineData, 0, len(s.Y))
		for j, y := range s.Y {
			if j < len(s.X) && !math.IsNaN(y) && !(logY && y <= 0) {
				items = append(items, opts.LineData{Value: []float64{s.X[j], y}})
			}
		}
		l.AddSeries(s.Name, items, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(len(items) <= 30)}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: cssColor(colorOf(s.Color, i))}),
			charts.WithLineStyleOpts(opts.LineStyle{Color: cssColor(colorOf(s.Color, i))}))
	}
	return l
}

// geometric reports whether every series' x values grow by a factor of at
// least 1.5 from one to the next and span two decades or more together
// (training-set sizes 10, 30, 100, …): on a linear axis all but the last few
// points of such a grid crowd into its left edge.
func geometric(series []Series) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for i, x := range s.X {
			if !(x > 0) || (i > 0 && x < 1.5*s.X[i-1]) {
				return false
			}
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	return hi >= 100*lo
}
