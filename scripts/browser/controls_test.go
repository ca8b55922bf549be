package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/probably-submodular/crf/internal/safefile"
)

// controlsNotebook is the notebook TestLiveControls runs: its last cell is
// the live section (viz.RunLive).
const controlsNotebook = "notebooks/07-tradeoff.ipynb"

// liveDrawing is what the live section draws, read from the page: the
// frame's title, the status line and every metric panel's value.
type liveDrawing struct {
	Title   string
	State   string
	Count   int
	Status  string
	Metrics map[string]float64
	Trace   int // "was …" lines: earlier settings shown
	Marked  int // edges drawn as non-submodular
}

const liveDrawingJS = `(() => {
  const d = document.querySelector('.psub-live');
  const s = document.querySelector('.psub-live-status');
  const m = {};
  document.querySelectorAll('.psub-live-metric').forEach(e => { m[e.dataset.metric] = parseFloat(e.dataset.value); });
  const trace = [...document.querySelectorAll('.psub-live-metric text')].filter(t => t.textContent.includes(' was ')).length;
  return {title: d ? d.dataset.title : '', state: s ? s.dataset.state : '', count: s ? parseInt(s.dataset.count) : -1,
          status: s ? s.textContent : '', metrics: m, trace: trace,
          marked: parseInt((document.querySelector('.psub-live [data-marked]') || {dataset: {marked: '-1'}}).dataset.marked)};
})()`

// liveRun is a notebook run in Jupyter's UI up to its live section.
type liveRun struct {
	p             *Page
	name, shotDir string
	tRun          time.Time // when Run All was pressed
}

// startLiveSection serves a copy of notebook through scripts/notebook (the
// committed notebook is never served), opens it in Chromium, runs all cells
// and waits until the live section of its last cell (viz.RunLive) is ready;
// the last cell gets the id psub-live-cell.
func startLiveSection(t *testing.T, notebook string) *liveRun {
	t.Helper()
	chromium := needBrowser(t)
	root, out := moduleRoot(t)
	jupyter, err := FindJupyter()
	if err != nil {
		t.Fatal(err)
	}
	dataDir, err := exec.Command(jupyter, "--data-dir").Output()
	if err != nil {
		t.Fatalf("%s --data-dir: %v", jupyter, err)
	}
	if k := filepath.Join(strings.TrimSpace(string(dataDir)), "kernels/gonb/kernel.json"); !exists(k) {
		t.Fatalf("the gonb kernel is not registered (no %s): run scripts/setup", k)
	}
	serve := t.TempDir()
	if err := mirrorModule(root, serve, notebook); err != nil {
		t.Fatal(err)
	}
	name := strings.TrimSuffix(filepath.Base(notebook), ".ipynb")
	shotDir := filepath.Join(out, "browser")
	j, err := StartNotebook(filepath.Join(root, "scripts/notebook"), serve, filepath.Join(shotDir, "controls-"+name+"-jupyter.log"),
		[]string{"PSUB_PROFILE=quick"})
	t.Cleanup(j.Stop)
	if err != nil {
		t.Fatal(err)
	}
	b := startBrowser(t, chromium, true)
	p, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.Navigate(j.URL+"/notebooks/"+notebook+"?token="+j.Token, time.Minute); err != nil {
		t.Fatalf("opening the notebook: %v", err)
	}
	if err := p.WaitFor("the notebook and a connected gonb kernel",
		`window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()
		 && document.querySelector('#kernel_indicator_icon.kernel_idle_icon')`, 2*time.Minute, 500*time.Millisecond); err != nil {
		t.Fatalf("%v; page problems: %v; jupyter log:\n%s", err, p.Problems(), tail(j.Log, 20))
	}
	// Fresh outputs only, then Cell > Run All.
	if _, err := Eval[bool](p, `(Jupyter.notebook.clear_all_output(), true)`, 30*time.Second); err != nil {
		t.Fatalf("clearing the outputs: %v", err)
	}
	started, err := Eval[int](p, `(() => {
		document.querySelector('#run_all_cells > a').click();
		return document.querySelectorAll('.code_cell.running').length;
	})()`, 30*time.Second)
	if err != nil || started == 0 {
		t.Fatalf("Cell > Run All started no cell (running: %d, err %v)", started, err)
	}
	tRun := time.Now()

	// The live cell is the last one; it keeps running while its controls
	// are live, so wait for its controls rather than for an idle kernel.
	state, err := poll(p, `(() => {
		const s = document.querySelector('.psub-live-status');
		if (document.querySelector('#notebook .output_error')) return 'a cell failed';
		return s && s.dataset.state === 'ready' ? 'ready' : '';
	})()`, runTimeout)
	if err != nil || state != "ready" {
		shoot(t, p, filepath.Join(shotDir, "controls-"+name+"-failed.png"), "#site")
		for _, e := range cellErrors(t, p) {
			t.Error(e)
		}
		t.Fatalf("waiting for the live section's controls: %q, %v; jupyter log:\n%s", state, err, tail(j.Log, 30))
	}
	t.Logf("Run All: %s's live section was ready after %.1fs", name, time.Since(tRun).Seconds())
	if _, err := Eval[bool](p, `(() => { const c = Jupyter.notebook.get_cells(); c[c.length-1].element[0].id = 'psub-live-cell'; return true; })()`, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	return &liveRun{p: p, name: name, shotDir: shotDir, tRun: tRun}
}

// stop presses the live section's stop button, checks that the cell ended
// and that no cell or page shows a problem.
func (r *liveRun) stop(t *testing.T, last liveDrawing) {
	t.Helper()
	p, name := r.p, r.name
	if _, err := Eval[bool](p, `(() => { document.querySelector('.psub-live-controls [id$="-stop"] button').click(); return true; })()`, 10*time.Second); err != nil {
		t.Fatalf("pressing stop: %v", err)
	}
	if err := waitRun(t, p, 2*time.Minute); err != nil {
		t.Fatalf("after stop: %v", err)
	}
	end, _ := Eval[liveDrawing](p, liveDrawingJS, 10*time.Second)
	ended, _ := Eval[string](p, `(document.querySelector('.psub-live-ended') || {}).textContent || ''`, 10*time.Second)
	if !strings.Contains(ended, "stop button") || end.State != "ended" || end.Title != last.Title {
		t.Errorf("after stop: controls say %q, status %q (%s), drawing %q", ended, end.State, end.Status, end.Title)
	}
	for _, e := range cellErrors(t, p) {
		t.Error(e)
	}
	for _, pr := range p.Problems() {
		if gonbCommNoise(pr) {
			t.Logf("%s: %v (GoNB's widget connection, see gonbCommNoise)", name, pr)
			continue
		}
		t.Errorf("%s: %v", name, pr)
	}
}

// TestLiveControls runs notebook 07 in Jupyter's UI, as TestLiveNotebook
// runs 00 (a copy served through scripts/notebook; the committed notebook is
// never served), and works its live section as a student would: it moves
// the model control to C1, then to C4 together with the C slider (two
// changes at once: the second supersedes a fit of the first, and neither may
// be lost), and checks that each change redrew the section in place with
// the new settings, that test accuracy and objective changed, that the
// earlier settings stay as a trace, and that no cell shows an error; then
// it picks unconstrained training with TGC, whose non-submodular test edges
// must be counted and drawn. The stop button must end the cell. Screenshots of the section before and after
// the change go to out/browser/.
func TestLiveControls(t *testing.T) {
	t0 := time.Now()
	r := startLiveSection(t, controlsNotebook)
	p, name, shotDir, tRun := r.p, r.name, r.shotDir, r.tRun
	d0, err := Eval[liveDrawing](p, liveDrawingJS, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("default state: %q, %v", d0.Title, d0.Metrics)
	if !strings.HasPrefix(d0.Title, "C4, C = 1,") || len(d0.Metrics) != 4 {
		t.Fatalf("the default state drew %q with metrics %v; want C4 at C = 1 and 4 metrics", d0.Title, d0.Metrics)
	}

	// change sets the controls (the model by option text, the C slider by
	// position) and waits for the redraw of the settings they give.
	change := func(model string, cpos int, want string) liveDrawing {
		t.Helper()
		before, _ := Eval[liveDrawing](p, liveDrawingJS, 10*time.Second)
		tc := time.Now()
		js := fmt.Sprintf(`(() => {
			const sel = document.querySelector('[data-control="model"] select');
			const opt = [...sel.options].find(o => o.text === %q);
			if (!opt) throw new Error('no option %s');
			sel.value = opt.value; sel.dispatchEvent(new Event('change'));
			if (%d !== 999) {
				const r = document.querySelector('[data-control="C_reg (log scale)"] input[type=range]');
				r.value = String(%d); r.dispatchEvent(new Event('input')); r.dispatchEvent(new Event('change'));
			}
			return true;
		})()`, model, model, cpos, cpos)
		if _, err := Eval[bool](p, js, 10*time.Second); err != nil {
			t.Fatalf("moving the controls to %s: %v", model, err)
		}
		cond := fmt.Sprintf(`(() => {
			const d = document.querySelector('.psub-live'), s = document.querySelector('.psub-live-status');
			if (s && s.dataset.state === 'error') return 'error: ' + s.textContent;
			return d && d.dataset.title.startsWith(%q) && s.dataset.state === 'drawn' && parseInt(s.dataset.count) > %d ? 'drawn' : '';
		})()`, want, before.Count)
		if st, err := poll(p, cond, 2*time.Minute); err != nil || st != "drawn" {
			got, _ := Eval[liveDrawing](p, liveDrawingJS, 10*time.Second)
			t.Fatalf("waiting for the redraw of %s: %q, %v; the section shows %q, status %q", want, st, err, got.Title, got.Status)
		}
		d, err := Eval[liveDrawing](p, liveDrawingJS, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: redrawn %.2fs after the change (%s); %v", want, time.Since(tc).Seconds(), d.Status, d.Metrics)
		return d
	}
	c1 := change("C1", 999, "C1, C = 1,")
	elementShot(t, p, "#psub-live-cell .output_wrapper", filepath.Join(shotDir, "controls-"+name+"-before.png"))
	c4 := change("C4", 4, "C4, C = 10,")
	elementShot(t, p, "#psub-live-cell .output_wrapper", filepath.Join(shotDir, "controls-"+name+"-after.png"))
	for _, m := range []string{"test accuracy", "objective of the final w"} {
		a, okA := c1.Metrics[m]
		b, okB := c4.Metrics[m]
		if !okA || !okB || a == b {
			t.Errorf("%s: C1 drew %v, C4 at C = 10 drew %v; want a change", m, a, b)
		}
	}
	if c4.Trace == 0 {
		t.Error("after two changes no panel shows the earlier settings' value")
	}
	// Unconstrained training with TGC: non-submodular test edges, drawn.
	tgc := change("TGC", 999, "TGC, C = 10,")
	elementShot(t, p, "#psub-live-cell .output_wrapper", filepath.Join(shotDir, "controls-"+name+"-tgc.png"))
	if tgc.Metrics["non-submodular test edges"] <= 0 || tgc.Marked <= 0 {
		t.Errorf("TGC: %v %% non-submodular test edges, %d drawn; want some of both", tgc.Metrics["non-submodular test edges"], tgc.Marked)
	}
	if c4.Marked != 0 {
		t.Errorf("C4 drew %d non-submodular edges on its test graph; this problem has none", c4.Marked)
	}

	// The stop button ends the cell.
	r.stop(t, tgc)
	t.Logf("TestLiveControls took %.1fs (Run All to stop: %.1fs)", time.Since(t0).Seconds(), time.Since(tRun).Seconds())
}

// gonbCommNoise reports whether a page problem is noise of GoNB's widget
// connection (gonb_comm) in Jupyter Notebook 6, which RunLive survives:
//
//   - gonb_comm talks to the kernel over a websocket of its own, but the
//     kernel's messages on that comm (the acknowledgement of its opening,
//     heartbeats) are broadcast on iopub too, where the notebook's own comm
//     manager, which never opened that comm, logs "Comm promise not found
//     for comm id …". Our notebooks open no Jupyter comm of their own.
//   - gonb_comm gives up when the kernel's acknowledgement takes more than
//     0.5 s (a busy machine): a console error and an uncaught rejection
//     "comm_open_ack not received in time". GoNB installs it again at the
//     next use of comms, and RunLive's probe tries again.
//
// The live section's own checks say whether the controls worked.
func gonbCommNoise(pr Problem) bool {
	switch pr.Kind {
	case "console error":
		return strings.HasPrefix(pr.Text, "Comm promise not found for comm id ") ||
			pr.Text == "gonb_comm: failed to connect to kernel, communication (and widgets) will not work: comm_open_ack not received in time"
	case "exception":
		return strings.HasPrefix(pr.Text, "Uncaught (in promise) Error: comm_open_ack not received in time")
	}
	return false
}

// poll evaluates js (a string expression) until it is not empty, and
// returns it; it gives up after timeout.
func poll(p *Page, js string, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		s, err := Eval[string](p, js, 30*time.Second)
		if err == nil && s != "" {
			return s, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("nothing after %v (last error %v)", timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cellErrors lists the code cells that show an error or failed in their
// stderr.
func cellErrors(t *testing.T, p *Page) []string {
	cells, err := Eval[[]liveCell](p, cellsJS, time.Minute)
	if err != nil {
		return []string{fmt.Sprintf("reading the cells: %v", err)}
	}
	var out []string
	for _, c := range cells {
		if c.Type != "code" {
			continue
		}
		where := fmt.Sprintf("cell %d (%.60q)", c.Index, c.Source)
		for _, e := range c.Errors {
			out = append(out, fmt.Sprintf("%s shows an error: %s", where, clip(e, 600)))
		}
		for _, s := range c.Stderr {
			if line := StreamError(s); line != "" {
				out = append(out, fmt.Sprintf("%s failed: %q in its stderr:\n%s", where, line, clip(s, 600)))
			}
		}
	}
	return out
}

// elementShot saves a PNG of one element. Jupyter's page scrolls inside
// #site, so the viewport is first made tall enough to hold all of it (as
// Page.Screenshot does), and restored after.
func elementShot(t *testing.T, p *Page, sel, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	extra, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const e = document.querySelector('#site'); return e ? e.scrollHeight - e.clientHeight : 0; })()`))
	if err != nil {
		t.Errorf("screenshot of %s: %v", sel, err)
		return
	}
	if extra > 0 {
		_, err := cdp.Call(ctx, chromedp.FromContext(ctx).Target, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(p.b.width), Height: int64(float64(p.b.height) + extra), DeviceScaleFactor: 1,
		})
		if err != nil {
			t.Errorf("screenshot of %s: %v", sel, err)
			return
		}
		defer func() {
			if _, err := cdp.Call(ctx, chromedp.FromContext(ctx).Target, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err == nil {
				chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.dispatchEvent(new Event('resize'))`))
			}
		}()
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.dispatchEvent(new Event('resize'))`), chromedp.Sleep(time.Second)); err != nil {
			t.Errorf("screenshot of %s: %v", sel, err)
			return
		}
	}
	buf, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	if err != nil {
		t.Errorf("screenshot of %s: %v", sel, err)
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Error(err)
		return
	}
	if err := safefile.WriteBytes(path, buf); err != nil {
		t.Error(err)
		return
	}
	t.Logf("screenshot: %s", path)
}

func TestGonbCommNoise(t *testing.T) {
	for _, c := range []struct {
		pr   Problem
		want bool
	}{
		{Problem{Kind: "console error", Text: "Comm promise not found for comm id 4c502f10-6c61-4868-91d1-aa02bb66ceb5"}, true},
		{Problem{Kind: "console error", Text: "gonb_comm: failed to connect to kernel, communication (and widgets) will not work: comm_open_ack not received in time"}, true},
		{Problem{Kind: "exception", Text: "Uncaught (in promise) Error: comm_open_ack not received in time\n    at <anonymous>:351:28"}, true},
		{Problem{Kind: "console error", Text: "gonb_comm: failed to connect to kernel, communication (and widgets) will not work: websocket closed"}, false},
		{Problem{Kind: "exception", Text: "Uncaught TypeError: echarts is not defined"}, false},
		{Problem{Kind: "load failed", Text: "Comm promise not found for comm id x"}, false},
	} {
		if got := gonbCommNoise(c.pr); got != c.want {
			t.Errorf("gonbCommNoise(%v) = %v, want %v", c.pr, got, c.want)
		}
	}
}
