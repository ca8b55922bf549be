package mito

import (
	"fmt"
	"math"
	"strings"

	"github.com/probably-submodular/crf/notebooks/protocol"
)

// Claims are the claims of the paper's §7.3 (notebooks/TARGETS.md §4) with
// verdicts computed from the final rows of the protocol (one row per
// column, tag "final"): the orderings of its text and the table's numbers
// its text relies on. A column without a row leaves its claims untested.
func Claims(final []protocol.Row) []protocol.Claim {
	s := Settings{SegmentationSettings: protocol.SegmentationSettings{Sets: []string{"C0", "C1", "C2", "C3", "C4", "C4bar", "TGC", "QPBO"}}}
	ours := mitoOurs(final, s, nil)
	nan := math.NaN()
	have := map[string]bool{}
	for _, r := range final {
		if r.Job.Tag == "final" && r.Job.Loss == "avg" && r.Error == "" {
			have[r.Job.Set] = true
		}
	}
	val := func(col string, i int) float64 {
		if !have[col] {
			return nan
		}
		return ours[col][i]
	}
	paper := func(col string, i int) float64 { return mitoPaperScores[col][i] }
	pct := func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf("%.1f %%", v)
	}
	diff := func(col string, i int) string {
		if !have[col] {
			return "–"
		}
		return fmt.Sprintf("%s (%+.1f)", pct(val(col, i)), val(col, i)-paper(col, i))
	}
	var out []protocol.Claim
	add := func(claim, p, o string, v protocol.Verdict, rule string) {
		out = append(out, protocol.Claim{Claim: claim, Paper: p, Ours: o, Verdict: v, Rule: rule})
	}
	const train, test, iou, voc, iters = 0, 1, 2, 3, 4

	chain := []string{"C0", "C1", "C2", "C3", "C4"}
	v, rule := Chain(chain, func(c string) float64 { return val(c, train) })
	add("training 1−Δ_avg grows from C0 to C4 (larger domains fit better)", chainText(chain, func(c string) float64 { return paper(c, train) }),
		chainText(chain, func(c string) float64 { return val(c, train) }), v, rule)
	v, rule = protocol.Within(val("C4", train), paper("C4", train), 1)
	add("C4 and C̄4 fit the training volume best: 1−Δ_avg train 98.0 %", pct(paper("C4", train)), pct(val("C4", train)), v, rule+" point")

	lo := math.NaN() // over the columns run
	for _, c := range chain[1:] {
		if x := val(c, test); !math.IsNaN(x) && !(x >= lo) {
			lo = x
		}
	}
	v, rule = protocol.Ordered(lo, val("C0", test), nan, 0.05)
	add("every pairwise column C1–C4 tests above C0 (87.7 %)", fmt.Sprintf("C1–C4 ≥ %.1f %% > C0 %.1f %%", 95.6, paper("C0", test)),
		fmt.Sprintf("C1–C4 ≥ %s > C0 %s", pct(lo), pct(val("C0", test))), v, "min(C1–C4) > C0")

	// Over the columns run (a profile without C3 says which are missing).
	worst, wcol, missing := math.NaN(), "", []string{}
	for _, c := range []string{"C0", "C1", "C2", "C3", "C4", "C4bar", "QPBO"} {
		d := val(c, test) - paper(c, test)
		switch {
		case math.IsNaN(d):
			missing = append(missing, c)
		case math.IsNaN(worst) || math.Abs(d) > math.Abs(worst):
			worst, wcol = d, c
		}
	}
	v, rule = protocol.Within(worst, 0, 1.5)
	o := "–"
	if !math.IsNaN(worst) {
		o = fmt.Sprintf("largest difference %+.1f (%s)", worst, wcol)
	}
	if len(missing) > 0 {
		o += "; not run: " + strings.Join(missing, ", ")
	}
	add("test 1−Δ_avg of every column but TGC as in the table", "C0 87.7 … QPBO 96.0 %", o, v, rule+" point")

	best, bcol := math.Inf(-1), ""
	for _, c := range []string{"C0", "C1", "C2", "C4", "C4bar", "TGC", "QPBO"} {
		if x := val(c, test); x > best {
			best, bcol = x, c
		}
	}
	v, rule = protocol.Ordered(val("C3", test), best, nan, 0.05)
	add("C3 tests best (its constraints regularise)", "C3 96.5 % > C4 96.2 %", fmt.Sprintf("C3 %s, best other %s %s", pct(val("C3", test)), bcol, pct(best)), v, rule)

	for _, c := range []struct {
		col, what string
		metric    int
	}{{"C3", "C3 has the best IoU", iou}, {"C3", "C3 has the best VOC", voc}, {"C1", "C1's IoU", iou}, {"C2", "C2's IoU", iou},
		{"C4", "C4's IoU", iou}, {"C4bar", "C̄4's IoU", iou}, {"QPBO", "QPBO's IoU", iou}} {
		v, rule = protocol.Within(val(c.col, c.metric), paper(c.col, c.metric), 2)
		add(c.what, pct(paper(c.col, c.metric)), diff(c.col, c.metric), v, rule+" points")
	}

	v, rule = protocol.Within(100*nonsub(final, "C4"), mitoPaperNonsub["C4"], 0.001)
	add("C4 leaves a small fraction of the test edges non-submodular: 3.5·10⁻⁵", "3.5·10⁻⁵", fmt.Sprintf("%.1f·10⁻⁵", 1e5*nonsub(final, "C4")), v, "within 1·10⁻⁵")
	v, rule = protocol.Tied(val("C4bar", test), val("C4", test), nan, 0.05, 0.5)
	add("the transductive C̄4 does not improve on C4", "96.1 vs 96.2 %", pct(val("C4bar", test))+" vs "+pct(val("C4", test)), v, rule+" point")

	v, rule = protocol.Within(val("TGC", test), paper("TGC", test), 1.5)
	add("truncated graph cuts (TGC) fall far behind: test 78.8 %", pct(paper("TGC", test)), diff("TGC", test), v, rule+" point")
	v, rule = protocol.Tied(val("QPBO", test), val("C4", test), nan, 0.05, 1)
	add("QPBO reaches competitive accuracy", "96.0 vs C4 96.2 %", pct(val("QPBO", test))+" vs C4 "+pct(val("C4", test)), v, rule+" point of C4")
	v, rule = OnlyCapped(final, "QPBO", 5000)
	add("QPBO is the only method that does not converge within 5 000 iterations", "QPBO 5 000 (cap), others 25–3 981",
		fmt.Sprintf("QPBO %.0f", val("QPBO", iters)), v, rule)

	ilo, ihi := math.NaN(), math.NaN() // over the columns run
	for _, c := range []string{"C1", "C2", "C3", "C4", "C4bar"} {
		if x := val(c, iters); !math.IsNaN(x) {
			if !(x >= ilo) {
				ilo = x
			}
			if !(x <= ihi) {
				ihi = x
			}
		}
	}
	v, rule = protocol.WithinFactor(ihi, paper("C4", iters), 2)
	add("C1–C̄4 train in 976–3 981 SSVM iterations (C4 the most)", "976–3 981", fmt.Sprintf("%.0f–%.0f", ilo, ihi), v, rule+", most of C1–C̄4 against C4's 3 981")
	return out
}

// nonsub is the non-submodular fraction of the test edges of col's final
// row (NaN without one).
func nonsub(final []protocol.Row, col string) float64 {
	for _, r := range final {
		if r.Job.Tag == "final" && r.Job.Loss == "avg" && r.Job.Set == col && r.Error == "" {
			return r.Metrics.NonSubTest
		}
	}
	return math.NaN()
}

func chainText(cols []string, f func(string) float64) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c + " –"
		if x := f(c); !math.IsNaN(x) {
			parts[i] = fmt.Sprintf("%s %.1f", c, x)
		}
	}
	return strings.Join(parts, " < ")
}

// Chain is the verdict of a claim that f grows along cols: Reproduced when
// every step is non-decreasing, Partly when the last exceeds the first but
// some step falls, NotReproduced when the last does not exceed the first,
// Untested when a value is NaN.
func Chain(cols []string, f func(string) float64) (protocol.Verdict, string) {
	const rule = "each step ≥ the one before"
	falls := 0
	for i, c := range cols {
		if math.IsNaN(f(c)) {
			return protocol.Untested, rule
		}
		if i > 0 && f(c) < f(cols[i-1]) {
			falls++
		}
	}
	switch {
	case falls == 0:
		return protocol.Reproduced, rule
	case f(cols[len(cols)-1]) > f(cols[0]):
		return protocol.Partly, fmt.Sprintf("%s (%d of %d steps fall)", rule, falls, len(cols)-1)
	}
	return protocol.NotReproduced, rule
}

// OnlyCapped is the verdict of a claim that col alone reached the
// iteration cap: Reproduced when col's final row stopped at cap and no
// other column's did, Partly when col and others did, NotReproduced when
// col did not.
func OnlyCapped(final []protocol.Row, col string, cap int) (protocol.Verdict, string) {
	rule := fmt.Sprintf("%s alone at %d iterations", col, cap)
	capped, others, seen := false, 0, false
	for _, r := range final {
		if r.Job.Tag != "final" || r.Error != "" {
			continue
		}
		at := r.Metrics.Iterations >= cap
		if r.Job.Set == col {
			seen, capped = true, at
		} else if at {
			others++
		}
	}
	switch {
	case !seen:
		return protocol.Untested, rule
	case !capped:
		return protocol.NotReproduced, rule
	case others > 0:
		return protocol.Partly, rule
	}
	return protocol.Reproduced, rule
}
