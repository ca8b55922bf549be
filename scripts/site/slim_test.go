package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/viz"
)

// nbText lays out a notebook as nbformat writes it (indent 1), its first
// output the inlined library split into lines, as the old viz.Header saved it.
func nbText(lib []string) string {
	var lines []string
	for _, l := range lib {
		lines = append(lines, "       "+string(jsonString(l)))
	}
	return `{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {},
   "outputs": [
    {
     "data": {
      "text/markdown": [
       "## Title <!-- marker -->"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    },
    {
     "data": {
      "text/html": [
` + strings.Join(lines, ",\n") + `
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    },
    {
     "data": {
      "text/html": [
       "<div id=\"c1\"></div><script>echarts.init(1)</script>"
      ]
     },
     "metadata": {},
     "output_type": "display_data"
    }
   ],
   "source": [
    "viz.Header(h)"
   ]
  }
 ],
 "metadata": {"kernelspec": {"name": "gonb"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
`
}

func TestSlimNotebook(t *testing.T) {
	inlined := []string{"<script>(function(define, module, exports){\n", "\n", "/* echarts \"5\" é */\n", "var echarts={};</x>\n", "\n", "}).call(window, undefined, undefined, undefined);</script>"}
	fat := nbText(inlined)
	slim, n, err := SlimNotebook([]byte(fat))
	if err != nil || n != 1 {
		t.Fatalf("SlimNotebook: %d replaced, %v", n, err)
	}
	// Byte for byte what a notebook saved by the new viz.Header holds.
	if want := nbText([]string{viz.EchartsLoader()}); string(slim) != want {
		t.Errorf("slimmed notebook:\n%s\nwant:\n%s", slim, want)
	}
	// The same notebook as JSON but for that one output.
	var a, b map[string]any
	if err := json.Unmarshal([]byte(fat), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(slim, &b); err != nil {
		t.Fatalf("slimmed notebook is not JSON: %v", err)
	}
	out := func(m map[string]any, i int) map[string]any {
		return m["cells"].([]any)[0].(map[string]any)["outputs"].([]any)[i].(map[string]any)
	}
	if got := out(b, 1)["data"].(map[string]any)["text/html"]; !reflect.DeepEqual(got, []any{viz.EchartsLoader()}) {
		t.Errorf("replaced output holds %v", got)
	}
	out(a, 1)["data"] = nil
	out(b, 1)["data"] = nil
	if !reflect.DeepEqual(a, b) {
		t.Errorf("more than the library's output changed")
	}
	// Again: nothing to do.
	again, n, err := SlimNotebook(slim)
	if err != nil || n != 0 || !bytes.Equal(again, slim) {
		t.Errorf("second pass: %d replaced, %v, same bytes %v", n, err, bytes.Equal(again, slim))
	}
	// Starts like the library, does not end like it: an error, no guess.
	if _, _, err := SlimNotebook([]byte(nbText(inlined[:4]))); err == nil || !strings.Contains(err.Error(), "does not end like it") {
		t.Errorf("a truncated library: %v", err)
	}
	// Compact JSON: the list becomes one line.
	compact := `{"outputs":[{"data":{"text/html":["<script>(function(define, module, exports){\n","echarts\n","}).call(window, undefined, undefined, undefined);</script>"]}}]}`
	got, n, err := SlimNotebook([]byte(compact))
	if want := `{"outputs":[{"data":{"text/html":["<script src=\"assets/echarts.min.js\"></script>"]}}]}`; err != nil || n != 1 || string(got) != want {
		t.Errorf("compact: %s (%d, %v), want %s", got, n, err, want)
	}
}

// The committed notebooks load echarts by its URL; none carries the library
// (0.7 MB a notebook when they did).
func TestCommittedNotebooksLoadEchartsByURL(t *testing.T) {
	nbs, _ := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	if len(nbs) == 0 {
		t.Fatal("no notebooks/*.ipynb found from scripts/site")
	}
	loader := jsonString(viz.EchartsLoader())
	for _, p := range nbs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, n, err := SlimNotebook(b); err != nil || n > 0 {
			t.Errorf("%s inlines the echarts library %d times (%v): go run ./scripts/site slim notebooks/%s", p, n, err, filepath.Base(p))
		}
		if bytes.Contains(b, []byte("echarts.init(")) && !bytes.Contains(b, loader) {
			t.Errorf("%s draws echarts charts but has no %s to load the library", p, viz.EchartsLoader())
		}
	}
}
