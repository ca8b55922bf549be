package main

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data/grid"
	"github.com/probably-submodular/crf/data/protocol"
)

// TestProtocolReplayAll replays the union of the committed full-profile
// rows (notebooks/results/NAME-full.jsonl) on 1-16 workers and checks the
// report against the rows and against -replay of single protocols: every
// fit once, each protocol alone as its own -replay's rerun column (cows
// and mito compared), the separate column their sum, and the union
// between its bound and the protocols one after another (on these rows:
// a list schedule could in principle do worse, grid.ReplayUnion says why).
func TestProtocolReplayAll(t *testing.T) {
	for _, p := range protocol.All() {
		if _, err := grid.ReadResults(protocol.DefaultResults(p.Name(), protocol.Full)); err != nil {
			t.Skipf("no committed rows of %s to replay: %v", p.Name(), err)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"protocol", "all", "-profile", "full", "-replay", "16"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep unionReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not the report: %v: %s", err, out.String())
	}
	if len(rep.Protocols) != len(protocol.All()) {
		t.Fatalf("%d protocols replayed, want %d", len(rep.Protocols), len(protocol.All()))
	}
	fits, work := 0, 0.0
	for _, p := range rep.Protocols {
		fits += p.Fits
		work += p.Work
	}
	if fits != rep.Fits || math.Abs(work-rep.Work) > 1e-6*work {
		t.Errorf("report: %d fits, %g s; its protocols %d, %g s", rep.Fits, rep.Work, fits, work)
	}
	// Each protocol alone is its own -replay's rerun column.
	for _, name := range []string{"cows", "mito"} {
		var o, e bytes.Buffer
		if code := run([]string{"protocol", name, "-profile", "full", "-replay", "16"}, &o, &e); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, e.String())
		}
		var one replayReport
		if err := json.Unmarshal(o.Bytes(), &one); err != nil {
			t.Fatal(err)
		}
		for k, r := range one.Rows {
			if got := rep.Rows[k].Alone[name]; math.Abs(got-r.Chain) > 1e-6*r.Chain {
				t.Errorf("%s on %d workers: alone %g, its -replay rerun %g", name, r.Workers, got, r.Chain)
			}
		}
	}
	var ws []int
	for _, r := range rep.Rows {
		ws = append(ws, r.Workers)
		sum := 0.0
		for _, s := range r.Alone {
			sum += s
		}
		if math.Abs(sum-r.Separate) > 1e-6*sum {
			t.Errorf("%d workers: separate %g, the protocols alone sum to %g", r.Workers, r.Separate, sum)
		}
		w := float64(r.Workers)
		if r.Bound < rep.Work/w-1e-6 || r.Bound < rep.Critical-1e-6 {
			t.Errorf("%d workers: bound %g below work/W %g or the longest chain %g", r.Workers, r.Bound, rep.Work/w, rep.Critical)
		}
		if r.Together < r.Bound-1e-6 || r.Together > r.Separate+1e-6 || r.TogetherFresh < r.Bound-1e-6 {
			t.Errorf("%d workers: together %g (fresh %g) outside [bound %g, separate %g]", r.Workers, r.Together, r.TogetherFresh, r.Bound, r.Separate)
		}
		if r.Pipelined < rep.Work/w-1e-6 || r.SeparateFresh < r.Bound-1e-6 {
			t.Errorf("%d workers: pipelined %g below work/W %g, or fresh separate %g below the bound %g", r.Workers, r.Pipelined, rep.Work/w, r.SeparateFresh, r.Bound)
		}
		for name, end := range r.Ends {
			if end > r.Together+1e-9 || end <= 0 {
				t.Errorf("%d workers: %s ends at %g of %g", r.Workers, name, end, r.Together)
			}
		}
		if r.Workers == 1 {
			for _, m := range []float64{r.Separate, r.Together, r.SeparateFresh, r.TogetherFresh, r.Pipelined} {
				if math.Abs(m-rep.Work) > 1e-6*rep.Work {
					t.Errorf("1 worker: %g, want the fits' %g s", m, rep.Work)
				}
			}
		}
	}
	if !slices.Equal(ws, []int{1, 2, 4, 8, 16}) {
		t.Errorf("workers %v, want 1 2 4 8 16", ws)
	}
	if !strings.Contains(errb.String(), "together") || !strings.Contains(errb.String(), "mito") {
		t.Errorf("no table on stderr: %q", errb.String())
	}
}

func TestProtocolAllRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-profile", "tiny", "-replay", "-2"}, "-replay -2: out of range"},
		{[]string{"-profile", "tiny", "-workers", "-1"}, "-workers -1: out of range; want an integer from 0 to 1024"},
		{[]string{"-profile", "tiny", "-replay", "2", "-dir", t.TempDir()}, "no -dir or -workers"},
		{[]string{"-profile", "huge", "-replay", "2"}, "-profile"},
		{[]string{"-profile", "tiny", "-replay", "2", "extra"}, "unexpected arguments"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"protocol", "all"}, c.args...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}
