package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/viz"
)

// The committed notebooks load echarts by its URL; none carries the library
// (0.7 MB a notebook when they did, inlined in an output as below).
func TestCommittedNotebooksLoadEchartsByURL(t *testing.T) {
	nbs, _ := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	if len(nbs) == 0 {
		t.Fatal("no notebooks/*.ipynb found from scripts/site")
	}
	// As nbformat writes a string: '<', '>' and '&' not escaped.
	var loader bytes.Buffer
	enc := json.NewEncoder(&loader)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(viz.EchartsLoader()); err != nil {
		t.Fatal(err)
	}
	quoted := bytes.TrimSuffix(loader.Bytes(), []byte("\n"))
	const inlined = `"<script>(function(define, module, exports){\n"`
	for _, p := range nbs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte(inlined)); n > 0 {
			t.Errorf("%s inlines the echarts library %d times: render it again (viz.Header loads the library from assets/echarts.min.js)", p, n)
		}
		if bytes.Contains(b, []byte("echarts.init(")) && !bytes.Contains(b, quoted) {
			t.Errorf("%s draws echarts charts but has no %s to load the library", p, viz.EchartsLoader())
		}
	}
	if !strings.Contains(string(quoted), "echarts") {
		t.Fatalf("viz.EchartsLoader() = %s: no echarts in it", quoted)
	}
}
