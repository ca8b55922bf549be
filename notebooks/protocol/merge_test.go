package protocol

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/internal/outguard"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/notebooks/grid"
)

// mergeFixture runs the toy protocol whole into whole.jsonl and as four
// shards into shard/1.jsonl ... shard/4.jsonl.
func mergeFixture(t *testing.T) (p toy, dir, whole string, shards []string) {
	t.Helper()
	dir = t.TempDir()
	p = toy{s: SegmentationSettings{Folds: 2, Cs: []float64{1, 2}, Sets: []string{"A", "BB"}, Losses: []string{"x"}}}
	whole = filepath.Join(dir, "whole.jsonl")
	if _, err := p.Run(context.Background(), Options{Results: whole}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 4; i++ {
		f := filepath.Join(dir, "shard", string(rune('0'+i))+".jsonl")
		if _, err := p.Run(context.Background(), Options{Results: f, Shard: Shard{i, 4}}); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, f)
	}
	return p, dir, whole, shards
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	if err := os.WriteFile(to, readFile(t, from), 0o644); err != nil {
		t.Fatal(err)
	}
}

// keysOf lists the fits of a results file.
func keysOf(t *testing.T, p string) map[string]grid.Result {
	t.Helper()
	rs, err := grid.ReadResults(p)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]grid.Result{}
	for _, r := range rs {
		m[r.Key()] = r
	}
	return m
}

// TestMergeKeepsEveryRowOfOut merges shards into an existing file in every
// way that once lost rows: an incomplete shard into a complete file, a
// shard into a partial merge, the same shards again. Out's bytes must stay
// a prefix of the merged file, and a merge that adds nothing writes
// nothing.
func TestMergeKeepsEveryRowOfOut(t *testing.T) {
	p, dir, whole, shards := mergeFixture(t)
	total := len(keysOf(t, whole))

	t.Run("incomplete shard into a complete file", func(t *testing.T) {
		out := filepath.Join(dir, "complete.jsonl")
		copyTo(t, whole, out)
		before := readFile(t, out)
		rep, err := Merge(p, Quick, out, shards[:1])
		if err != nil || rep.Written || rep.Added != 0 || rep.Rows != total || !rep.Complete {
			t.Fatalf("%v %+v; want nothing written, %d rows, complete", err, rep, total)
		}
		if !bytes.Equal(readFile(t, out), before) {
			t.Fatal("the complete file changed")
		}
	})
	t.Run("shards one by one", func(t *testing.T) {
		out := filepath.Join(dir, "stepwise.jsonl")
		var prev []byte
		for i, s := range shards {
			rep, err := Merge(p, Quick, out, []string{s})
			if err != nil || !rep.Written || rep.Added == 0 {
				t.Fatalf("shard %d: %v %+v", i+1, err, rep)
			}
			now := readFile(t, out)
			if !bytes.HasPrefix(now, prev) {
				t.Fatalf("shard %d: the merged file does not start with the previous one", i+1)
			}
			prev = now
			if want := i == len(shards)-1; rep.Complete != want {
				t.Errorf("shard %d: complete %v", i+1, rep.Complete)
			}
		}
		got := keysOf(t, out)
		for k, r := range keysOf(t, whole) {
			if g, ok := got[k]; !ok || !sameFit(g, r) {
				t.Errorf("fit %s: %v in the merged file, want the whole run's", k, ok)
			}
		}
		// All shards again: nothing new, nothing written.
		before := readFile(t, out)
		rep, err := Merge(p, Quick, out, shards)
		if err != nil || rep.Written || rep.Rows != total || !rep.Complete {
			t.Fatalf("re-merge: %v %+v", err, rep)
		}
		if !bytes.Equal(readFile(t, out), before) {
			t.Fatal("a merge adding nothing rewrote the file")
		}
	})
	t.Run("rows of other fits in out are kept", func(t *testing.T) {
		// A file with the rows of another grid (another profile's, say).
		other := toy{s: SegmentationSettings{Folds: 2, Cs: []float64{8}, Sets: []string{"Z"}, Losses: []string{"q"}}}
		out := filepath.Join(dir, "mixed.jsonl")
		if _, err := other.Run(context.Background(), Options{Results: out}); err != nil {
			t.Fatal(err)
		}
		before, held := readFile(t, out), len(keysOf(t, out))
		rep, err := Merge(p, Quick, out, shards)
		if err != nil || !rep.Written || rep.OutRows != held || rep.Rows != held+total || !rep.Complete {
			t.Fatalf("%v %+v; want %d rows kept and %d added", err, rep, held, total)
		}
		if !bytes.HasPrefix(readFile(t, out), before) {
			t.Fatal("rows of other fits were dropped")
		}
	})
}

// TestMergeWritesNothingWhenItFails checks every failure leaves out byte
// for byte as it was (or absent).
func TestMergeWritesNothingWhenItFails(t *testing.T) {
	p, dir, whole, shards := mergeFixture(t)
	other := toy{s: SegmentationSettings{Folds: 2, Cs: []float64{8}, Sets: []string{"Z"}, Losses: []string{"q"}}}
	foreign := filepath.Join(dir, "foreign.jsonl")
	if _, err := other.Run(context.Background(), Options{Results: foreign}); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A shard that disagrees with the whole run on one fit.
	rows, err := grid.ReadResults(shards[0])
	if err != nil {
		t.Fatal(err)
	}
	rows[0].Metrics[MetricSelect] += 1
	edited := filepath.Join(dir, "edited.jsonl")
	var b bytes.Buffer
	if err := grid.WriteResultsJSONL(&b, rows[:1]); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.jsonl")
	if err := os.WriteFile(broken, []byte("{\"dataset\":\"toy\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.jsonl")
	cases := []struct {
		name  string
		files []string
		out   func(string) // prepares out
		want  string
	}{
		{"rows of another grid only", []string{foreign}, nil, "nothing to merge"},
		{"an empty shard", []string{empty}, nil, "nothing to merge"},
		{"disagrees with out", []string{edited}, nil, "differ"},
		{"unreadable shard", []string{shards[1], broken}, nil, "not a result row"},
		{"missing shard", []string{shards[1], filepath.Join(dir, "nope.jsonl")}, nil, "nope.jsonl"},
		{"out is a shard", []string{shards[1]}, func(out string) {}, "same file"},
		{"out is a hard link to a shard", []string{hard}, func(out string) {
			os.Remove(hard)
			if err := os.Link(out, hard); err != nil {
				t.Fatal(err)
			}
		}, "same file"},
		{"out is damaged", []string{shards[1]}, func(out string) {
			f, _ := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("not json\n{}\n")
			f.Close()
		}, "the output"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-")+".jsonl")
			copyTo(t, whole, out)
			files := c.files
			if c.out != nil {
				c.out(out)
				if c.name == "out is a shard" {
					files = []string{"./" + filepath.Base(out)}
					t.Chdir(dir)
				}
			}
			before := readFile(t, out)
			_, err := Merge(p, Quick, out, files)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("merge: %v, want an error with %q", err, c.want)
			}
			if !bytes.Equal(readFile(t, out), before) {
				t.Fatal("a failed merge changed out")
			}
		})
	}
	// A new out in a new folder: no folder, no file.
	out := filepath.Join(dir, "new", "sub", "out.jsonl")
	if _, err := Merge(p, Quick, out, []string{foreign}); !errors.Is(err, ErrNothingToMerge) {
		t.Fatalf("merge of nothing into a new file: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(filepath.Dir(out))); !os.IsNotExist(err) {
		t.Errorf("a merge of nothing created %s", filepath.Dir(out))
	}
	var ge *outguard.Error
	if _, err := Merge(p, Quick, shards[2], shards[2:3]); !errors.As(err, &ge) {
		t.Errorf("merge of a shard into itself: %v, want an outguard.Error", err)
	}
}

// TestMergeFailedRows checks the one exception to agreement: a failed row
// of out gives way to a shard's done row, and never the reverse.
func TestMergeFailedRows(t *testing.T) {
	dir := t.TempDir()
	s := SegmentationSettings{Folds: 2, Cs: []float64{1, 2}, Sets: []string{"A"}, Losses: []string{"x"}}
	bad := grid.Job{Dataset: "toy", Set: "A", Loss: "x", C: 2, Fold: 1, Tag: "select"}
	failing, good := toy{s: s, fail: bad.Key()}, toy{s: s}
	failed, done := filepath.Join(dir, "failed.jsonl"), filepath.Join(dir, "done.jsonl")
	if _, err := failing.Run(context.Background(), Options{Results: failed}); err == nil {
		t.Fatal("the failing run did not fail")
	}
	if _, err := good.Run(context.Background(), Options{Results: done}); err != nil {
		t.Fatal(err)
	}
	// Done into failed: the failed row is replaced (kept above the new one).
	out := filepath.Join(dir, "out1.jsonl")
	copyTo(t, failed, out)
	before := readFile(t, out)
	rep, err := Merge(good, Quick, out, []string{done})
	if err != nil || !rep.Complete || rep.Replaced != 1 {
		t.Fatalf("done into failed: %v %+v; want complete, 1 replaced", err, rep)
	}
	if !bytes.HasPrefix(readFile(t, out), before) {
		t.Fatal("the failed rows were dropped")
	}
	if r := keysOf(t, out)[bad.Key()]; r.Error != "" {
		t.Errorf("fit %s still failed after the merge", bad.Key())
	}
	// Failed into done: out keeps its rows.
	out = filepath.Join(dir, "out2.jsonl")
	copyTo(t, done, out)
	before = readFile(t, out)
	rep, err = Merge(good, Quick, out, []string{failed})
	if err != nil || rep.Written || rep.KeptOver != 1 || !rep.Complete {
		t.Fatalf("failed into done: %v %+v; want out kept, 1 kept over a failed row", err, rep)
	}
	if !bytes.Equal(readFile(t, out), before) {
		t.Fatal("a failed row replaced a done one")
	}
}

// TestMergeTakesTheResultsLock merges while another run holds out's lock:
// refused, out unchanged; then the lock is released and the merge goes
// through; and a grid cannot start while a merge holds it.
func TestMergeTakesTheResultsLock(t *testing.T) {
	p, dir, _, shards := mergeFixture(t)
	out := filepath.Join(dir, "locked.jsonl")
	if _, err := Merge(p, Quick, out, shards[:1]); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, out)
	lock, err := safefile.TryLock(safefile.LockPath(out))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Merge(p, Quick, out, shards)
	if err == nil || !strings.Contains(err.Error(), "in use by another run") || !strings.Contains(err.Error(), "nothing written") {
		t.Fatalf("merge under a held lock: %v", err)
	}
	if !bytes.Equal(readFile(t, out), before) {
		t.Fatal("a refused merge changed out")
	}
	// A grid running into out holds the same lock.
	if _, err := p.Run(context.Background(), Options{Results: out}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("a grid beside the lock holder: %v", err)
	}
	lock.Unlock()
	if rep, err := Merge(p, Quick, out, shards); err != nil || !rep.Complete {
		t.Fatalf("merge after the lock was released: %v %+v", err, rep)
	}
	if !bytes.HasPrefix(readFile(t, out), before) {
		t.Fatal("rows lost")
	}
	if _, err := os.Stat(safefile.LockPath(out)); !os.IsNotExist(err) {
		t.Errorf("the merge left its lock file: %v", err)
	}
}

// TestMergeStaleRows checks the rule for rows of other code: out's rows
// of other code than the running one give way to shard rows of the
// running code (kept above them), while out's rows of the running code
// are never replaced by rows of other code (a conflict: nothing written).
func TestMergeStaleRows(t *testing.T) {
	p, dir, whole, _ := mergeFixture(t)
	cur, err := codever.CurrentCode()
	if err != nil || !cur.Known() {
		t.Skipf("no code version: %v", err)
	}
	rows, err := grid.ReadResults(whole)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !r.Code.Same(cur) {
			t.Fatalf("row %s is not of the running code", r.Key())
		}
	}
	old := make([]grid.Result, len(rows))
	for i, r := range rows {
		r.Code = codever.CodeVersion{Commit: "0ld", Source: "0123456789abcdef"}
		r.Metrics = map[string]float64{MetricSelect: -1} // other code, other numbers
		old[i] = r
	}
	stale := filepath.Join(dir, "stale.jsonl")
	var b bytes.Buffer
	if err := grid.WriteResultsJSONL(&b, old); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// Running-code shards into a stale out: superseded, nothing lost.
	out := filepath.Join(dir, "out-stale.jsonl")
	copyTo(t, stale, out)
	rep, err := Merge(p, Quick, out, []string{whole})
	if err != nil || !rep.Written || rep.Superseded != len(rows) || rep.Rows != len(rows) || !rep.Complete {
		t.Fatalf("running code into stale rows: %v %+v", err, rep)
	}
	if !bytes.HasPrefix(readFile(t, out), b.Bytes()) {
		t.Fatal("the stale rows were dropped")
	}
	for k, r := range keysOf(t, out) {
		if !r.Code.Same(cur) {
			t.Errorf("fit %s: the merged file gives the stale row", k)
		}
	}
	// Stale shards into a running-code out: refused.
	out = filepath.Join(dir, "out-current.jsonl")
	copyTo(t, whole, out)
	before := readFile(t, out)
	if _, err := Merge(p, Quick, out, []string{stale}); err == nil || !strings.Contains(err.Error(), "nothing written") {
		t.Fatalf("stale rows into running-code rows: %v, want a refusal", err)
	}
	if !bytes.Equal(readFile(t, out), before) {
		t.Fatal("a refused merge changed out")
	}
}
