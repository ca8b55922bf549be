package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// TestProtocolAllTiny runs every protocol's tiny profile at once on two
// fit slots (psub protocol all -profile tiny -workers 2 -dir DIR) and
// each on its own, and compares the rows: the same fits with the same
// metrics and details (timings aside). That the pool bounds the fits at
// once is grid's TestSlotsBoundGrids.
func TestProtocolAllTiny(t *testing.T) {
	sep := t.TempDir()
	want := map[string]map[string]grid.Result{}
	for _, p := range protocol.All() {
		rows, err := p.Run(context.Background(), protocol.Options{Profile: protocol.Tiny, Workers: 2,
			Results: filepath.Join(sep, p.Name()+"-tiny.jsonl")})
		if errors.Is(err, data.ErrNotFound) {
			t.Skipf("%s: data not available: %v", p.Name(), err)
		}
		if err != nil {
			t.Fatalf("%s alone: %v", p.Name(), err)
		}
		want[p.Name()] = byKey(rows)
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"protocol", "all", "-profile", "tiny", "-workers", "2", "-dir", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res allResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not the result: %v: %s", err, out.String())
	}
	if res.Workers != 2 || len(res.Protocols) != len(protocol.All()) {
		t.Fatalf("result %+v: want 2 workers and %d protocols", res, len(protocol.All()))
	}
	for _, r := range res.Protocols {
		if r.Error != "" || r.Failed > 0 || r.Results != filepath.Join(dir, r.Protocol+"-tiny.jsonl") || r.Ran != r.Rows || r.Rows != len(want[r.Protocol]) {
			t.Errorf("%s: %+v; want %d rows, all run, none failed, in %s", r.Protocol, r, len(want[r.Protocol]), dir)
			continue
		}
		rows, err := grid.ReadResults(r.Results)
		if err != nil {
			t.Fatal(err)
		}
		got := byKey(rows)
		if !sameRows(got, want[r.Protocol]) {
			t.Errorf("%s: the rows of the run at once differ from its run alone", r.Protocol)
		}
		if !strings.Contains(errb.String(), r.Protocol+": ") {
			t.Errorf("no log lines of %s on stderr", r.Protocol)
		}
	}
}

// byKey is rows by key, timings taken out (Seconds, metrics *_seconds).
func byKey(rows []grid.Result) map[string]grid.Result {
	m := map[string]grid.Result{}
	for _, r := range rows {
		r.Seconds = 0
		r.Metrics = maps.Clone(r.Metrics)
		for k := range r.Metrics {
			if strings.HasSuffix(k, "_seconds") {
				delete(r.Metrics, k)
			}
		}
		m[r.Key()] = r
	}
	return m
}

func sameRows(a, b map[string]grid.Result) bool {
	if len(a) != len(b) {
		return false
	}
	for k, r := range a {
		s, ok := b[k]
		if !ok || !reflect.DeepEqual(r.Metrics, s.Metrics) || !bytes.Equal(r.Detail, s.Detail) || r.Error != s.Error || r.Params != s.Params {
			return false
		}
	}
	return true
}

// TestRunAllReportsFailures runs two protocols at once of which one fails:
// the other's rows are written, the failure is named, and the result
// still lists both.
func TestRunAllReportsFailures(t *testing.T) {
	dir := t.TempDir()
	ps := []protocol.Protocol{fakeProtocol{name: "good"}, fakeProtocol{name: "bad", fail: true}}
	var out, errb bytes.Buffer
	err := runAll(context.Background(), ps, protocol.Tiny, 1, dir, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 protocols failed") || !strings.Contains(err.Error(), "bad: the bad fit") {
		t.Fatalf("error %v; want 1 of 2 failed naming bad", err)
	}
	var res allResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Protocols) != 2 || res.Protocols[0].Error != "" || res.Protocols[0].Rows != 3 || res.Protocols[1].Failed != 1 {
		t.Errorf("result %+v", res)
	}
	rows, err := grid.ReadResults(filepath.Join(dir, "good-tiny.jsonl"))
	if err != nil || len(rows) != 3 {
		t.Errorf("good's rows: %d, %v", len(rows), err)
	}
}

// fakeProtocol runs three jobs through grid.Run with its options' slots;
// with fail, one of them fails.
type fakeProtocol struct {
	name string
	fail bool
}

func (f fakeProtocol) Name() string            { return f.name }
func (f fakeProtocol) Title() string           { return "test" }
func (f fakeProtocol) Group(j grid.Job) string { return j.Key() }
func (f fakeProtocol) jobs() []grid.Job {
	return grid.Jobs([]string{f.name}, []string{"s"}, []string{"l"}, []float64{1, 2, 3}, 1)
}
func (f fakeProtocol) Jobs(protocol.Profile, []grid.Result) ([]grid.Job, error) { return f.jobs(), nil }
func (f fakeProtocol) Run(ctx context.Context, opt protocol.Options) ([]grid.Result, error) {
	var once sync.Once
	rows, err := grid.Run(ctx, f.jobs(), func(context.Context, grid.Job) (map[string]float64, error) {
		var err error
		if f.fail {
			once.Do(func() { err = errors.New("the bad fit") })
		}
		return map[string]float64{"x": 1}, err
	}, grid.Options{Workers: opt.Workers, Results: opt.Results, Slots: opt.Slots, Progress: opt.Progress})
	if err == nil {
		for _, r := range rows {
			if r.Error != "" {
				err = fmt.Errorf("%s: %s", f.name, r.Error)
			}
		}
	}
	return rows, err
}

// TestPrefixWriter: whole lines only, each after the prefix, however the
// writes split them; a line not yet ended waits for its end.
func TestPrefixWriter(t *testing.T) {
	var out bytes.Buffer
	w := &prefixWriter{mu: &sync.Mutex{}, w: &out, prefix: "cows: "}
	for _, s := range []string{"a", "b\nc\n", "", "d", "\n\ne"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if want := "cows: ab\ncows: c\ncows: d\ncows: \n"; out.String() != want {
		t.Errorf("wrote %q, want %q", out.String(), want)
	}
	if string(w.partial) != "e" {
		t.Errorf("kept %q, want the unended %q", w.partial, "e")
	}
}
