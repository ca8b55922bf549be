package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
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
	for _, args := range [][]string{{"study", "no-such"}, {"study"}, {"study", "cows-counts", "-workers", "-1"}} {
		errb.Reset()
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: psub study") {
			t.Errorf("psub %v: exit %d, stderr %q; want 2 and the usage", args[1:], code, errb.String())
		}
	}
}
