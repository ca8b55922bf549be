package yardstick

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data/benchrec"
	"github.com/probably-submodular/crf/internal/modroot"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// fixture writes the two files Table reads, with the given CPU seconds:
// psub and peer per yardstick, and the yeast peaks in MiB.
func fixture(t *testing.T, c1, dlib, c4, pystruct, go2, sk2, go3, sk3 float64, peaks ...float64) []*benchrec.File {
	t.Helper()
	machine := []any{map[string]any{"id": "vm", "cpu": "2 vCPUs"}}
	rec := func(id string, cols []string, rows ...any) map[string]any {
		var cs []any
		for _, c := range cols {
			cs = append(cs, map[string]any{"key": c, "label": c})
		}
		return map[string]any{"id": id, "what": "w", "machine": "vm", "date": "2026-11-29", "commit": "abc",
			"load": "l", "method": "m", "command": "c", "row_label": "r", "columns": cs, "rows": rows}
	}
	row := func(name, commit string, cells ...any) map[string]any {
		r := map[string]any{"name": name, "cells": cells}
		if commit != "" {
			r["commit"] = commit
		}
		return r
	}
	var mem []any
	for i, p := range peaks {
		mem = append(mem, row(strings.Repeat("entry ", i+1), "", p))
	}
	psub := map[string]any{"doc": "d", "machines": machine, "records": []any{
		rec("small-problems", []string{"cpu_s", "peer_s"},
			row("planar C1 tied (dlib's yardstick), before", "old", 100.0, dlib),
			row("planar C1 tied (dlib's yardstick), after", "", c1, dlib),
			row("planar C4 (PyStruct's yardstick), before", "old", 100.0, pystruct),
			row("planar C4 (PyStruct's yardstick), after", "", c4, pystruct)),
		rec("memory-yeast", []string{"peak_rss"}, mem...),
	}}
	slic := map[string]any{"doc": "d", "machines": machine, "records": []any{
		rec("slic-2d-vs-skimage", []string{"cpu_s"}, row("skimage 0.19.3", "", sk2), row("Go Segment (default)", "", go2), row("Go Segment before", "old", 9.0)),
		rec("slic-3d-crop", []string{"cpu_s"}, row("skimage 0.19.3", "", sk3), row("Go Segment (default)", "", go3)),
	}}
	var out []*benchrec.File
	for path, v := range map[string]any{PsubFile: psub, SLICFile: slic} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		f, err := benchrec.Parse(strings.NewReader(string(b)), path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

func TestTable(t *testing.T) {
	job := JobTime{Files: 7, Fits: 10, Seconds: 3000}
	files := fixture(t, 0.5, 2, 0.9, 10, 0.05, 0.5, 1, 40, 300, 700, 500)
	rows, err := Table(files, job)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		psub, ratio string
		met         bool
	}{
		{"0.5 s CPU", "0.25×", true},
		{"0.9 s CPU", "0.09×", true},
		{"0.05 s CPU", "0.1×", true}, // at the goal: met
		{"1 s CPU", "0.025×", true},
		{"700 MiB (entry entry )", "", true},
		{"3000 s (0.83 h) for 10 fits", "", true},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		if rows[i].Psub != w.psub || rows[i].Ratio != w.ratio || rows[i].Met != w.met {
			t.Errorf("row %d: %+v, want psub %q ratio %q met %v", i, rows[i], w.psub, w.ratio, w.met)
		}
	}
	if !strings.Contains(rows[0].Peer, "dlib") || !strings.Contains(rows[0].Peer, issues) || !strings.Contains(rows[1].Peer, issues) {
		t.Errorf("peers not rerun here must say so: %q, %q", rows[0].Peer, rows[1].Peer)
	}
	if strings.Contains(rows[2].Peer, issues) {
		t.Errorf("scikit-image runs here: %q", rows[2].Peer)
	}

	// Each goal missed, one at a time.
	for i, f := range [][]*benchrec.File{
		fixture(t, 2, 2, 0.9, 10, 0.05, 0.5, 1, 40, 300), // a tie is not ahead
		fixture(t, 0.5, 2, 1.1, 10, 0.05, 0.5, 1, 40, 300),
		fixture(t, 0.5, 2, 0.9, 10, 0.06, 0.5, 1, 40, 300),
		fixture(t, 0.5, 2, 0.9, 10, 0.05, 0.5, 5, 40, 300),
		fixture(t, 0.5, 2, 0.9, 10, 0.05, 0.5, 1, 40, 300, 1908), // 2.0007e9 bytes
	} {
		rows, err := Table(f, job)
		if err != nil {
			t.Fatal(err)
		}
		for j, r := range rows {
			if r.Met == (i == j) {
				t.Errorf("case %d, row %d (%s): met %v", i, j, r.Yardstick, r.Met)
			}
		}
	}
	for _, j := range []JobTime{{Files: 7, Fits: 10, Seconds: 3601}, {Files: 7, Fits: 9, Seconds: 10, Missing: 1}} {
		rows, err := Table(files, j)
		if err != nil {
			t.Fatal(err)
		}
		if r := rows[len(rows)-1]; r.Met {
			t.Errorf("%+v: the hour is met: %+v", j, r)
		}
	}
	stale := jobRow(JobTime{Files: 7, Fits: 10, Stale: 4, Seconds: 10}).Source
	if !strings.Contains(stale, "4 of the 10 fits of older code") {
		t.Errorf("stale rows not said: %q", stale)
	}
	if s := jobRow(JobTime{Files: 7, Fits: 10, Seconds: 10}).Source; strings.Contains(s, "older") {
		t.Errorf("no stale rows, but: %q", s)
	}
}

func TestTableNamesWhatIsMissing(t *testing.T) {
	files := fixture(t, 0.5, 2, 0.9, 10, 0.05, 0.5, 1, 40, 300)
	if _, err := Table(files[:1], JobTime{}); !errors.Is(err, benchrec.ErrNotFound) {
		t.Errorf("one file only: %v", err)
	}
	r, err := record(files, SLICFile, "slic-3d-crop")
	if err != nil {
		t.Fatal(err)
	}
	r.Rows = r.Rows[:1] // no Go row
	if _, err := Table(files, JobTime{}); err == nil || !strings.Contains(err.Error(), `"slic-3d-crop" has no row "Go Segment"`) {
		t.Errorf("no Go row: %v", err)
	}
	r.Rows = append(r.Rows, r.Rows[0], r.Rows[0])
	r.Rows[1].Name, r.Rows[2].Name = "Go Segment a", "Go Segment b"
	if _, err := Table(files, JobTime{}); err == nil || !strings.Contains(err.Error(), "2 rows") {
		t.Errorf("two Go rows: %v", err)
	}
}

// TestCurrent reads this checkout: the committed benchmark records and
// full-profile rows. Its job time must be the seconds of the committed
// rows, summed here from the raw JSON Lines (the newest successful row of
// each job, as grid.ReadResults keeps it), when every row of the files is a
// listed fit.
func TestCurrent(t *testing.T) {
	root, err := modroot.Find("")
	if err != nil {
		t.Fatal(err)
	}
	rows, job, err := Current(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 || job.Files != len(protocol.All()) || job.Files < 7 {
		t.Fatalf("%d rows from %d results files (%d protocols)", len(rows), job.Files, len(protocol.All()))
	}
	if job.Stale > job.Fits || job.Fits == 0 {
		t.Errorf("%+v", job)
	}
	var sum float64
	var n int
	for _, p := range protocol.All() {
		rs, err := grid.ReadResults(protocol.DefaultResults(p.Name(), protocol.Full))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.Error == "" {
				sum += r.Seconds
				n++
			}
		}
	}
	t.Logf("%+v; the files' successful rows: %d, %.1f s", job, n, sum)
	if n != job.Fits {
		t.Skipf("the files hold %d successful rows, %d of them listed fits", n, job.Fits)
	}
	if math.Abs(job.Seconds-sum) > 1e-9*sum {
		t.Errorf("job time %v s over %d fits, the rows sum to %v s", job.Seconds, job.Fits, sum)
	}
}
