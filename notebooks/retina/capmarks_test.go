package retina

import (
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/viz"
)

// capRows are final rows of two sets: C2's three fits all converged, two of
// C4's three stopped at the cap (gaps 0.02 and 0.005) and one at the gap;
// a failed C4 row is ignored.
func capRows() []grid.Result {
	row := func(set string, fold int, stop psub.StopReason, gap float64) grid.Result {
		return grid.Result{Job: grid.Job{Dataset: "horses", Set: set, Loss: "avg", C: 1, Fold: fold, Tag: "final"},
			Metrics: map[string]float64{"stop": float64(stop), "gap": gap, "iterations": 10,
				"test_cavg": 0.6, "test_iou": 0.5, "test_voc": 0.55, "nonsub_test": 0}}
	}
	return []grid.Result{
		row("C2", 0, psub.StopGap, 1e-5), row("C2", 1, psub.StopGap, 1e-5), row("C2", 2, psub.StopGap, 1e-5),
		row("C4", 0, psub.StopMaxIter, 0.02), row("C4", 1, psub.StopGap, 1e-5), row("C4", 2, psub.StopMaxIter, 0.005),
		{Job: grid.Job{Dataset: "horses", Set: "C4", Loss: "avg", Fold: 3, Tag: "final"}, Error: "killed"},
	}
}

func TestScoresMarkCappedColumns(t *testing.T) {
	s := protocol.SegmentationSettings{Sets: []string{"C2", "C4"}}
	c := Experiment{}.Scores(protocol.Rows(capRows()), s)
	if c.Marks["C4"] != protocol.CapMark || c.Marks["C2"] != "" {
		t.Fatalf("marks %v, want only C4 marked", c.Marks)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], "C4: 2 of 3 fits stopped at the iteration cap") ||
		!strings.Contains(c.Notes[0], "gap left 0.02") {
		t.Fatalf("notes %q", c.Notes)
	}
	// What the reader sees: the marked header and the note under the table.
	h, _ := viz.Comparison(c).Cells()
	if h[1] != "C2" || h[2] != "C4 "+protocol.CapMark {
		t.Fatalf("headers %q", h)
	}
	if html := viz.Comparison(c).HTML(); !strings.Contains(html, "2 of 3 fits stopped") {
		t.Fatalf("note missing from HTML: %s", html)
	}
	// The non-submodular table has the sets as rows: marked the same way.
	n := Experiment{}.NonSubmodular(protocol.Rows(capRows()), s)
	if _, rows := viz.Comparison(n).Cells(); rows[1][0] != "C4 "+protocol.CapMark || rows[0][0] != "C2" {
		t.Fatalf("rows %q", rows)
	}
}

func TestScoresUnmarkedWhenAllConverged(t *testing.T) {
	var rows []grid.Result
	for _, r := range capRows() {
		if r.Set == "C2" {
			rows = append(rows, r)
		}
	}
	c := Experiment{}.Scores(protocol.Rows(rows), protocol.SegmentationSettings{Sets: []string{"C2", "C4"}})
	if len(c.Marks) != 0 || len(c.Notes) != 0 {
		t.Fatalf("marks %v notes %q on converged fits", c.Marks, c.Notes)
	}
}
