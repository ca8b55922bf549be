package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/probably-submodular/crf/internal/runenv"
	"github.com/probably-submodular/crf/viz"
)

const demoHeadline = "C4 94.0 % vs paper 93.9 % (Δ +0.1); C4 > C1 at p < 1e-5"

// copyTree copies testdata/out into TMP/out, which the test may change.
func copyTree(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "out")
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

func TestSummaryOfExecutedNotebook(t *testing.T) {
	s, err := ReadSummary("testdata/out/notebooks/00-demo.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "00 · Demo" {
		t.Errorf("title %q, want the header's", s.Title)
	}
	if want := "embedded synthetic data (seed 1, `20` graphs) | no real data"; s.Data != want {
		t.Errorf("data %q, want %q", s.Data, want)
	}
	if s.Profile != "quick" {
		t.Errorf("profile %q", s.Profile)
	}
	if len(s.Headlines) != 1 || s.Headlines[0] != demoHeadline {
		t.Errorf("headlines %q", s.Headlines)
	}
	if s.Errors != 0 || len(s.Warnings) != 0 {
		t.Errorf("errors %d, warnings %q", s.Errors, s.Warnings)
	}
}

// TestIndexRows builds the index of the demo notebook plus a notebook that
// failed before nbconvert wrote it and one without a headline.
func TestIndexRows(t *testing.T) {
	out := copyTree(t, "testdata/out")
	// 01: failed, never written; the title comes from its source notebook,
	// whose path in the record is relative to out/'s parent.
	os.MkdirAll(filepath.Join(out, "..", "notebooks"), 0o755)
	writeNotebook(t, filepath.Join(out, "..", "notebooks", "01-broken.ipynb"), map[string]string{
		"text/markdown": "## 01 · Broken\n\n| data | committed run's data |\n| profile | `full` |\n",
		"text/html":     viz.HeadlineHTML("a committed run's headline"),
	})
	fail := Record{Name: "01-broken", Notebook: "notebooks/01-broken.ipynb", Status: "failed", Seconds: 3600,
		Profile: "quick", Run: "20261125T020000Z", Finished: time.Date(2026, 11, 25, 3, 1, 23, 0, time.UTC),
		Commit: "abc1234", Machine: "Test CPU", Errors: "cell 4: timeout after 3600 s"}
	if err := WriteRecord(out, fail); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "logs", "nb-01-broken.log"), []byte("timeout\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// 02: executed by an earlier run, header marker, no headline.
	writeNotebook(t, filepath.Join(out, "notebooks", "02-plain.ipynb"), map[string]string{
		"text/markdown": "## table title\n\n| data | from the table |\n| profile | `quick` |\n" + viz.HeaderMarker(viz.HeaderInfo{Title: "02 · Plain", Data: "from the marker", Run: runenv.Run{Profile: "full"}}),
	})
	old := fail
	old.Name, old.Notebook, old.Status, old.Seconds, old.Errors, old.Run = "02-plain", "notebooks/02-plain.ipynb", "ok", 12, "", "earlier"
	old.Finished = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	if err := WriteRecord(out, old); err != nil {
		t.Fatal(err)
	}

	s, err := LoadSite(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %q", s.Warnings)
	}
	if len(s.Rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(s.Rows), s.Rows)
	}
	want := []Row{
		{Name: "00-demo", Title: "00 · Demo", Page: "00-demo.html", Profile: "quick", Data: "embedded synthetic data (seed 1, `20` graphs) | no real data",
			Seconds: 83.4, Status: "ok", Headline: demoHeadline},
		{Name: "01-broken", Title: "01 · Broken", Log: "logs/nb-01-broken.log", Profile: "quick", Seconds: 3600, Status: "failed",
			Errors: "cell 4: timeout after 3600 s"},
		{Name: "02-plain", Title: "02 · Plain", Profile: "full", Data: "from the marker", Seconds: 12, Status: "ok",
			Earlier: "earlier run: 2026-11-20 09:00 UTC, commit abc1234"},
	}
	for i := range want {
		if s.Rows[i] != want[i] {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, s.Rows[i], want[i])
		}
	}
	if s.Run == nil || s.Run.Name != "01-broken" {
		t.Errorf("the run shown should be the newest record (01-broken), got %+v", s.Run)
	}

	if err := WriteIndex(out, s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, w := range []string{
		`<a href="00-demo.html">00 · Demo</a>`,
		`<td class="headline">C4 94.0 % vs paper 93.9 % (Δ &#43;0.1); C4 &gt; C1 at p &lt; 1e-5</td>`,
		// One line in the cell, the whole text in its title.
		`title="embedded synthetic data (seed 1, ` + "`20`" + ` graphs) | no real data">synthetic · embedded synthetic data (seed 1, <code>20</code> graphs)</td>`,
		`<td class="num">1 min 23 s</td>`,
		`<span class="failed">failed</span>`,
		`<a class="note" href="logs/nb-01-broken.log">log</a>`,
		`<td class="headline">—</td>`, // 01 and 02 have no headline
		"Run of 2026-11-25 03:01 UTC · commit <code>abc1234</code> · Test CPU",
		"3 notebooks: 2 ok, 1 failed",
		"earlier run: 2026-11-20 09:00 UTC",
	} {
		if !strings.Contains(page, w) {
			t.Errorf("index lacks %q", w)
		}
	}
	if strings.Contains(page, "<script") {
		t.Error("the index should need no script")
	}
	// No temporary file is left behind, and the whole site passes the check.
	if tmp, _ := filepath.Glob(filepath.Join(out, ".index.html.*")); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	n, problems, err := CheckSite(out)
	if err != nil || len(problems) > 0 || n != 2 {
		t.Errorf("check: %d pages, %v, %v; want 2 pages and no problems", n, problems, err)
	}
}

func writeNotebook(t *testing.T, path string, data map[string]string) {
	t.Helper()
	nb := map[string]any{
		"cells": []any{map[string]any{
			"cell_type": "code", "source": "x",
			"outputs": []any{map[string]any{"output_type": "display_data", "data": data}},
		}},
		"nbformat": 4, "nbformat_minor": 5,
	}
	b, err := json.Marshal(nb)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBrokenNotebookIsAWarning(t *testing.T) {
	out := t.TempDir()
	os.MkdirAll(filepath.Join(out, "notebooks"), 0o755)
	os.WriteFile(filepath.Join(out, "notebooks", "03-cut.ipynb"), []byte(`{"cells": [`), 0o644)
	s, err := LoadSite(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rows) != 1 || s.Rows[0].Title != "03-cut" || s.Rows[0].Headline != "" {
		t.Errorf("rows %+v", s.Rows)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "03-cut.ipynb: not a notebook") {
		t.Errorf("warnings %q, want one naming the file", s.Warnings)
	}
	if err := WriteIndex(out, s); err != nil {
		t.Fatal(err)
	}
}

func TestCheckPage(t *testing.T) {
	exists := map[string]bool{"static/require.js": true, "01-cows.html": true}
	local := func(ref string) string {
		if exists[ref] {
			return ""
		}
		return "missing"
	}
	cases := []struct {
		name, page string
		bad        bool
	}{
		{"debian's require.js", `<script src="file:///usr/share/javascript/requirejs/require.min.js"></script>`, true},
		{"mathjax from a CDN", `<script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js?config=TeX-AMS_CHTML-full,Safe"> </script>`, true},
		{"protocol-relative", `<script type="text/javascript" src='//cdn.example.org/x.js'></script>`, true},
		{"stylesheet", `<link rel="stylesheet" href="http://example.org/a.css">`, true},
		{"image", `<img alt="x" src=https://example.org/a.png>`, true},
		{"srcset", `<img src="data:image/png;base64,AA" srcset="a.png 1x, https://example.org/b.png 2x">`, true},
		{"css import", `<style>@import url("https://fonts.example.org/css?family=Roboto");</style>`, true},
		{"css file url", `<div style="background: url(file:///tmp/a.png)"></div>`, true},
		{"script loading a module", `<script>require.config({paths: {echarts: "https://cdn.jsdelivr.net/npm/echarts@5/dist/echarts.min.js"}});</script>`, true},
		{"file url in a script", `<script>var p = "file:///usr/share/javascript/jquery/jquery.min.js";</script>`, true},
		{"file link", `<a href="file:///home/me/out/01-cows.html">cows</a>`, true},
		{"root-absolute", `<script src="/static/require.js"></script>`, true},
		{"missing relative", `<script src="static/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"></script>`, true},
		{"broken link", `<a href="02-efficiency.html">02</a>`, true},
		{"uppercase", `<SCRIPT SRC="HTTPS://EXAMPLE.ORG/X.JS"></SCRIPT>`, true},

		{"local script", `<script src="static/require.js"></script>`, false},
		{"link to the paper", `<a href="https://arxiv.org/abs/1234.5678">paper</a>`, false},
		{"link to a page", `<a href="01-cows.html#results">cows</a>`, false},
		{"data uri", `<img src="data:image/png;base64,iVBORw0KGgo=">`, false},
		{"svg namespaces", `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><path d="M0 0"/></svg>`, false},
		{"commented out", `<!-- <script src="https://example.org/x.js"></script> -->`, false},
		{"html inside a script", `<script>var tip = '<img src="' + url + '">'; var ns = "http://www.w3.org/2000/svg";</script>`, false},
		{"css data and fragment", `<style>.a{background:url(data:image/svg+xml;base64,AA)} .b{fill:url(#grad)}</style>`, false},
		{"anchor", `<a href="#top">top</a>`, false},
	}
	for _, c := range cases {
		ps := CheckPage("p.html", []byte(c.page), local)
		if got := len(ps) > 0; got != c.bad {
			t.Errorf("%s: problems %v, want bad=%v", c.name, ps, c.bad)
		}
	}
}

func TestCheckPageLine(t *testing.T) {
	page := "<html>\n<head>\n<script src=\"file:///usr/share/javascript/requirejs/require.min.js\"></script>\n</head>"
	ps := CheckPage("out/00.html", []byte(page), nil)
	if len(ps) != 1 || ps[0].Line != 3 || !strings.Contains(ps[0].String(), "out/00.html:3: <script src>") {
		t.Fatalf("got %v, want one problem on line 3", ps)
	}
}

// TestCheckCommandFails is the loud failure scripts/reproduce relies on.
func TestCheckCommandFails(t *testing.T) {
	out := copyTree(t, "testdata/out")
	var stdout, stderr bytes.Buffer
	if err := run([]string{"check", "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("clean site: %v\n%s", err, stderr.String())
	}
	os.WriteFile(filepath.Join(out, "05-old.html"), []byte(`<script src="file:///usr/share/javascript/mathjax/MathJax.js"></script>`), 0o644)
	err := run([]string{"check", "-out", out}, &stdout, &stderr)
	if err == nil || !strings.Contains(stderr.String(), "05-old.html:1:") {
		t.Fatalf("want a failure naming 05-old.html, got %v\n%s", err, stderr.String())
	}
}

func TestSyncStatic(t *testing.T) {
	npm, out := t.TempDir(), t.TempDir()
	put := func(rel, body string) {
		p := filepath.Join(npm, "node_modules", filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range staticFiles {
		switch {
		case strings.HasSuffix(f.From, "/"):
			put(f.From+"a.js", f.From)
			put(f.From+"sub/b.woff", f.From)
		case strings.Contains(f.From, "*"):
			put(strings.Replace(f.From, "*", "Safe", 1), "safe")
			put(strings.Replace(f.From, "*", "MathMenu", 1), "menu")
		default:
			put(f.From, f.From)
		}
	}
	put("mathjax/unpacked/MathJax.js", "not needed")
	put("mathjax/extensions/a11y/mathjax-sre.js", "not needed")

	st, err := SyncStatic(npm, out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Copied != st.Files || st.Removed != 0 {
		t.Errorf("first sync: %+v", st)
	}
	for _, rel := range []string{"require.js", "mathjax/MathJax.js", "mathjax/config/Safe.js", "mathjax/extensions/Safe.js",
		"mathjax/extensions/MathMenu.js", "mathjax/jax/output/CommonHTML/sub/b.woff", "mathjax/fonts/HTML-CSS/TeX/woff/a.js"} {
		if _, err := os.Stat(filepath.Join(out, staticDir, filepath.FromSlash(rel))); err != nil {
			t.Errorf("%s not copied: %v", rel, err)
		}
	}
	for _, rel := range []string{"mathjax/unpacked/MathJax.js", "mathjax/extensions/a11y/mathjax-sre.js"} {
		if _, err := os.Stat(filepath.Join(out, staticDir, filepath.FromSlash(rel))); err == nil {
			t.Errorf("%s copied, but the pages do not need it", rel)
		}
	}
	// Again: nothing to do. A stale file goes, a changed one comes back.
	os.WriteFile(filepath.Join(out, staticDir, "old.js"), []byte("stale"), 0o644)
	os.WriteFile(filepath.Join(out, staticDir, "require.js"), []byte("edited"), 0o644)
	st2, err := SyncStatic(npm, out)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Copied != 1 || st2.Removed != 1 || st2.Files != st.Files {
		t.Errorf("second sync: %+v, want 1 copied and 1 removed", st2)
	}
	if b, _ := os.ReadFile(filepath.Join(out, staticDir, "require.js")); string(b) != "requirejs/require.js" {
		t.Errorf("require.js = %q", b)
	}
	// Without the npm packages: an error that says what to run.
	os.RemoveAll(filepath.Join(npm, "node_modules", "mathjax"))
	if _, err := SyncStatic(npm, out); err == nil || !strings.Contains(err.Error(), "scripts/assets") {
		t.Errorf("want an error naming scripts/assets, got %v", err)
	}
}

// The pages and the notebooks load echarts from assets/echarts.min.js
// beside them: `site echarts` writes it beside the notebooks, and says what
// to run when npm's copy is missing.
func TestEchartsCommand(t *testing.T) {
	npm, nbs := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"echarts", "-npm", npm, "-dir", nbs}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "scripts/assets") {
		t.Errorf("without npm's echarts: want an error naming scripts/assets, got %v", err)
	}
	lib := filepath.Join(npm, filepath.FromSlash(viz.EchartsNpmFile))
	os.MkdirAll(filepath.Dir(lib), 0o755)
	if err := os.WriteFile(lib, []byte("var echarts = {};"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"echarts", "-npm", npm, "-dir", nbs}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(nbs, filepath.FromSlash(viz.EchartsAsset)))
	if err != nil || string(b) != viz.EchartsAssetJS("var echarts = {};") {
		t.Errorf("%s holds %q (%v), want the wrapped library", viz.EchartsAsset, b, err)
	}
}

func TestNbconvertFlagsMatchStatic(t *testing.T) {
	// The URLs handed to nbconvert must name files that SyncStatic copies.
	copied := map[string]bool{}
	for _, f := range staticFiles {
		copied[staticDir+"/"+f.To] = true
	}
	for _, u := range []string{mathjaxURL, requireURL} {
		if p, _, _ := strings.Cut(u, "?"); !copied[p] {
			t.Errorf("%s is not among the copied files", p)
		}
	}
	// ",Safe" in MathJax's config parameter loads config/Safe.js.
	if !copied[staticDir+"/mathjax/config/Safe.js"] || !strings.HasSuffix(mathjaxURL, "config=TeX-AMS_CHTML-full,Safe") {
		t.Error("MathJax's configuration and the copied config files disagree")
	}
}

func TestRecordValidates(t *testing.T) {
	out := t.TempDir()
	for _, r := range []Record{
		{Name: "x", Status: "maybe", Profile: "quick"},
		{Name: "x", Status: "ok", Profile: "huge"},
		{Name: "x", Status: "ok", Profile: "quick", Seconds: -1},
	} {
		if err := WriteRecord(out, r); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	var stdout bytes.Buffer
	if err := run([]string{"record", "-out", out, "-notebook", "notebooks/07-tradeoff.ipynb", "-status", "ok", "-seconds", "61.5", "-profile", "quick", "-run", "r1"}, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	r, err := ReadRecord(recordPath(out, "07-tradeoff"))
	if err != nil || r == nil || r.Status != "ok" || r.Seconds != 61.5 || r.Run != "r1" || r.Machine == "" || r.Finished.IsZero() {
		t.Fatalf("record %+v, %v", r, err)
	}
}

func TestDuration(t *testing.T) {
	for sec, want := range map[float64]string{-1: "—", 7.4: "7 s", 83.4: "1 min 23 s", 3599: "59 min 59 s", 32723: "9.1 h"} {
		if got := duration(sec); got != want {
			t.Errorf("duration(%g) = %q, want %q", sec, got, want)
		}
	}
}

// The site's style goes in once, before </head>; a page without a head is
// an error, not a guess.
func TestStylePage(t *testing.T) {
	page := []byte("<html><head><title>x</title></head><body><pre>long</pre></body></html>")
	once, err := StylePage(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(once), pageStyle+"</head>") || !strings.Contains(string(once), "pre-wrap") {
		t.Errorf("styled page:\n%s", once)
	}
	twice, err := StylePage(once)
	if err != nil || string(twice) != string(once) {
		t.Errorf("styling twice changed the page (err %v)", err)
	}
	if _, err := StylePage([]byte("<pre>x</pre>")); err == nil {
		t.Error("a page without </head> was styled")
	}
}
