package cows

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// The rules of the claim table, in one place.
const (
	// alpha is the level of the paired t-tests behind "<" in the paper's
	// ordering; the paper's own C4-vs-C1 test claims p < paperP.
	alpha  = 0.05
	paperP = 1e-5
	// tiedPoints is how close (accuracy points) two sets are "the same".
	tiedPoints = 0.5
	// countFactor: a count of hard constraints depends on the QP solver
	// and the features, so only its order of magnitude compares.
	countFactor = 2
	// nonSubPoints is how far (percentage points of test edges) a
	// non-submodular fraction may be from the paper's.
	nonSubPoints = 0.01
	// paperIterationsSD is the ± of the paper's "126 ± 21" iterations.
	paperIterationsSD = 21
)

// claimMetrics pairs each loss with the metric it trains for.
var claimMetrics = []struct {
	loss   string
	metric func(protocol.Metrics) float64
	name   string
}{
	{"hamming", protocol.TestAcc, "Hamming loss, global accuracy"},
	{"avg", protocol.TestCavg, "Δ_avg loss, class-averaged accuracy"},
}

// Claims is the claim table of the paper's §7.1 (notebooks/TARGETS.md §1
// and §3, cows column), computed from the protocol's rows (the final fits
// are used): the accuracy ordering C0 < C1 < C2 ≤ C3 ≤ C4 per loss, the
// C4-vs-C1 t-test, C4 ≈ C̄4, the hard-constraint counts, the
// non-submodular test fractions and the iteration count.
func Claims(rows []grid.Result) []protocol.Claim {
	final := protocol.Tagged(rows, "final")
	var cs []protocol.Claim
	add := func(claim, paper, ours string, v protocol.Verdict, rule string) {
		cs = append(cs, protocol.Claim{Claim: claim, Paper: paper, Ours: ours, Verdict: v, Rule: rule})
	}
	pct := func(a, b, p float64) string {
		return fmt.Sprintf("%s vs %s %%, p = %s", protocol.Fmt("%.1f", a), protocol.Fmt("%.1f", b), protocol.Fmt("%.2g", p))
	}
	for _, m := range claimMetrics {
		for _, link := range []struct {
			lo, hi string
			strict bool
		}{{"C0", "C1", true}, {"C1", "C2", true}, {"C2", "C3", false}, {"C3", "C4", false}} {
			hi, lo, p := protocol.PairedMeans(final, m.loss, m.metric, link.hi, link.lo)
			rel := "≤"
			v, rule := protocol.NotBelow(hi, lo, p, alpha)
			if link.strict {
				rel = "<"
				v, rule = protocol.Ordered(hi, lo, p, alpha)
			}
			add(fmt.Sprintf("%s %s %s (%s)", link.lo, rel, link.hi, m.name), link.lo+" "+rel+" "+link.hi, pct(lo, hi, p), v, rule)
		}
	}
	for _, m := range claimMetrics {
		c4, c1, p := protocol.PairedMeans(final, m.loss, m.metric, "C4", "C1")
		v, rule := protocol.Ordered(c4, c1, p, paperP)
		add("C4 > C1, paired t-test over 10 folds ("+m.name+")", "p < 10⁻⁵", pct(c4, c1, p), v, rule)
	}
	for _, m := range claimMetrics {
		c4, c4bar, p := protocol.PairedMeans(final, m.loss, m.metric, "C4", "C4bar")
		v, rule := protocol.Tied(c4, c4bar, p, alpha, tiedPoints)
		add("C4 ≈ C̄4 ("+m.name+")", "no difference", pct(c4, c4bar, p), v, rule)
	}
	mean := func(set string, metric func(protocol.Metrics) float64) float64 {
		v, _, _ := grid.Aggregate(final, set, "hamming", metric)
		return v
	}
	for _, set := range []string{"C3", "C4", "C4bar"} {
		for i, metric := range []func(protocol.Metrics) float64{protocol.HardActive, protocol.HardIntroduced} {
			ours := mean(set, metric)
			v, rule := protocol.WithinFactor(ours, cowsHard[set][i], countFactor)
			add(fmt.Sprintf("hard constraints %s, %s (Hamming loss, mean over folds)", []string{"active", "introduced"}[i], protocol.SetName(set)),
				fmt.Sprintf("%.0f", cowsHard[set][i]), protocol.Fmt("%.0f", ours), v, rule)
		}
	}
	add("hard constraints of C0, C1, C2", "326–415", "none: sign and zero constraints are bounds of our QP, not rows", protocol.Untested, "not comparable")
	c3a, c4a := mean("C3", protocol.HardActive), mean("C4", protocol.HardActive)
	v, rule := protocol.Ordered(c3a, c4a, math.NaN(), alpha)
	add("C3 keeps more hard constraints active than C4", fmt.Sprintf("%.0f > %.0f", cowsHard["C3"][0], cowsHard["C4"][0]),
		fmt.Sprintf("%s > %s", protocol.Fmt("%.0f", c3a), protocol.Fmt("%.0f", c4a)), v, rule)
	c4i, c4bari := mean("C4", protocol.HardIntroduced), mean("C4bar", protocol.HardIntroduced)
	v, rule = protocol.Ordered(c4bari, c4i, math.NaN(), alpha)
	add("C̄4 introduces more hard constraints than C4", fmt.Sprintf("%.0f > %.0f", cowsHard["C4bar"][1], cowsHard["C4"][1]),
		fmt.Sprintf("%s vs %s", protocol.Fmt("%.0f", c4bari), protocol.Fmt("%.0f", c4i)), v, rule)
	for _, set := range []string{"C3", "C4"} {
		for _, m := range claimMetrics {
			ours, _, _ := grid.Aggregate(final, set, m.loss, protocol.NonSubTest)
			v, rule := protocol.Within(100*ours, cowsNonSub[set], nonSubPoints)
			paper := "0"
			if cowsNonSub[set] > 0 {
				paper = fmt.Sprintf("5·10⁻² (read as a fraction: %g %%)", cowsNonSub[set])
			}
			add(fmt.Sprintf("non-submodular test edges, %s (%s)", set, m.name), paper, protocol.Fmt("%.4f %%", 100*ours), v, rule+" points")
		}
	}
	var its []float64
	for _, r := range final {
		if r.Error == "" {
			its = append(its, float64(r.Metrics.Iterations))
		}
	}
	it := math.NaN()
	if len(its) > 0 {
		it, _ = grid.MeanSE(its)
	}
	v, rule = protocol.Within(it, PaperIterations, paperIterationsSD)
	add("cutting-plane iterations, every method (mean over the final fits)", fmt.Sprintf("%d ± %d", PaperIterations, paperIterationsSD),
		protocol.Fmt("%.0f", it)+" (with the inference cache's cheap iterations)", v, rule)
	return cs
}

// ClaimTable is Claims as the table a notebook shows first.
func ClaimTable(rows []grid.Result) protocol.Table {
	return protocol.ClaimTable("the paper's §7.1 (cows)", Claims(rows))
}

// Headline is the claim the section leads with, C4 > C1 by a paired t-test
// (Hamming loss, global accuracy), as a sentence with its verdict.
func Headline(rows []grid.Result) string {
	return protocol.HeadlineOf(Claims(rows), "C4 > C1, paired t-test over 10 folds (Hamming")
}
