package grid

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/codever"
)

// TestRowDigest: a row written by Run or WriteResultsJSONL carries a
// digest; any change of a value is refused by ReadResults and by Run's
// resume with the file, line and job; a row without a digest (written
// before rows had one) and a change of formatting only are read.
func TestRowDigest(t *testing.T) {
	row := Result{
		Job:     Job{Dataset: "cows", Set: "C4", Loss: "hamming", C: 0.5, Fold: 2, Tag: "t"},
		Metrics: map[string]float64{"test_accuracy": 0.996, "train_accuracy": 1},
		Detail:  []byte(`{"curve":[1,2.5]}`),
		Seconds: 12.25, Params: "p1", Code: codever.CodeVersion{Commit: "abc", Source: "def"},
		Error: "bad \xff byte <&>",
	}
	var buf bytes.Buffer
	if err := WriteResultsJSONL(&buf, []Result{row}); err != nil {
		t.Fatal(err)
	}
	written := buf.String()
	if !strings.Contains(written, `"digest":"`) {
		t.Fatalf("no digest: %s", written)
	}
	edit := func(old, new string) string {
		if !strings.Contains(written, old) {
			t.Fatalf("%q not in %s", old, written)
		}
		return strings.Replace(written, old, new, 1)
	}
	noDigest := written[:strings.Index(written, `,"digest"`)] + "}\n"
	for _, c := range []struct {
		name, file string
		edited     bool
	}{
		{"as written", written, false},
		{"a metric", edit("0.996", "0.689"), true},
		{"a metric's name", edit("test_accuracy", "test_accurace"), true},
		{"a metric added", edit(`"train_accuracy":1`, `"train_accuracy":1,"x":2`), true},
		{"seconds", edit("12.25", "1.25"), true},
		{"the code version", edit(`"abc"`, `"abd"`), true},
		{"params", edit(`"p1"`, `"p2"`), true},
		{"the fold", edit(`"fold":2`, `"fold":1`), true},
		{"the error cleared", strings.Replace(written, written[strings.Index(written, `,"error"`):strings.Index(written, `,"params"`)], "", 1), true},
		{"the detail", edit("2.5", "3.5"), true},
		{"the digest", edit(`"digest":"`, `"digest":"0`), true},
		{"no digest (older rows)", noDigest, false},
		{"spaces added", strings.ReplaceAll(written, `":`, `": `), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.jsonl")
			os.WriteFile(path, []byte(`{"dataset":"x","metrics":{}}`+"\n"+c.file), 0o644)
			rs, err := ReadResults(path)
			_, err2 := Run(context.Background(), []Job{row.Job}, func(context.Context, Job) (map[string]float64, error) {
				return map[string]float64{}, nil
			}, Options{Results: path, Workers: 1, Report: func(Report) {}})
			if c.edited {
				for _, err := range []error{err, err2} {
					if !errors.Is(err, ErrRowEdited) || !strings.Contains(err.Error(), "r.jsonl:2: job ") {
						t.Fatalf("error %v, want ErrRowEdited at r.jsonl:2", err)
					}
				}
				return
			}
			if err != nil || err2 != nil {
				t.Fatalf("refused: %v; Run: %v", err, err2)
			}
			want := row
			want.Error = "bad \ufffd byte <&>"
			var compact bytes.Buffer
			json.Compact(&compact, rs[1].Detail)
			rs[1].Detail = compact.Bytes()
			if !reflect.DeepEqual(rs[1], want) {
				t.Fatalf("read %+v, want %+v", rs[1], want)
			}
		})
	}
}

// FuzzReadResults: no results file panics ReadResults, and the rows it
// accepts are written back with digests and read again the same.
func FuzzReadResults(f *testing.F) {
	var buf bytes.Buffer
	WriteResultsJSONL(&buf, []Result{{Job: Job{Dataset: "cows", Set: "C4", Loss: "hamming", C: 1, Fold: 0}, Metrics: map[string]float64{"a": 0.5}, Seconds: 1}})
	f.Add(buf.Bytes())
	f.Add([]byte(`{"dataset":"x","metrics":{"m":1e308},"detail":{"k":[1,2]},"error":"\ud800"}` + "\n"))
	f.Add([]byte("{\"dataset\":\"x\",\"metrics\":{},\"digest\":\"00\"}\n\n{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := ReadResults(path)
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := WriteResultsJSONL(&out, rs); err != nil {
			return // a row JSON cannot hold (a detail that is not JSON): not a reader matter
		}
		os.WriteFile(path, out.Bytes(), 0o644)
		again, err := ReadResults(path)
		if err != nil {
			t.Fatalf("cannot read rows as written: %v\n%s", err, out.Bytes())
		}
		if len(again) != len(rs) {
			t.Fatalf("%d rows became %d", len(rs), len(again))
		}
	})
}
