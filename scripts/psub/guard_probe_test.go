package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Outputs that would replace each other or write into what the command
// reads are refused before any work (exit 2), and nothing is created:
// -o and -checkpoint at one new path (before: training ran, then failed
// writing the model onto the checkpoint folder), and a mirror written
// into, or as, the data folder it archives or the -mirror folder read.
func TestGuardOutputsProbe(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.jsonl")
	os.WriteFile(train, []byte(`{"unary":[[1],[2]],"edges":[[0,1]],"pairwise":[[1]],"labels":[0,1]}`+"\n"), 0o644)
	ck := filepath.Join(dir, "ck")
	data := filepath.Join(dir, "data")
	os.Mkdir(data, 0o755)
	for _, c := range []struct {
		name    string
		args    []string
		want    string
		created string
	}{
		{"train -o = -checkpoint (new)", []string{"train", "-train", train, "-checkpoint", ck, "-o", ck}, "two outputs cannot share a path", ck},
		{"fetch -make-mirror = -dir", []string{"fetch", "-dir", data, "-make-mirror", data, "yeast"}, "is the folder -dir", ""},
		{"fetch -make-mirror inside -dir", []string{"fetch", "-dir", data, "-make-mirror", filepath.Join(data, "yeast", "m"), "yeast"}, "is inside the folder -dir", filepath.Join(data, "yeast")},
		{"fetch -make-mirror = -mirror", []string{"fetch", "-dir", data, "-mirror", filepath.Join(dir, "mir"), "-make-mirror", filepath.Join(dir, "mir"), "yeast"}, "is the folder -mirror", filepath.Join(dir, "mir")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var o, e bytes.Buffer
			if code := run(c.args, &o, &e); code != 2 || !strings.Contains(e.String(), c.want) {
				t.Errorf("exit %d, stderr %q: want 2 and %q", code, e.String(), c.want)
			}
			if c.created != "" {
				if _, err := os.Stat(c.created); err == nil {
					t.Errorf("%s was created", c.created)
				}
			}
		})
	}
}
