package notebooks_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/efficiency"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/mito"
	"github.com/probably-submodular/crf/notebooks/multilabel"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/retina"
	"github.com/probably-submodular/crf/notebooks/samplecomplexity"
	"github.com/probably-submodular/crf/notebooks/tradeoff"
)

// typedFiles reads each committed results file through its experiment's
// job and metrics types.
// (grid.Metrics for the multi-label baselines, whose metrics are families
// named by the test rule: train_<rule>, test_<rule>_se, ...).
var typedFiles = map[string]func([]grid.Result) ([]grid.Result, error){
	"cows-counts.jsonl":            viaTypes[grid.Job, cows.CountsMetrics],
	"cows-full.jsonl":              viaTypes[grid.Job, protocol.Metrics],
	"efficiency-full.jsonl":        viaTypes[efficiency.Job, efficiency.Result],
	"mito-differences.jsonl":       viaTypes[grid.Job, mito.DiffMetrics],
	"mito-full.jsonl":              viaTypes[grid.Job, protocol.Metrics],
	"multilabel-baselines.jsonl":   viaTypes[grid.Job, grid.Metrics],
	"multilabel-full.jsonl":        viaTypes[grid.Job, multilabel.Metrics],
	"retina-differences.jsonl":     viaTypes[grid.Job, retina.DiffMetrics],
	"retina-full.jsonl":            viaTypes[grid.Job, protocol.Metrics],
	"sample-complexity-full.jsonl": viaTypes[samplecomplexity.Job, samplecomplexity.Metrics],
	"tradeoff-full.jsonl":          viaTypes[tradeoff.Job, tradeoff.Row],
}

// viaTypes reads rows as jobs J and metrics M and writes them back.
func viaTypes[J, M any](rs []grid.Result) ([]grid.Result, error) {
	typed, err := grid.Rows[J, M](rs)
	if err != nil {
		return nil, err
	}
	out := make([]grid.Result, len(rs))
	for i, r := range typed {
		if out[i], err = r.Result(); err != nil {
			return nil, err
		}
		out[i].Params = rs[i].Params
	}
	return out, nil
}

// TestCommittedRowsReadTyped reads every committed results file through
// its experiment's types and writes it back byte for byte (its rows'
// digests included): the typed jobs and metrics hold every column and
// metric the files hold, and name them as the files do.
func TestCommittedRowsReadTyped(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("results", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no committed results: %v", err)
	}
	for _, f := range files {
		via, ok := typedFiles[filepath.Base(f)]
		if !ok {
			t.Errorf("%s: no types to read it with", f)
			continue
		}
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := grid.ReadResults(f)
		if err != nil {
			t.Fatal(err)
		}
		back, err := via(rs)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		var got bytes.Buffer
		if err := grid.WriteResultsJSONL(&got, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			g, w := bytes.Split(got.Bytes(), []byte{'\n'}), bytes.Split(want, []byte{'\n'})
			for i := range min(len(g), len(w)) {
				if !bytes.Equal(g[i], w[i]) {
					t.Errorf("%s:%d written back as\n%s\nnot\n%s", f, i+1, g[i], w[i])
					break
				}
			}
			if len(g) != len(w) {
				t.Errorf("%s: %d lines written back, not %d", f, len(g), len(w))
			}
		}
	}
}
