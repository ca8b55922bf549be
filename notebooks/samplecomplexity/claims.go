package samplecomplexity

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// The rules of the claim table.
const (
	// rateFactor: the polytope rate holds in the control when the fraction
	// outside the hull stays within this factor of the fitted rate over the
	// larger half of the grid (where the rate was fitted).
	rateFactor = 2
	// nonSubPoints is how far (percentage points of test edges) C4's
	// non-submodular fraction may be from the paper's 0.
	nonSubPoints = 0.01
)

// Claims is the claim table of the paper's §4 (notebooks/TARGETS.md §6),
// computed from the protocol's rows: the proposition (the held-out mass
// outside the convex hull falls as n grows), the cone containing the hull,
// the polytope rate in the uniform control, and C4's non-submodular test
// fraction on cows (§3).
func (sc Experiment) Claims(p protocol.Profile, rows []grid.Result) []protocol.Claim {
	var cs []protocol.Claim
	add := func(claim, paper, ours string, v protocol.Verdict, rule string) {
		cs = append(cs, protocol.Claim{Claim: claim, Paper: paper, Ours: ours, Verdict: v, Rule: rule})
	}
	cov := sc.Coverage(rows, 0)
	first, last := math.NaN(), math.NaN()
	ours := "—"
	if len(cov) > 0 {
		a, b := cov[0], cov[len(cov)-1]
		first, last = a.OutsideHull, b.OutsideHull
		ours = fmt.Sprintf("%.3f at n = %d → %.3f at n = %d", first, a.N, last, b.N)
	}
	v, rule := protocol.Ordered(first, last, math.NaN(), 0)
	add("held-out cow features outside the convex hull of n training features: falls as n grows", "→ 0 (proposition, not measured)", ours, v, "falls from the smallest n to the largest")
	v, worse := protocol.Untested, 0
	if len(cov) > 0 {
		for _, c := range cov {
			if c.OutsideCone > c.OutsideHull {
				worse++
			}
		}
		v = protocol.Reproduced
		if worse > 0 {
			v = protocol.NotReproduced
		}
	}
	add("the cone contains the hull: outside the cone ≤ outside the hull", "by construction", fmt.Sprintf("fails at %d of %d n", worse, len(cov)), v, "at every n")
	for _, c := range sc.Control(p, rows) {
		lo, hi, m := math.Inf(1), math.Inf(-1), 0
		for i := len(c.N) / 2; i < len(c.N); i++ {
			if c.OutsideHull[i] > 0 && c.Ref[i] > 0 {
				r := c.OutsideHull[i] / c.Ref[i]
				lo, hi, m = math.Min(lo, r), math.Max(hi, r), m+1
			}
		}
		v, ours := protocol.Untested, "—"
		if m > 0 {
			ours = fmt.Sprintf("outside hull ÷ (%.2f·%s): %.2f–%.2f", c.Scale, rate(c.Dim), lo, hi)
			v = protocol.NotReproduced
			if lo >= 1.0/rateFactor && hi <= rateFactor {
				v = protocol.Reproduced
			}
		}
		add(fmt.Sprintf("uniform on [0,1]%s: uncovered mass ∝ %s", sup(c.Dim), rate(c.Dim)), "Ω(logᵈ⁻¹ n / n)", ours, v,
			fmt.Sprintf("within a factor %g of the fitted rate on the larger half of n", float64(rateFactor)))
	}
	pts := sc.C4(rows)
	nonSub, what := math.NaN(), "C4 model"
	if len(pts) > 0 {
		l := pts[len(pts)-1]
		nonSub, what = 100*l.NonSubmodular, fmt.Sprintf("C4 model on %d images", l.Images)
	}
	v, rule = protocol.Within(nonSub, PaperC4NonSubmodular, nonSubPoints)
	add("non-submodular test edges of C4 on cows, "+what, "0", protocol.Fmt("%.4f %%", nonSub), v, rule+" points")
	return cs
}

// ClaimTable is Claims as the table a notebook shows first.
func (sc Experiment) ClaimTable(p protocol.Profile, rows []grid.Result) protocol.Table {
	return protocol.ClaimTable("the paper's §4 (sample complexity)", sc.Claims(p, rows))
}

// rate is the polytope rate log^{d−1}(n)/n, written with superscripts.
func rate(d int) string {
	if d == 2 {
		return "log(n)/n"
	}
	return "log" + sup(d-1) + "(n)/n"
}

// sup writes a small exponent as a superscript.
func sup(k int) string {
	digits := []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")
	var out []rune
	for _, c := range fmt.Sprint(k) {
		out = append(out, digits[c-'0'])
	}
	return string(out)
}
