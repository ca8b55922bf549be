package browser

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNotebookURL(t *testing.T) {
	out := "\nOpen the notebooks at:  http://127.0.0.1:8890/tree?token=ab12\n(profile quick; Ctrl-C twice stops the server)\n"
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if u, ok := NotebookURL(line); ok {
			got = append(got, u)
		}
	}
	if len(got) != 1 || got[0] != "http://127.0.0.1:8890/tree?token=ab12" {
		t.Fatalf("NotebookURL found %q in the script's output", got)
	}
	base, tok, err := ParseNotebookURL(got[0])
	if err != nil || base != "http://127.0.0.1:8890" || tok != "ab12" {
		t.Errorf("ParseNotebookURL(%q) = %q, %q, %v", got[0], base, tok, err)
	}
	for _, bad := range []string{
		"http://127.0.0.1:8890/tree",                 // no token
		"http://127.0.0.1:8890/tree?token=",          // empty token
		"http://127.0.0.1/tree?token=ab",             // no port
		"https://127.0.0.1:8890/tree?token=ab",       // not what the script prints
		"http://127.0.0.1:8890/notebooks/x?token=ab", // not the file tree
		"127.0.0.1:8890/tree?token=ab",               // no scheme
		"http://[::1:8890/tree?token=ab",             // does not parse
	} {
		if _, _, err := ParseNotebookURL(bad); err == nil {
			t.Errorf("ParseNotebookURL(%q) accepted it", bad)
		}
	}
}

func TestOpenedProblems(t *testing.T) {
	good := Opened{
		Trusted: true, Indicator: "Trusted",
		Charts: []Chart{{ID: "a", Canvases: 1, Ink: 0.2}},
		Images: []Image{{Src: "data:image/png;base64,AA", Complete: true, Width: 100, PNG: true}},
		Tables: 1,
	}
	if p := good.Problems(); p != nil {
		t.Errorf("a trusted notebook with everything showing: %q", p)
	}
	// What an untrusted notebook shows: no charts, no markdown, PNGs still.
	bad := good
	bad.Trusted, bad.Indicator, bad.Tables = false, "Not Trusted", 0
	bad.Charts = []Chart{{ID: "a", Problem: "no canvas: echarts never drew it"}}
	got := strings.Join(bad.Problems(), "\n")
	for _, want := range []string{`not trusted (Jupyter.notebook.trusted false, toolbar says "Not Trusted")`,
		"saved chart #a not drawn: no canvas", "no markdown table shows"} {
		if !strings.Contains(got, want) {
			t.Errorf("untrusted: problems %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "image") {
		t.Errorf("untrusted: the PNG counts as a problem: %q", got)
	}
	// The UI's flag and the toolbar must agree.
	half := good
	half.Indicator = "Not Trusted"
	if p := half.Problems(); len(p) != 1 || !strings.HasPrefix(p[0], "not trusted") {
		t.Errorf("trusted flag but toolbar says Not Trusted: %q", p)
	}
	none := Opened{Trusted: true, Indicator: "Trusted", Images: []Image{{Src: "x.png", Complete: true, Width: 0, PNG: true}}}
	got = strings.Join(none.Problems(), "\n")
	for _, want := range []string{"no echarts chart", "saved image did not load", "no markdown table"} {
		if !strings.Contains(got, want) {
			t.Errorf("nothing shown: problems %q lack %q", got, want)
		}
	}
}

func TestWriteUnsigned(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "a.ipynb"), filepath.Join(dir, "b.ipynb")
	nb := `{"cells": [{"cell_type": "code", "execution_count": 3, "source": ["x := 1"], "outputs": [{"data": {"text/html": ["<b>a&b</b>"]}, "metadata": {"w": 0.125}}]},
 {"cell_type": "markdown", "source": ["# Title\n", "text"]}, {"cell_type": "markdown", "source": "second"}],
 "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	if err := os.WriteFile(src, []byte(nb), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeUnsigned(src, dst); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	var in, out map[string]any
	json.Unmarshal([]byte(nb), &in)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("the copy is not JSON: %v\n%s", err, b)
	}
	md := out["cells"].([]any)[1].(map[string]any)["source"].([]any)
	if len(md) != 3 || !strings.HasPrefix(md[2].(string), "\n\n<!-- unsigned copy for the browser test ") {
		t.Errorf("first markdown cell's source: %q", md)
	}
	// Everything else is as it was.
	out["cells"].([]any)[1].(map[string]any)["source"] = in["cells"].([]any)[1].(map[string]any)["source"]
	ib, _ := json.Marshal(in)
	ob, _ := json.Marshal(out)
	if !bytes.Equal(ib, ob) {
		t.Errorf("the copy differs beyond the first markdown cell:\n%s\n%s", ib, ob)
	}
	if bytes.Contains(b, []byte(`\u0026`)) {
		t.Errorf("HTML in outputs was escaped: %s", b)
	}
	// Two copies differ: no earlier signature can cover a new one.
	if err := writeUnsigned(src, dst+"2"); err != nil {
		t.Fatal(err)
	}
	if b2, _ := os.ReadFile(dst + "2"); bytes.Equal(b, b2) {
		t.Error("two unsigned copies are identical")
	}
	if err := os.WriteFile(src, []byte(`{"cells": [{"cell_type": "code", "source": []}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeUnsigned(src, dst); err == nil || !strings.Contains(err.Error(), "no markdown cell") {
		t.Errorf("a notebook without markdown: err %v", err)
	}
}
