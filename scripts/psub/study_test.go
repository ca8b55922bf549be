package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
)

func TestStudyList(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"study", "-list"}, &out, &errb); code != 0 {
		t.Fatalf("psub study -list: exit %d, %s", code, errb.String())
	}
	var got map[string]string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cows-counts", "retina-differences", "mito-differences", "multilabel-baselines"} {
		if filepath.Base(got[name]) != name+".jsonl" || filepath.Base(filepath.Dir(got[name])) != "results" {
			t.Errorf("study %s: results file %q, want notebooks/results/%s.jsonl", name, got[name], name)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d studies listed, want 4: %v", len(got), got)
	}
	for _, args := range [][]string{{"study", "no-such"}, {"study"}, {"study", "cows-counts", "-workers", "-1"},
		{"study", "cows-counts", "mito-differences"}, {"study", "-status", "no-such"},
		{"study", "-status", "-results", "r.jsonl"}} {
		errb.Reset()
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: psub study") {
			t.Errorf("psub %v: exit %d, stderr %q; want 2 and the usage", args[1:], code, errb.String())
		}
	}
}

// -status counts a study's rows by the code its fits execute now: a row of
// that code is fresh, one of other code (or of none) stale, a failed one
// failed, whatever its code.
func TestStudyStatus(t *testing.T) {
	code, err := cows.CountsCode()
	if err != nil || code.Source == "" {
		t.Fatalf("cows.CountsCode: %v, %v", code, err)
	}
	other := code
	other.Source, other.Commit = "0123456789abcdef", "older"
	job := grid.Job{Dataset: "cows", Set: "C4", Loss: "hamming", C: 1, Tag: "default"}
	rows := []grid.Result{
		{Job: job, Metrics: map[string]float64{"iterations": 3}, Code: code},
		{Job: grid.Job{Dataset: "cows", Set: "C3", Loss: "hamming", C: 1, Tag: "default"}, Code: other},
		{Job: grid.Job{Dataset: "cows", Set: "C4bar", Loss: "hamming", C: 1, Tag: "default"}},
		{Job: grid.Job{Dataset: "cows", Set: "C4", Loss: "avg", C: 1, Tag: "default"}, Error: "boom", Code: code},
	}
	res := filepath.Join(t.TempDir(), "counts.jsonl")
	f, err := os.Create(res)
	if err != nil {
		t.Fatal(err)
	}
	if err := grid.WriteResultsJSONL(f, rows); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var out, errb bytes.Buffer
	if c := run([]string{"study", "cows-counts", "-status", "-results", res}, &out, &errb); c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
	var got []studyRows
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Rows != 4 || got[0].Fresh != 1 || got[0].Stale != 2 || got[0].Failed != 1 ||
		got[0].Commits[code.Commit] != 2 || got[0].Commits["older"] != 1 {
		t.Errorf("status %+v, want 4 rows: 1 fresh, 2 stale, 1 failed", got)
	}
	// A study without a results file yet has no rows.
	out.Reset()
	if c := run([]string{"study", "cows-counts", "-status", "-results", filepath.Join(t.TempDir(), "none.jsonl")}, &out, &errb); c != 0 {
		t.Fatalf("missing file: exit %d: %s", c, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got[0].Rows != 0 {
		t.Errorf("missing file: %s, %v", out.String(), err)
	}
}
