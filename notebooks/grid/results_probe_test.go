package grid

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenResultsNotAResultsFile: a results path that holds something else
// is refused and left as it was. Before, a one-line file without a newline
// ("my notes") was taken for an interrupted write and truncated to nothing,
// and a one-line JSON object (a model file) was taken for a row.
func TestOpenResultsNotAResultsFile(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"text without newline", "my precious notes", "not a result row"},
		{"JSON object without newline", `{"version": 2, "labels": 2}`, `no "dataset"`},
		{"JSON object with newline", `{"version": 2, "labels": 2}` + "\n", `no "dataset"`},
		{"NaN", `{"dataset":"d","seconds":NaN}` + "\n", "NaN and Infinity"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "r.jsonl")
			os.WriteFile(p, []byte(c.text), 0o644)
			_, err := openResults(p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			if b, _ := os.ReadFile(p); string(b) != c.text {
				t.Fatalf("the file was changed to %q", b)
			}
		})
	}
}

// TestOpenResultsInterruptedAndBOM: the start of a row cut short is still
// dropped (the run resumes), and a byte-order mark at the start of the file
// is accepted by both readers.
func TestOpenResultsInterruptedAndBOM(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.jsonl")
	os.WriteFile(p, []byte(`{"dataset":"d","se`), 0o644)
	if rs, err := openResults(p); err != nil || len(rs) != 0 {
		t.Fatalf("cut row: %d rows, %v", len(rs), err)
	}
	if b, _ := os.ReadFile(p); len(b) != 0 {
		t.Fatalf("cut row left %q", b)
	}
	row := `{"dataset":"d","set":"C0","loss":"hamming","c":1,"fold":1,"metrics":{},"seconds":1}` + "\n"
	os.WriteFile(p, []byte("\ufeff"+row), 0o644)
	if rs, err := openResults(p); err != nil || len(rs) != 1 {
		t.Fatalf("openResults with a BOM: %d rows, %v", len(rs), err)
	}
	if rs, err := ReadResults(p); err != nil || len(rs) != 1 {
		t.Fatalf("ReadResults with a BOM: %d rows, %v", len(rs), err)
	}
}
