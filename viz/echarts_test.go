package viz

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The interactive charts are laid out by echarts in the browser, so they are
// checked there: headless Chromium draws each kind, and the boxes echarts
// gives its components (title, legend, plot, axes with their labels and
// names, zoom slider) must lie inside the chart and apart from each other.
// This is where 02's legend sat on the zoom slider.

// echartBox is a component's bounding box in CSS pixels.
type echartBox struct{ X, Y, W, H float64 }

func (a echartBox) overlaps(b echartBox) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// echartBoxesJS returns, as JSON, the chart's size and its components' boxes
// (the view group of each component, transformed to the chart's pixels).
const echartBoxesJS = `(function(){
  var chart = echarts.getInstanceByDom(document.querySelector('div[id]'));
  function box(type, i) {
    var m = chart.getModel().getComponent(type, i || 0);
    if (!m) return null;
    var g = chart.getViewOfComponentModel(m).group;
    var r = g.getBoundingRect().clone();
    var t = g.getComputedTransform();
    if (t) r.applyTransform(t);
    if (!(r.width > 0 && r.height > 0)) return null;
    return {X: r.x, Y: r.y, W: r.width, H: r.height};
  }
  var g = chart.getModel().getComponent('grid').coordinateSystem.getRect();
  return JSON.stringify({W: chart.getWidth(), H: chart.getHeight(),
    Boxes: {title: box('title'), legend: box('legend'), slider: box('dataZoom', 0),
      xAxis: box('xAxis'), yAxis: box('yAxis'), plot: {X: g.x, Y: g.y, W: g.width, H: g.height}}});
})()`

func findChromium(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, c := range []string{os.Getenv("PSUB_CHROMIUM"), "chromium", "chromium-browser", "/usr/bin/chromium"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
		tried = append(tried, c)
	}
	t.Skipf("skipping the browser check of the interactive charts: no Chromium (looked for %s; scripts/setup --browser installs it)", strings.Join(tried, ", "))
	return ""
}

func TestEChartsLayoutInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the browser check of the interactive charts in -short mode")
	}
	exe := findChromium(t)
	lib, err := EchartsLibrary()
	if err != nil {
		t.Skipf("skipping the browser check of the interactive charts: %v", err)
	}
	dir := t.TempDir()
	if _, err := WriteEchartsAsset(dir, lib); err != nil {
		t.Fatal(err)
	}
	var calls, run1, run2 []float64
	for i := range 400 {
		calls = append(calls, float64(i+1))
		run1, run2 = append(run1, float64(1000*(i+1))), append(run2, 1e9*float64(i+1)/400)
	}
	// 02's nine configurations: a legend of two lines.
	var many []Series
	for i, n := range []string{"1-pass, full", "1-pass, delayed", "2-pass delayed", "4 minibatches, delayed", "2-pass full",
		"def. submodular, cache 5", "1-pass, full, k = 20", "1-pass, delayed, tight, k = 20", "2-pass delayed, tight, k = 200, cache 5"} {
		many = append(many, Series{Name: n, X: calls[:300+10*i], Y: run1[:300+10*i]})
	}
	charts := map[string]string{
		"lines-two": EChartHTML(EChartLines("Margins computed, running total (log scale)", "QP call", "margins computed",
			[]Series{{Name: "delayed", X: calls, Y: run1}, {Name: "full", X: calls, Y: run2}}, true)),
		"lines-nine": EChartHTML(EChartLines("Margins computed per QP call (log scale)", "QP call", "margins computed", many, true)),
	}

	ctx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.WindowSize(900, 800),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"))...)
	defer cancel()
	ctx, cancel = chromedp.NewContext(ctx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	for name, html := range charts {
		page := filepath.Join(dir, name+".html")
		// The library loads as in a notebook, from the asset beside the page,
		// under an AMD define like require.js's: unwrapped, echarts would
		// register a module there and leave window.echarts undefined. The
		// page states no charset, so the library must be ASCII to measure
		// its text as in a UTF-8 page.
		amd := "<script>window.define = function(){ window.amdDefineCalled = true; }; define.amd = {};</script>"
		doc := "<!doctype html><html><body style=\"margin:0\">" + amd + EchartsLoader() + html + "</body></html>"
		if err := os.WriteFile(page, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx,
			chromedp.Navigate("file://"+page),
			chromedp.Poll[chromedp.Void](`window.echarts !== undefined && echarts.getInstanceByDom(document.querySelector('div[id]')) !== undefined`),
			chromedp.Sleep(300*time.Millisecond), // the first frame
		); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		js, err := chromedp.Run(ctx, chromedp.Evaluate[string](echartBoxesJS))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := chromedp.Do(ctx, chromedp.Sleep(1500*time.Millisecond)); err != nil { // the drawing animation
			t.Fatal(err)
		}
		shot, err := chromedp.Run(ctx, chromedp.Screenshot(`div[id]`, chromedp.NodeVisible))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := os.Getenv("VIZ_PNG_DIR"); d != "" {
			if err := os.WriteFile(filepath.Join(d, "echarts-"+name+".png"), shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var got struct {
			W, H  float64
			Boxes map[string]*echartBox
		}
		if err := json.Unmarshal([]byte(js), &got); err != nil {
			t.Fatalf("%s: %v in %s", name, err, js)
		}
		t.Logf("%s: %gx%g %s", name, got.W, got.H, js)
		chart := echartBox{0, 0, got.W, got.H}
		for part, b := range got.Boxes {
			if b == nil {
				continue
			}
			if b.X < 0 || b.Y < 0 || b.X+b.W > chart.W || b.Y+b.H > chart.H {
				t.Errorf("%s: %s %+v reaches outside the chart (%gx%g)", name, part, *b, chart.W, chart.H)
			}
		}
		for _, pair := range [][2]string{{"title", "legend"}, {"title", "plot"}, {"title", "yAxis"}, {"legend", "plot"}, {"legend", "yAxis"},
			{"legend", "xAxis"}, {"legend", "slider"}, {"slider", "xAxis"}, {"slider", "plot"}} {
			a, b := got.Boxes[pair[0]], got.Boxes[pair[1]]
			if a != nil && b != nil && a.overlaps(*b) {
				t.Errorf("%s: %s %+v overlaps %s %+v", name, pair[0], *a, pair[1], *b)
			}
		}
		for _, part := range []string{"title", "legend", "plot", "xAxis", "yAxis"} {
			if got.Boxes[part] == nil {
				t.Errorf("%s: no %s drawn", name, part)
			}
		}
		if strings.HasPrefix(name, "lines") && got.Boxes["slider"] == nil {
			t.Errorf("%s: no zoom slider drawn", name)
		}
	}
}

// WriteEchartsAsset writes the wrapped library beside the notebooks, and
// again only when the library changed.
func TestWriteEchartsAsset(t *testing.T) {
	dir := t.TempDir()
	p, err := WriteEchartsAsset(dir, "var echarts = 1;") // ASCII: kept as it is
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "assets", "echarts.min.js"); p != want {
		t.Errorf("written to %s, want %s", p, want)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != EchartsAssetJS("var echarts = 1;") || !strings.Contains(got, "(function(define, module, exports){\nvar echarts = 1;\n}).call(window, undefined, undefined, undefined);") {
		t.Errorf("asset holds %q", got)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteEchartsAsset(dir, "var echarts = 1;"); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); !st.ModTime().Equal(old) {
		t.Errorf("an unchanged library was written again")
	}
	if _, err := WriteEchartsAsset(dir, "var echarts = 2;"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "var echarts = 2;") {
		t.Errorf("a changed library was not written: %q", b)
	}
	if got, want := asciiJS(`m("国",t);x="😀"`), `m("\u56fd",t);x="\ud83d\ude00"`; got != want {
		t.Errorf("asciiJS: %s, want %s", got, want)
	}
	if got, want := EchartsLoader(), `<script src="assets/echarts.min.js"></script>`; got != want {
		t.Errorf("EchartsLoader() = %q, want %q", got, want)
	}
}

// x values on a geometric grid (06's training-set sizes) get a log axis in
// the interactive chart; consecutive calls (02's QP calls) a linear one.
func TestEChartLinesPicksLogXForGeometricGrids(t *testing.T) {
	grid := Series{Name: "hull", X: []float64{10, 30, 100, 300, 1000, 3000}, Y: []float64{0.5, 0.3, 0.2, 0.1, 0.05, 0.02}}
	calls := Series{Name: "margins", X: []float64{1, 2, 3, 4, 500}, Y: []float64{1, 2, 3, 4, 5}}
	if h := EChartHTML(EChartLines("t", "n", "y", []Series{grid}, false)); !strings.Contains(h, `"xAxis":[{"type":"log"`) {
		t.Errorf("geometric x grid not on a log axis:\n%s", h)
	}
	if h := EChartHTML(EChartLines("t", "n", "y", []Series{calls}, false)); !strings.Contains(h, `"xAxis":[{"type":"value"`) {
		t.Errorf("consecutive x values not on a linear axis:\n%s", h)
	}
}
