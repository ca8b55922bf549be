package grid

import (
	"math"
	"testing"

	"github.com/probably-submodular/crf/psub"
)

func TestConvergence(t *testing.T) {
	row := func(set, tag string, it, conv, gap, sec float64) Result {
		return Result{Job: Job{Set: set, Loss: "avg", Tag: tag},
			Metrics: map[string]float64{"iterations": it, "converged": conv, "gap": gap}, Seconds: sec}
	}
	rs := []Result{
		row("C4", "select", 1000, 0, 5e-4, 30),
		row("C2", "select", 200, 1, 1e-5, 4),
		row("C4", "select", 400, 1, 1e-5, 10),
		row("C4", "select", 1000, 0, 7e-4, 31),
		row("C4", "final", 900, 1, 1e-5, 60),
		{Job: Job{Set: "C4", Loss: "avg", Tag: "select"}, Error: "boom", Seconds: 1},
		{Job: Job{Set: "C4", Loss: "avg", Tag: "select"}, Metrics: map[string]float64{"acc": 1}, Seconds: 2},
	}
	got := Convergence(rs)
	if len(got) != 3 {
		t.Fatalf("%d groups, want 3: %+v", len(got), got)
	}
	c4 := got[0]
	if c4.Set != "C4" || c4.Tag != "select" || c4.Fits != 3 || c4.Capped != 2 || c4.MaxIter != 1000 ||
		math.Abs(c4.MeanIter-800) > 1e-12 || c4.MaxCappedGap != 7e-4 || c4.Seconds != 71 {
		t.Errorf("C4 select: %+v", c4)
	}
	if c2 := got[1]; c2.Set != "C2" || c2.Capped != 0 || !math.IsNaN(c2.MaxCappedGap) || c2.MeanIter != 200 {
		t.Errorf("C2 select: %+v", c2)
	}
	if f := got[2]; f.Tag != "final" || f.Fits != 1 || f.Capped != 0 {
		t.Errorf("C4 final: %+v", f)
	}
	per, tags, total := TotalSeconds(rs)
	if len(tags) != 2 || tags[0] != "final" || tags[1] != "select" || per["select"] != 78 || per["final"] != 60 || total != 138 {
		t.Errorf("TotalSeconds: %v %v %v", per, tags, total)
	}
	h, rows := ConvergenceTable(rs)
	if len(h) != 8 || len(rows) != 3 || rows[0][0] != "C4" || rows[0][1] != "select" || rows[0][3] != "2" || rows[0][6] != "0.0007" || rows[1][6] != "–" {
		t.Errorf("ConvergenceTable, one loss: %v %v", h, rows)
	}
	// A fit that the stopping rule ended but whose certificate failed is
	// not converged, and the table says so in a column of its own.
	nc := row("C2", "select", 150, 1, 2e-3, 3)
	nc.Metrics["stop"] = float64(psub.StopNotCertified)
	withNC := append(append([]Result(nil), rs...), nc)
	if g := Convergence(withNC)[1]; g.NotCertified != 1 || g.Capped != 0 || g.Fits != 2 {
		t.Errorf("C2 select with a not certified fit: %+v", g)
	}
	if h, rows := ConvergenceTable(withNC); len(h) != 9 || h[4] != "not certified" || rows[1][4] != "1" || rows[0][4] != "0" {
		t.Errorf("ConvergenceTable, not certified: %v %v", h, rows)
	}
	rs[1].Loss = "hamming"
	if h, rows := ConvergenceTable(rs); len(h) != 9 || h[1] != "loss" || rows[1][1] != "hamming" || rows[0][1] != "avg" {
		t.Errorf("ConvergenceTable, two losses: %v %v", h, rows)
	}
}

// "converged" comes from the recorded stop reason, never from the count: a
// fit that met the gap on its last allowed iteration converged, a capped
// fit did not, whatever "converged" says beside "stop".
func TestStopFromReason(t *testing.T) {
	row := func(it float64, m map[string]float64) Result {
		m["iterations"] = it
		return Result{Job: Job{Set: "TRWS", Loss: "hamming", Tag: "final"}, Metrics: m}
	}
	gapAtCap := map[string]float64{"stop": float64(psub.StopGap), "gap": 0.0098}
	capped := map[string]float64{"stop": float64(psub.StopMaxIter), "converged": 1, "gap": 0.013}
	noViol := map[string]float64{"stop": float64(psub.StopNoViolation), "gap": 0.0031}
	oldCapped := map[string]float64{"converged": 0, "gap": 0.02}
	oldConv := map[string]float64{"converged": 1, "gap": 0.005}
	none := map[string]float64{}
	roundOff := map[string]float64{"stop": float64(psub.StopGap), "gap": -1.5e-15}
	nearTol := map[string]float64{"stop": float64(psub.StopGap), "gap": 0.0099964}
	for _, tc := range []struct {
		m     map[string]float64
		label string // "": rows written before "stop"
		conv  bool
	}{
		{gapAtCap, "yes: gap 0.0098 ≤ Tol", true},
		{capped, "no: iteration cap (gap 0.013)", false},
		{noViol, "yes: no violated labelling (gap 0.0031)", true},
		{oldCapped, "", false},
		{oldConv, "", true},
		{none, "", false},
		{roundOff, "yes: gap 0 ≤ Tol", true},
		{nearTol, "yes: gap 0.01 ≤ Tol", true},
	} {
		if got := StopLabel(psub.StopReason(tc.m["stop"]), tc.m["gap"]); tc.label != "" && got != tc.label {
			t.Errorf("StopLabel(%v) = %q, want %q", tc.m, got, tc.label)
		}
		if _, conv, _ := StopOf(tc.m); conv != tc.conv {
			t.Errorf("StopOf(%v) converged %v, want %v", tc.m, conv, tc.conv)
		}
	}
	rs := []Result{row(200, gapAtCap), row(200, capped), row(57, noViol), row(200, oldCapped), row(80, oldConv), row(90, none)}
	g := Convergence(rs)
	if len(g) != 1 || g[0].Fits != 6 || g[0].Capped != 2 || g[0].Unknown != 1 || g[0].MaxCappedGap != 0.02 {
		t.Fatalf("Convergence: %+v, want 6 fits, 2 capped, 1 unknown, largest capped gap 0.02", g)
	}
	h, rows := ConvergenceTable(rs)
	if len(h) != 9 || h[4] != "stop not recorded" || rows[0][3] != "2" || rows[0][4] != "1" {
		t.Errorf("ConvergenceTable: %v %v", h, rows)
	}
	if h, _ := ConvergenceTable(rs[:5]); len(h) != 8 {
		t.Errorf("ConvergenceTable without unknown rows has header %v", h)
	}
}
