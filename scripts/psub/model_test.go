package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub"
)

// TestModelReseal: predict refuses a hand-edited model naming how to
// re-seal; "psub model -reseal" accepts the edit; "psub model" without it
// checks the seal (exit 1) and takes exactly one file (exit 2).
func TestModelReseal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	m := &psub.Model{Layout: psub.Layout{Labels: 2, UnaryDim: 1, PairwiseDim: 1}, W: []float64{1, -1, 0.5, 0, 0, 0.5}, Set: "C4", C: 1, Loss: "hamming"}
	if err := m.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "d.jsonl")
	os.WriteFile(data, []byte(`{"unary":[[1],[2]],"edges":[[0,1]],"pairwise":[[1]],"labels":[0,1]}`+"\n"), 0o644)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte("-1"), []byte("-2"), 1), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"predict", "-model", path, "-data", data}, 1, "psub model -reseal"},
		{[]string{"model", path}, 1, "does not match its seal"},
		{[]string{"model"}, 2, "want one model file"},
		{[]string{"model", "-reseal", path}, 0, `"resealed":true`},
		{[]string{"model", path}, 0, `"dim":6`},
		{[]string{"predict", "-model", path, "-data", data}, 0, `"instances":1`},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Fatalf("psub %q: exit %d, %s%s; want exit %d and %q", c.args, code, out.String(), errb.String(), c.code, c.want)
		}
	}
}
