package data

import (
	"context"
	"testing"

	"github.com/probably-submodular/crf/psub"
)

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
		label string
		conv  bool
	}{
		{gapAtCap, "yes: gap 0.0098 ≤ Tol", true},
		{capped, "no: iteration cap (gap 0.013)", false},
		{noViol, "yes: no violated labelling (gap 0.0031)", true},
		{oldCapped, "no: iteration cap (gap 0.02)", false},
		{oldConv, "yes (gap 0.005)", true},
		{none, "not recorded", false},
		{roundOff, "yes: gap 0 ≤ Tol", true},
		{nearTol, "yes: gap 0.01 ≤ Tol", true},
	} {
		if got := StopLabel(tc.m); got != tc.label {
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

// The experiment runners record the learner's stop reason: a TRW-S column
// cut off after 2 iterations says "iteration cap", the same column given
// room stops by its rule.
func TestMultiLabelRecordsStop(t *testing.T) {
	tr, te := SyntheticMultiLabel(SyntheticMultiLabelOptions{Seed: 5, Train: 40, Test: 20, Labels: 4, Features: 6})
	p, err := BuildMultiLabel(tr, te, MultiLabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job := Job{Dataset: "syn", Set: "TRWS", Loss: "hamming", C: 10}
	for _, tc := range []struct {
		maxIter int
		capped  bool
	}{{2, true}, {200, false}} {
		e := &MultiLabelExperiment{Problems: map[string]*MultiLabelProblem{"syn": p}, Tol: 1e-2, MaxIter: tc.maxIter, Workers: 1}
		m, err := e.Run(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		stop, conv, ok := StopOf(m)
		if !ok || conv == tc.capped || (stop == psub.StopMaxIter) != tc.capped || m["converged"] != b2f(!tc.capped) {
			t.Errorf("MaxIter %d: stop %v (recorded %v), converged %v, after %v iterations; want capped %v",
				tc.maxIter, stop, ok, m["converged"], m["iterations"], tc.capped)
		}
		t.Logf("MaxIter %d: %v iterations, %s", tc.maxIter, m["iterations"], StopLabel(m))
	}
}
