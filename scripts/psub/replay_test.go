package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data/grid"
	"github.com/probably-submodular/crf/data/protocol"
)

// TestProtocolReplay replays the committed rows of the cows full profile
// (notebooks/results/cows-full.jsonl) on 1-16 workers and checks the
// report against the rows: every fit once, in the protocol's two stages,
// one worker taking the fits' summed seconds, no makespan below its
// bound.
func TestProtocolReplay(t *testing.T) {
	results := protocol.DefaultResults("cows", protocol.Full)
	rows, err := grid.ReadResults(results)
	if err != nil {
		t.Skipf("no committed rows to replay: %v", err)
	}
	var sum float64
	for _, r := range rows {
		sum += r.Seconds
	}
	var out, errb bytes.Buffer
	if code := run([]string{"protocol", "cows", "-profile", "full", "-replay", "16"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep replayReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not the report: %v: %s", err, out.String())
	}
	if rep.Fits != len(rows) || !slices.Equal(rep.Stages, []int{700, 140}) || math.Abs(rep.Work-sum) > 1e-6*sum {
		t.Errorf("replayed %d fits in stages %v, %g s; want %d in [700 140], %g s", rep.Fits, rep.Stages, rep.Work, len(rows), sum)
	}
	var ws []int
	for _, r := range rep.Rows {
		ws = append(ws, r.Workers)
		for _, m := range []float64{r.Listed, r.Fresh, r.Chain} {
			if m < r.Bound-1e-6 || r.Bound < rep.Work/float64(r.Workers)-1e-6 {
				t.Errorf("%d workers: makespan %g below its bound %g (work/W %g)", r.Workers, m, r.Bound, rep.Work/float64(r.Workers))
			}
		}
		if r.Pipelined < max(rep.Work/float64(r.Workers), rep.Critical.Pipelined)-1e-6 {
			t.Errorf("%d workers: pipelined %g below its bound", r.Workers, r.Pipelined)
		}
		for _, m := range []float64{r.Listed, r.Fresh, r.Chain, r.Pipelined} {
			if r.Workers == 1 && math.Abs(m-sum) > 1e-6*sum {
				t.Errorf("1 worker: %g, want the fits' %g s", m, sum)
			}
		}
	}
	if !slices.Equal(ws, []int{1, 2, 4, 8, 16}) {
		t.Errorf("workers %v, want 1 2 4 8 16", ws)
	}
	if rep.Critical.Staged < rep.Critical.Pipelined || rep.Critical.Pipelined <= 0 {
		t.Errorf("critical chains %+v: staged must be at least pipelined", rep.Critical)
	}
	if !strings.Contains(errb.String(), "workers") || !strings.Contains(errb.String(), "840 fits") {
		t.Errorf("no table on stderr: %q", errb.String())
	}
}

func TestProtocolReplayRefuses(t *testing.T) {
	dir := t.TempDir()
	partial := filepath.Join(dir, "cows-tiny.jsonl")
	row := grid.Result{Job: grid.Job{Dataset: "cows", Set: "C0", Loss: "hamming", C: 0.1, Fold: 0, Tag: "select"}, Seconds: 1}
	var buf bytes.Buffer
	if err := grid.WriteResultsJSONL(&buf, []grid.Result{row}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(partial, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-profile", "tiny", "-replay", "-1"}, 2, "-replay -1: out of range; want an integer from 0 to"},
		{[]string{"-profile", "tiny", "-replay", "4", "-shard", "1/2"}, 2, "no -merge or -shard"},
		{[]string{"-profile", "tiny", "-replay", "4", "-results", filepath.Join(dir, "none.jsonl")}, 1, "needs the rows of a complete run"},
		{[]string{"-profile", "tiny", "-replay", "4", "-results", partial}, 1, "have no successful row"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"protocol", "cows"}, c.args...), &out, &errb)
		if code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}
