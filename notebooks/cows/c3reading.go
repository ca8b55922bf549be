package cows

// Notebook 01's reading of C3's non-submodular test edges (issue #44 item
// 1): the paper reports 5·10⁻² for C3 on the cows, psub's C3 models leave
// none. C3 asks ⟨w_αα,p⟩ ≥ 0 and ⟨w_αβ,p⟩ ≤ 0 on every training edge
// feature p; when the training edges include vectors near each unit
// direction, that forces the coordinate signs of C2 (w_αα ≥ 0, w_αβ ≤ 0),
// and a model in C2 is submodular on every non-negative feature, test
// edges included. ReadModel checks a model against C2's signs, C2*'s
// per-coordinate condition and the test edges; Coverage measures how near
// the training edges come to each unit direction.
//
// Entry points: ReadModel, C3Readings, Coverage (ImagesCoverage), C3ReadingTable,
// C3ReadingSummary.

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// ModelReading is what ReadModel finds for one model.
type ModelReading struct {
	Set, Loss string
	Fold      int
	// C2Violations counts the pairwise coordinates whose sign breaks C2
	// (w_αα,k < 0 or w_αβ,k > 0, beyond eps·‖w‖); C2Max is the largest
	// such violation, relative to ‖w‖ (0 when none).
	C2Violations int
	C2Max        float64
	// C2StarViolations counts the coordinates k breaking C2*
	// ((w_00 + w_11 − w_01 − w_10)_k < 0), read as psub's
	// Model.NonSubmodularEdge on the unit vector e_k; C2StarMax is the
	// largest, relative to ‖b‖·‖w‖ (‖b‖ = 2), as NonSubmodularFraction.
	C2StarViolations int
	C2StarMax        float64
	// TestEdges, TestNonSub: the test edges and those non-submodular by
	// NonSubmodularFraction's rule (model's HardTol); TestMax is the
	// largest violation −c·w / (‖c‖·‖w‖) over the test edges (negative:
	// every edge submodular with that relative margin).
	TestEdges, TestNonSub int
	TestMax               float64
	// TestC3Broken counts the test edges on which one of C3's four rows
	// (⟨w_00,p⟩ ≥ 0, ⟨w_11,p⟩ ≥ 0, ⟨w_01,p⟩ ≤ 0, ⟨w_10,p⟩ ≤ 0) is violated
	// beyond the tolerance (relative to ‖p‖·‖w‖): C3's guarantee not
	// carried to the edge, whatever C4's sum of the four does. TestNear
	// counts the test edges whose C4 margin is below NearMargin (relative,
	// violated ones included).
	TestC3Broken, TestNear int
}

// NearMargin is the relative C4 margin below which ReadModel counts a
// test edge as near non-submodular (ModelReading.TestNear).
const NearMargin = 1e-3

// InC2 reports whether the model satisfies C2's coordinate signs.
func (r ModelReading) InC2() bool { return r.C2Violations == 0 }

// ReadModel reads a two-label, untied model: C2's signs and C2*'s
// per-coordinate rows and its submodularity on the test edges, each with
// the tolerance psub enforces hard constraints with (the model's HardTol,
// relative to ‖w‖ and the row's norm).
func ReadModel(model *psub.Model, test []psub.Instance) (ModelReading, error) {
	l := model.Layout
	if l.Labels != 2 || l.Tied {
		return ModelReading{}, fmt.Errorf("C3 reading: model with %d labels (tied %v), want 2 untied", l.Labels, l.Tied)
	}
	eps := model.HardTol
	if eps == 0 {
		eps = psub.DefaultHardTol
	}
	wn := 0.0
	for _, v := range model.W {
		wn += v * v
	}
	wn = math.Sqrt(wn)
	if wn == 0 {
		wn = 1 // w = 0: every violation is 0
	}
	var r ModelReading
	w := func(a, b, k int) float64 { return model.W[l.PairwiseIndex(a, b, k)] }
	for k := 0; k < l.PairwiseDim; k++ {
		// C2: +w_00, +w_11, −w_01, −w_10 must be ≥ 0.
		for _, v := range []float64{w(0, 0, k), w(1, 1, k), -w(0, 1, k), -w(1, 0, k)} {
			if v < -eps*wn {
				r.C2Violations++
			}
			r.C2Max = math.Max(r.C2Max, -v/wn)
		}
		e := make([]float64, l.PairwiseDim)
		e[k] = 1
		if model.NonSubmodularEdge(e) {
			r.C2StarViolations++
		}
		r.C2StarMax = math.Max(r.C2StarMax, -(w(0, 0, k)+w(1, 1, k)-w(0, 1, k)-w(1, 0, k))/(2*wn))
	}
	r.TestMax = math.Inf(-1)
	for i := range test {
		if test[i].Pairwise == nil && test[i].PairwiseSparse != nil {
			return ModelReading{}, fmt.Errorf("C3 reading: test instance %d (%s) holds its pairwise features sparse; want dense", i, test[i].Name)
		}
		for _, p := range test[i].Pairwise {
			pn, m := 0.0, 0.0
			var rows [4]float64 // C3's rows, each ≥ 0 when satisfied
			for k, v := range p {
				pn += v * v
				m += v * (w(0, 0, k) + w(1, 1, k) - w(0, 1, k) - w(1, 0, k))
				rows[0], rows[1], rows[2], rows[3] = rows[0]+v*w(0, 0, k), rows[1]+v*w(1, 1, k), rows[2]-v*w(0, 1, k), rows[3]-v*w(1, 0, k)
			}
			if pn == 0 {
				continue // a zero feature constrains nothing
			}
			pn = math.Sqrt(pn)
			v := -m / (2 * pn * wn)
			r.TestMax = math.Max(r.TestMax, v)
			r.TestEdges++
			if -v < NearMargin {
				r.TestNear++
			}
			for _, x := range rows {
				if x < -eps*pn*wn {
					r.TestC3Broken++
					break
				}
			}
			if model.NonSubmodularEdge(p) {
				r.TestNonSub++
			}
		}
	}
	return r, nil
}

// Coverage is, per pairwise coordinate k, the largest share p_k/Σ_j p_j
// of an edge's feature mass on k among the edges of set (non-negative
// features): near 1 means a near-unit vector e_k is among them, and then
// C3's rows on it force the sign of coordinate k (C2's). Zero edges, and
// instances holding their pairwise features sparse, are skipped.
func Coverage(set []psub.Instance) []float64 {
	var out []float64
	for i := range set {
		for _, p := range set[i].Pairwise {
			if out == nil {
				out = make([]float64, len(p))
			}
			s := 0.0
			for _, v := range p {
				s += math.Abs(v)
			}
			if s == 0 {
				continue
			}
			for k, v := range p {
				out[k] = math.Max(out[k], math.Abs(v)/s)
			}
		}
	}
	return out
}

// ImagesCoverage is Coverage over every image of set.
func ImagesCoverage(set *data.SegmentedSet) []float64 {
	all := make([]psub.Instance, len(set.Items))
	for i, it := range set.Items {
		all[i] = it.Instance
	}
	return Coverage(all)
}

// C3Readings reads the final models of sets (loss, every fold) of the
// protocol's profile opt.Profile from opt's model directory, each
// against its fold's test images.
func C3Readings(opt protocol.Options, set *data.SegmentedSet, folds []data.Fold, sets []string, loss string) ([]ModelReading, error) {
	var out []ModelReading
	for _, name := range sets {
		for f, fold := range folds {
			model, err := protocol.FinalModel(Experiment{}, opt, name, loss, f)
			if err != nil {
				return nil, err
			}
			var test []psub.Instance
			for _, i := range fold.Test {
				test = append(test, set.Items[i].Instance)
			}
			r, err := ReadModel(model, test)
			if err != nil {
				return nil, fmt.Errorf("%s %s fold %d: %w", name, loss, f, err)
			}
			r.Set, r.Loss, r.Fold = name, loss, f
			out = append(out, r)
		}
	}
	return out, nil
}

// C3ReadingTable is one line per model of C3Readings.
func C3ReadingTable(rs []ModelReading) protocol.Table {
	t := protocol.Table{Title: "final models against C2's signs, C2*'s coordinates and the test edges",
		Header: []string{"set", "loss", "fold", "C2 sign violations", "largest / ‖w‖", "C2* violations", "largest / 2‖w‖", "test edges", "non-submodular", "largest violation", fmt.Sprintf("margin < %g", NearMargin), "a C3 row violated"}}
	for _, r := range rs {
		t.Rows = append(t.Rows, []string{r.Set, r.Loss, fmt.Sprint(r.Fold), fmt.Sprint(r.C2Violations), fmt.Sprintf("%.3g", r.C2Max),
			fmt.Sprint(r.C2StarViolations), fmt.Sprintf("%.3g", r.C2StarMax), fmt.Sprint(r.TestEdges), fmt.Sprint(r.TestNonSub), fmt.Sprintf("%.3g", r.TestMax),
			fmt.Sprint(r.TestNear), fmt.Sprint(r.TestC3Broken)})
	}
	return t
}

// C3ReadingSummary says, per set, in how many folds the models lie in C2
// and C2*, how many test edges break one of C3's rows, come within
// NearMargin of non-submodular or are non-submodular; then how near the
// edges (cover: Coverage) come to a unit direction, and which reading of
// C3's zero the models support: C3 forcing C2's signs (every C3 model in
// C2) or C3's rows holding on the test edges themselves.
func C3ReadingSummary(rs []ModelReading, cover []float64) []string {
	var lines []string
	var order []string
	by := map[string][]ModelReading{}
	for _, r := range rs {
		if _, ok := by[r.Set]; !ok {
			order = append(order, r.Set)
		}
		by[r.Set] = append(by[r.Set], r)
	}
	var c3InC2, c3Broken, c3Edges, c3Bad int
	for _, set := range order {
		var inC2, inC2Star, folds, bad, near, broken, edges int
		worst := 0.0
		for _, r := range by[set] {
			if r.InC2() {
				inC2++
			}
			if r.C2StarViolations == 0 {
				inC2Star++
			}
			if r.TestNonSub > 0 {
				folds++
			}
			bad, near, broken, edges = bad+r.TestNonSub, near+r.TestNear, broken+r.TestC3Broken, edges+r.TestEdges
			worst = math.Max(worst, r.C2Max)
		}
		if set == "C3" {
			c3InC2, c3Broken, c3Edges, c3Bad = inC2, broken, edges, bad
		}
		n := len(by[set])
		lines = append(lines, fmt.Sprintf("%s's models lie in C2 (every coordinate's sign) in %d of %d folds and in C2* in %d of %d (largest sign violation %.2g of ‖w‖); of %d test edges, %d break one of C3's rows, %d have a relative margin below %g and %d (in %d folds) are non-submodular",
			protocol.SetName(set), inC2, n, inC2Star, n, worst, edges, broken, near, NearMargin, bad, folds))
	}
	if len(cover) > 0 {
		most, used := 0.0, 0
		for _, v := range cover {
			most = math.Max(most, v)
			if v > 0 {
				used++
			}
		}
		lines = append(lines, fmt.Sprintf("no edge comes near a unit direction: the largest share of an edge's feature mass on one coordinate is %.2f (%d of %d coordinates are ever non-zero), and no non-negative combination of edges has a larger share, so C3's rows on the training edges cannot force C2's sign of any coordinate",
			most, used, len(cover)))
	}
	if c3 := by["C3"]; len(c3) > 0 {
		inC2, broken, edges, bad := c3InC2, c3Broken, c3Edges, c3Bad
		if inC2 == len(c3) {
			lines = append(lines, fmt.Sprintf("reading: C3's models lie in C2 in all %d folds, so every non-negative test edge is submodular", len(c3)))
		} else {
			line := fmt.Sprintf("reading: not C2 (C3's models lie in C2 in %d of %d folds); C3's own rows hold on all but %d of %d test edges (%.2g)",
				inC2, len(c3), broken, edges, float64(broken)/math.Max(1, float64(edges)))
			if bad == 0 {
				line += ", and where one breaks the four rows' sum (C4's) still holds: C3 leaves no test edge non-submodular because its training rows carry over to the test edges"
			}
			lines = append(lines, line)
		}
	}
	return lines
}
