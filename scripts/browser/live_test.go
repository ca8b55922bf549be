package browser

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/probably-submodular/crf/viz"
)

// liveNotebook is the notebook TestLiveNotebook runs: it has both echarts
// charts and PNG images.
const liveNotebook = "notebooks/00-quickstart.ipynb"

// runTimeout bounds the whole Run All: a cold GoNB build takes 10–30 s per
// cell on the shared 2-core machine.
const runTimeout = 10 * time.Minute

// TestLiveNotebook runs a notebook in Jupyter's own UI, in a browser, as a
// reader would, and checks what it shows.
//
// The server is started the way the README tells users to, through
// scripts/notebook (with --no-setup: the test checks what scripts/setup
// provides instead of running it). The committed notebook is never served:
// Jupyter autosaves, and a save would replace its committed outputs. The
// server's root is a temporary folder holding a copy of the notebook in
// notebooks/ beside symbolic links to the module's go.mod, go.sum and
// folders, so the notebook's first cell (go work use "${GONB_DIR}/..") still
// finds the module one level up. The copy is byte-identical, so the
// signature scripts/setup stored for the committed notebook covers it.
//
// Before running anything the test checks what a reader sees on opening the
// notebook: Jupyter trusts it, and its saved charts, images and header table
// show. The subtest "unsigned" shows that this check can fail: a copy with
// one markdown cell changed (so no signature covers it) opens untrusted,
// without its charts and its markdown table. The subtest "committed" opens
// every other committed notebook the same way (served copies, echarts in
// assets/ beside them) and checks that each is trusted and shows its saved
// charts, images and header table.
func TestLiveNotebook(t *testing.T) {
	chromium := needBrowser(t)
	t0 := time.Now()
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

	committed := filepath.Join(root, liveNotebook)
	before, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	serve := t.TempDir()
	// Every committed notebook, to check each as opened (subtest "committed").
	saved, err := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	if err != nil || len(saved) == 0 {
		t.Fatalf("no committed notebooks in %s/notebooks (%v)", root, err)
	}
	var others []string
	for i, p := range saved {
		saved[i] = filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if saved[i] != liveNotebook {
			others = append(others, saved[i])
		}
	}
	if err := mirrorModule(root, serve, saved...); err != nil {
		t.Fatal(err)
	}
	unsigned := strings.TrimSuffix(liveNotebook, ".ipynb") + "-unsigned.ipynb"
	if err := writeUnsigned(filepath.Join(serve, liveNotebook), filepath.Join(serve, unsigned)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		after, err := os.ReadFile(committed)
		if err != nil {
			t.Errorf("reading %s after the test: %v", liveNotebook, err)
		} else if !bytes.Equal(before, after) {
			t.Errorf("%s changed while the test ran (sha256 %x -> %x); this test never serves it, so check who else edited it",
				liveNotebook, sha256.Sum256(before), sha256.Sum256(after))
		}
	})
	// The oracle for the trust the UI reports: nbformat's notary, asked
	// directly.
	signed, err := Signed(JupyterPython(jupyter), filepath.Join(serve, liveNotebook), filepath.Join(serve, unsigned))
	if err != nil {
		t.Fatal(err)
	}
	if !signed[0] {
		t.Fatalf("nbformat's notary holds no signature for %s (the served copy is byte-identical): run scripts/setup, which signs the committed notebooks (scripts/notebook runs it unless --no-setup)", liveNotebook)
	}
	if signed[1] {
		t.Fatalf("nbformat's notary says the changed copy %s is signed: the change did not change what is signed", unsigned)
	}

	name := strings.TrimSuffix(filepath.Base(liveNotebook), ".ipynb")
	shotDir := filepath.Join(out, "browser")
	tStart := time.Now()
	j, err := StartNotebook(filepath.Join(root, "scripts/notebook"), serve, filepath.Join(shotDir, "live-"+name+"-jupyter.log"),
		[]string{"PSUB_PROFILE=quick", "PSUB_LIVE_IDLE=2s"})
	t.Cleanup(j.Stop) // registered even when the start failed: Stop ends whatever started
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scripts/notebook printed %s/tree?token=…, which answered after %.1fs (serving %s, log %s)", j.URL, time.Since(tStart).Seconds(), serve, j.Log)

	b := startBrowser(t, chromium, true)

	t.Run("unsigned", func(t *testing.T) {
		tu := time.Now()
		p, err := b.NewPage()
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		if err := p.Navigate(j.URL+"/notebooks/"+unsigned+"?token="+j.Token, time.Minute); err != nil {
			t.Fatalf("opening the notebook: %v", err)
		}
		if err := p.WaitFor("the notebook", `window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded`, time.Minute, 200*time.Millisecond); err != nil {
			t.Fatalf("%v; page problems: %v", err, p.Problems())
		}
		// A short wait for the charts: nothing can draw them later, since
		// the sanitiser removed their scripts.
		o, err := p.ReadOpened(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		probs := o.Problems()
		for _, pr := range probs {
			t.Logf("%s: %s", unsigned, pr)
		}
		all := strings.Join(probs, "\n")
		for _, want := range []string{"not trusted (Jupyter.notebook.trusted false, toolbar says \"Not Trusted\")", "not drawn", "no markdown table shows"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s opened without the problem %q; it showed: %q", unsigned, want, probs)
			}
		}
		if len(o.Charts) == 0 {
			t.Errorf("%s: no chart declared in its saved outputs, so the check of charts proves nothing", unsigned)
		}
		// PNG outputs are safe: they show even here, so the page did render
		// the saved outputs.
		for _, pr := range probs {
			if strings.Contains(pr, "image") {
				t.Errorf("%s: %s (PNG outputs show in untrusted notebooks too)", unsigned, pr)
			}
		}
		t.Logf("%s: %d charts, %d images; checked in %.1fs", unsigned, len(o.Charts), len(o.Images), time.Since(tu).Seconds())
	})
	// Only the unsigned notebook's kernel is running; it is not needed.
	j.shutdownKernels()

	// The other committed notebooks, opened as a reader opens them: trusted,
	// every saved chart drawn (echarts loads from assets/ beside them), every
	// saved image loaded, the header's table shown.
	t.Run("committed", func(t *testing.T) {
		var paths []string
		for _, nb := range others {
			paths = append(paths, filepath.Join(serve, nb))
		}
		signed, err := Signed(JupyterPython(jupyter), paths...)
		if err != nil {
			t.Fatal(err)
		}
		for i, nb := range others {
			if !signed[i] {
				t.Errorf("%s: nbformat's notary holds no signature for it: run scripts/setup, which signs the committed notebooks", nb)
				continue
			}
			tn := time.Now()
			p, err := b.NewPage()
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Navigate(j.URL+"/notebooks/"+nb+"?token="+j.Token, time.Minute); err != nil {
				t.Errorf("%s: opening: %v", nb, err)
				p.Close()
				continue
			}
			if err := p.WaitFor("the notebook", `window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded`, time.Minute, 200*time.Millisecond); err != nil {
				t.Errorf("%s: %v; page problems: %v", nb, err, p.Problems())
				p.Close()
				continue
			}
			o, err := p.ReadOpened(30 * time.Second)
			if err != nil {
				t.Errorf("%s: %v", nb, err)
				p.Close()
				continue
			}
			for _, pr := range o.Problems() {
				// A notebook without interactive charts or PNGs lacks nothing.
				if pr != "no echarts chart in the saved outputs" && pr != "no saved PNG image shows" {
					t.Errorf("%s as opened: %s", nb, pr)
				}
			}
			name := strings.TrimSuffix(filepath.Base(nb), ".ipynb")
			shoot(t, p, filepath.Join(shotDir, "opened-"+name+".png"), "#site")
			t.Logf("%s as opened: trusted %v, %d saved charts, %d images, %d markdown tables; %.1fs",
				nb, o.Trusted, len(o.Charts), len(o.Images), o.Tables, time.Since(tn).Seconds())
			p.Close()
		}
		j.shutdownKernels()
	})

	p, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// The token in the URL logs the browser in and sets the cookie that
	// GoNB's websocket accepts.
	if err := p.Navigate(j.URL+"/notebooks/"+liveNotebook+"?token="+j.Token, time.Minute); err != nil {
		t.Fatalf("opening the notebook: %v", err)
	}
	if err := p.WaitFor("the notebook and a connected gonb kernel",
		`window.Jupyter && Jupyter.notebook && Jupyter.notebook._fully_loaded && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()
		 && document.querySelector('#kernel_indicator_icon.kernel_idle_icon')`, 2*time.Minute, 500*time.Millisecond); err != nil {
		t.Fatalf("%v; page problems: %v; jupyter log:\n%s", err, p.Problems(), tail(j.Log, 20))
	}
	// What a reader sees on opening the committed notebook.
	o, err := p.ReadOpened(30 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range o.Problems() {
		t.Errorf("%s as opened: %s", name, pr)
	}
	for _, c := range o.Charts {
		t.Logf("%s as opened: saved chart #%s drew on %d canvas(es), %.1f%% of pixels inked", name, c.ID, c.Canvases, 100*c.Ink)
	}
	t.Logf("%s as opened: trusted %v (toolbar %q), %d saved charts, %d images, %d markdown tables; %.1fs since the start",
		name, o.Trusted, o.Indicator, len(o.Charts), len(o.Images), o.Tables, time.Since(t0).Seconds())
	shoot(t, p, filepath.Join(shotDir, "live-"+name+"-opened.png"), "#site")

	// Fresh outputs only: committed outputs must not pass for the run's.
	if _, err := Eval[bool](p, `(Jupyter.notebook.clear_all_output(), true)`, 30*time.Second); err != nil {
		t.Fatalf("clearing the outputs: %v", err)
	}
	// Cell > Run All, through the menu item's own handler.
	started, err := Eval[int](p, `(() => {
		document.querySelector('#run_all_cells > a').click();
		return document.querySelectorAll('.code_cell.running').length;
	})()`, 30*time.Second)
	if err != nil || started == 0 {
		t.Fatalf("Cell > Run All started no cell (running: %d, err %v)", started, err)
	}
	tRun := time.Now()
	t.Logf("Run All: %d code cells queued", started)

	if err := waitRun(t, p, runTimeout); err != nil {
		shoot(t, p, filepath.Join(shotDir, "live-"+name+".png"), "#site")
		t.Fatalf("%v; jupyter log:\n%s", err, tail(j.Log, 30))
	}
	runSecs := time.Since(tRun).Seconds()
	p.WaitCharts(30 * time.Second)
	p.WaitImages(outputImages, 30*time.Second)

	cells, err := Eval[[]liveCell](p, cellsJS, time.Minute)
	if err != nil {
		t.Fatalf("reading the cells: %v", err)
	}
	code := 0
	for _, c := range cells {
		if c.Type != "code" {
			continue
		}
		code++
		where := fmt.Sprintf("cell %d (%.60q)", c.Index, c.Source)
		if c.Prompt == nil {
			t.Errorf("%s did not run (no execution count: aborted after an earlier error?)", where)
		}
		for _, e := range c.Errors {
			t.Errorf("%s shows an error: %s", where, clip(e, 600))
		}
		for _, s := range c.Stderr {
			if line := StreamError(s); line != "" {
				t.Errorf("%s failed: %q in its stderr:\n%s", where, line, clip(s, 600))
			}
		}
	}
	charts := checkCharts(t, p, name)
	imgs, pngs := checkImages(t, p, name, outputImages)
	t.Logf("%s: %d cells (%d code), %d echarts charts, %d images (%d PNG); Run All took %.1fs", name, len(cells), code, charts, imgs, pngs, runSecs)
	if charts == 0 {
		t.Errorf("%s: no echarts chart found after the run (the notebook has one: the convergence curves)", name)
	}
	if pngs == 0 {
		t.Errorf("%s: no PNG image found after the run (the notebook has several)", name)
	}
	// Debian's notebook UI loads cleanly on its own, so anything reported
	// came from the notebook's outputs (a chart script that threw, an image
	// that is not there), except the complaint about GoNB's widget comm.
	for _, pr := range p.Problems() {
		if gonbCommNoise(pr) {
			continue
		}
		t.Errorf("%s: %v", name, pr)
	}
	shoot(t, p, filepath.Join(shotDir, "live-"+name+".png"), "#site")
	t.Logf("TestLiveNotebook took %.1fs", time.Since(t0).Seconds())
}

// liveCell is one cell of the notebook UI after the run.
type liveCell struct {
	Index  int
	Type   string
	Source string
	Prompt *int // execution count; nil when the cell did not run
	Errors []string
	Stderr []string
}

const cellsJS = `Jupyter.notebook.get_cells().map((c, i) => {
  const el = c.element[0];
  const n = c.input_prompt_number;
  return {index: i, type: c.cell_type, source: c.get_text().slice(0, 200),
    prompt: typeof n === 'number' ? n : null,
    errors: [...el.querySelectorAll('.output_error, .js-error')].map(e => e.innerText),
    stderr: [...el.querySelectorAll('.output_stderr')].map(e => e.innerText)};
})`

// waitRun waits until no cell is queued or running and the kernel is idle,
// logging progress every half minute.
func waitRun(t *testing.T, p *Page, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	lastLog := time.Now()
	type state struct{ Running, Done, Code int }
	for {
		s, err := Eval[state](p, `(() => {
			const code = Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code');
			const idle = document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null;
			return {running: document.querySelectorAll('.code_cell.running').length + (idle ? 0 : 1),
			        done: code.filter(c => typeof c.input_prompt_number === 'number').length, code: code.length};
		})()`, 30*time.Second)
		if err == nil && s.Running == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cells still running after %v (%d of %d code cells done, err %v)", timeout, s.Done, s.Code, err)
		}
		if time.Since(lastLog) > 30*time.Second {
			t.Logf("running: %d of %d code cells done", s.Done, s.Code)
			lastLog = time.Now()
		}
		time.Sleep(time.Second)
	}
}

// mirrorModule fills dir with symbolic links to every top-level entry of the
// module root except notebooks/, out/ and .git, and copies of the notebooks
// and of the echarts library beside them (assets/echarts.min.js) at the same
// relative paths.
func mirrorModule(root, dir string, notebooks ...string) error {
	ents, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range ents {
		switch e.Name() {
		case "notebooks", "out", ".git":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	// The experiments' Go packages beside the notebooks (notebooks/cows,
	// notebooks/tradeoff, ...), which the cells import: linked, as the rest
	// of the module; the notebooks and assets/ are copied below.
	nbents, err := os.ReadDir(filepath.Join(root, "notebooks"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "notebooks"), 0o755); err != nil {
		return err
	}
	for _, e := range nbents {
		if strings.HasSuffix(e.Name(), ".ipynb") || e.Name() == "assets" || e.Name() == ".ipynb_checkpoints" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, "notebooks", e.Name()), filepath.Join(dir, "notebooks", e.Name())); err != nil {
			return err
		}
	}
	for _, nb := range notebooks {
		// The saved charts load echarts from assets/ beside the notebook,
		// which scripts/setup writes (viz.EchartsAsset).
		lib := filepath.Join(filepath.Dir(nb), filepath.FromSlash(viz.EchartsAsset))
		for _, f := range []string{nb, lib} {
			b, err := os.ReadFile(filepath.Join(root, f))
			if err != nil && f == lib {
				return fmt.Errorf("%w: the saved charts load it; run scripts/setup, which writes it", err)
			}
			if err != nil {
				return err
			}
			dst := filepath.Join(dir, f)
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeUnsigned writes to dst the notebook at src with a random HTML
// comment appended to its first markdown cell: invisible, but a change of
// content that no signature can cover. The rest is re-encoded unchanged.
func writeUnsigned(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // numbers come back as written
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	nonce := make([]byte, 8)
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	mark := fmt.Sprintf("\n\n<!-- unsigned copy for the browser test %x -->", nonce)
	cells, _ := doc["cells"].([]any)
	for _, c := range cells {
		cell, _ := c.(map[string]any)
		if cell == nil || cell["cell_type"] != "markdown" {
			continue
		}
		switch s := cell["source"].(type) {
		case string:
			cell["source"] = s + mark
		case []any:
			cell["source"] = append(s, mark)
		default:
			return fmt.Errorf("%s: a markdown cell's source is neither a string nor a list", src)
		}
		var out bytes.Buffer
		e := json.NewEncoder(&out)
		e.SetEscapeHTML(false)
		e.SetIndent("", " ")
		if err := e.Encode(doc); err != nil {
			return err
		}
		return os.WriteFile(dst, out.Bytes(), 0o644)
	}
	return fmt.Errorf("%s: no markdown cell to change", src)
}

// shoot saves the page's screenshots and logs their paths.
func shoot(t *testing.T, p *Page, path, scrollEl string) {
	t.Helper()
	files, err := p.Screenshot(path, scrollEl)
	if err != nil {
		t.Errorf("screenshot: %v", err)
	}
	for _, f := range files {
		t.Logf("screenshot: %s", f)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
