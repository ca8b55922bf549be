package viz

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"
)

// echartsRelPath is where scripts/setup installs the echarts npm package,
// relative to the module root.
const echartsRelPath = ".cache/npm/node_modules/echarts/dist/echarts.common.min.js"

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
	if root, err := ModuleRoot(); err == nil {
		p := filepath.Join(root, echartsRelPath)
		if b, err := os.ReadFile(p); err == nil {
			return string(b), nil
		}
		tried = append(tried, p)
	}
	return "", fmt.Errorf("interactive charts unavailable: echarts JavaScript not found (looked in %s); run scripts/setup", strings.Join(tried, ", "))
}

// EChartHTML renders a go-echarts chart as an HTML fragment that draws
// itself once the echarts library (loaded by Header) is present. No CDN is
// referenced.
func EChartHTML(c render.Renderer) string {
	s := c.RenderSnippet()
	id := between(s.Element, `id="`, `"`)
	return s.Element + fmt.Sprintf(`<script type="text/javascript">
(function(){
  function draw(){
    if (!window.echarts) { setTimeout(draw, 100); return; }
    var c = echarts.init(document.getElementById(%q), null, {renderer: "canvas"});
    c.setOption(%s);
  }
  draw();
})();
</script>`, id, strings.TrimSuffix(strings.TrimSpace(s.Option), ";"))
}

// ShowEChart displays a go-echarts chart inline.
func ShowEChart(c render.Renderer) { ShowHTML(EChartHTML(c)) }

func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	if j := strings.Index(s, close); j >= 0 {
		return s[:j]
	}
	return s
}

// EChartLines builds an interactive line chart with a zoom slider and hover
// tooltips. All series must share the x values of the first one.
func EChartLines(title, xLabel, yLabel string, series []Series, logY bool) *charts.Line {
	l := charts.NewLine()
	yAxis := opts.YAxis{Name: yLabel}
	if logY {
		yAxis.Type = "log"
	}
	l.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: "760px", Height: "380px"}),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider"}, opts.DataZoom{Type: "inside"}),
		charts.WithXAxisOpts(opts.XAxis{Name: xLabel}),
		charts.WithYAxisOpts(yAxis),
	)
	if len(series) == 0 {
		return l
	}
	xs := make([]string, len(series[0].X))
	for i, x := range series[0].X {
		xs[i] = fmt.Sprint(x)
	}
	l.SetXAxis(xs)
	for _, s := range series {
		items := make([]opts.LineData, len(s.Y))
		for i, y := range s.Y {
			items[i] = opts.LineData{Value: y}
		}
		l.AddSeries(s.Name, items)
	}
	return l
}

// EChartBars builds an interactive grouped bar chart: one bar per series
// within each category.
func EChartBars(title, yLabel string, categories []string, series []BarSeries) *charts.Bar {
	b := charts.NewBar()
	b.SetGlobalOptions(
		charts.WithInitializationOpts(opts.Initialization{Width: "760px", Height: "380px"}),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Top: "bottom"}),
		charts.WithYAxisOpts(opts.YAxis{Name: yLabel, Scale: opts.Bool(true)}),
	)
	b.SetXAxis(categories)
	for _, s := range series {
		items := make([]opts.BarData, len(s.Values))
		for i, v := range s.Values {
			items[i] = opts.BarData{Value: v}
		}
		b.AddSeries(s.Name, items)
	}
	return b
}
