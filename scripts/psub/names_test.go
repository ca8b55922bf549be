package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
)

// TestInvalidUTF8NamesWrittenVisibly writes instances whose names are not
// UTF-8 (as file names on disk can be) the way export does: the file holds
// them escaped as \xHH, never as U+FFFD, and stderr says so.
func TestInvalidUTF8NamesWrittenVisibly(t *testing.T) {
	s := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 1})
	set := s.Train[:3]
	set[0].Name, set[1].Name, set[2].Name = "ok-é", "bad\xff", "\xc3trunc"
	path := filepath.Join(t.TempDir(), "train.jsonl")
	var errb bytes.Buffer
	visibleNames(set, path, &errb)
	if err := data.WriteJSONLFile(path, set); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("\ufffd")) || bytes.Contains(b, []byte(`\ufffd`)) {
		t.Error("a name was written as U+FFFD")
	}
	back, err := data.ReadJSONLFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ok-é", `bad\xff`, `\xc3trunc`}
	for i, in := range back {
		if in.Name != want[i] {
			t.Errorf("instance %d: name %q, want %q", i, in.Name, want[i])
		}
	}
	if n := strings.Count(errb.String(), "is not valid UTF-8"); n != 2 {
		t.Errorf("stderr %q: want 2 warnings", errb.String())
	}
}
