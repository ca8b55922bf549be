package efficiency

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/notebooks/protocol"
)

// countFactor is how far (a factor either way) a count of margins or
// iterations may be from the paper's on the same fold: the problem is the
// paper's, the features and the solver are ours. ratioFactor is the same
// for ratios of times, which also depend on the machine.
const (
	countFactor = 1.25
	ratioFactor = 2
)

// Claims is the claim table of the paper's §6 and its efficiency table
// (notebooks/TARGETS.md §1, table "efficiency"), computed from the rows
// (Results, in the order of Configs): the margins and iterations of each
// row, the savings of delayed generation and of pretraining, and the
// times, compared as ratios between rows (ours in CPU seconds) since
// absolute times belong to a machine.
func Claims(rs []Result) []protocol.Claim {
	var cs []protocol.Claim
	add := func(claim, paper, ours string, v protocol.Verdict, rule string) {
		cs = append(cs, protocol.Claim{Claim: claim, Paper: paper, Ours: ours, Verdict: v, Rule: rule})
	}
	if len(rs) < 4 {
		return nil
	}
	names, ours := absolute(rs[:4])
	for i := 1; i < 4; i++ {
		v, rule := protocol.WithinFactor(ours[i][0], Paper[i][0], countFactor)
		add("margins computed, "+names[i], fmt.Sprintf("%.1f·10⁶", Paper[i][0]), protocol.Fmt("%.1f·10⁶", ours[i][0]), v, rule)
	}
	for i := range 4 {
		v, rule := protocol.WithinFactor(ours[i][1], Paper[i][1], countFactor)
		add("SSVM iterations, "+names[i], fmt.Sprintf("%.0f", Paper[i][1]), fmt.Sprintf("%.0f", ours[i][1]), v, rule)
	}
	r := Experiment{}.Ratios(rs)
	v, rule := protocol.Ordered(ours[1][0], ours[2][0], math.NaN(), 0)
	add("delayed generation computes fewer margins than Algorithm 1", fmt.Sprintf("×%.2f", r.Paper[2][0]), fmt.Sprintf("×%.2f", r.Ours[2][0]), v, rule)
	v, rule = protocol.WithinFactor(r.Ours[3][0], r.Paper[3][0], ratioFactor)
	add("pretraining + delayed: margins ÷ Algorithm 1's", fmt.Sprintf("%.3f", r.Paper[3][0]), fmt.Sprintf("%.3f", r.Ours[3][0]), v, rule)
	v, rule = protocol.Ordered(ours[1][2], ours[2][2], math.NaN(), 0)
	add("delayed generation takes less constraint-generation time than Algorithm 1", fmt.Sprintf("×%.2f", r.Paper[2][1]), fmt.Sprintf("×%.2f", r.Ours[2][1]), v, rule)
	v, rule = protocol.WithinFactor(r.Ours[3][1], r.Paper[3][1], ratioFactor)
	add("pretraining + delayed: constraint-generation time ÷ Algorithm 1's", fmt.Sprintf("%.2f", r.Paper[3][1]), fmt.Sprintf("%.2f", r.Ours[3][1]), v, rule)
	for i := 1; i < 4; i++ {
		v, rule := protocol.WithinFactor(r.Ours[i][3], r.Paper[i][3], countFactor)
		add("total training ÷ the definitely submodular row's, "+names[i], fmt.Sprintf("%.2f", r.Paper[i][3]), fmt.Sprintf("%.2f (CPU)", r.Ours[i][3]), v, rule)
	}
	add("after the first iteration 1 or 2 hard constraints are added per iteration", "1–2", "—", protocol.Untested, "the rows keep margins per iteration, not constraints added")
	return cs
}

// ClaimTable is Claims as the table a notebook shows first.
func ClaimTable(rs []Result) protocol.Table {
	return protocol.ClaimTable("the paper's §6, table \"efficiency\"", Claims(rs))
}
