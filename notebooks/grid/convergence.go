package grid

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/probably-submodular/crf/psub"
)

// StopOf reads why a fit stopped from its metrics: "stop" (a
// psub.StopReason, recorded by every experiment runner), or, for rows
// written before it, "converged" (0 is the iteration cap; 1 the stopping
// rule, without saying which, reported as psub.StopNone with ok true).
// ok is false when the row records neither.
func StopOf(m map[string]float64) (stop psub.StopReason, converged, ok bool) {
	if v, has := m["stop"]; has {
		r := psub.StopReason(v)
		return r, r.Converged(), true
	}
	if v, has := m["converged"]; has {
		if v == 0 {
			return psub.StopMaxIter, false, true
		}
		return psub.StopNone, true, true
	}
	return psub.StopNone, false, false
}

// StopLabel says in words how a fit stopped, with its relative gap, for
// a table's "converged" column: "yes: gap 0.0085 ≤ Tol", "yes: no violated
// labelling (gap 0.0031)", "no: iteration cap (gap 0.013)".
func StopLabel(stop psub.StopReason, gap float64) string {
	var s string
	switch stop {
	case psub.StopGap:
		return "yes: gap " + fmtGap(gap) + " ≤ Tol"
	case psub.StopNoViolation:
		s = "yes: no violated labelling"
	case psub.StopMaxIter:
		s = "no: iteration cap"
	default:
		s = "no: " + stop.String()
	}
	return s + " (gap " + fmtGap(gap) + ")"
}

// fmtGap writes a relative gap with three digits, and round-off (below
// 1e-9, either sign: a primal that met the dual) as 0.
func fmtGap(g float64) string {
	if math.Abs(g) < 1e-9 {
		return "0"
	}
	return fmt.Sprintf("%.3g", g)
}

// ConvergenceRow summarises how the fits of one (set, loss, tag) group of a
// results file ended: how many stopped at the iteration cap (StopOf), how
// many record no stop reason, their iterations, the largest relative gap
// left by a capped fit, and the summed job time.
type ConvergenceRow struct {
	Set, Loss, Tag string
	Fits, Capped   int
	// NotCertified counts fits that the stopping rule ended but whose
	// returned model failed a check of its certificate
	// (psub.StopNotCertified: gap, QP solves or hard constraints).
	NotCertified int
	Unknown      int // fits whose rows record neither "stop" nor "converged"
	MeanIter     float64
	MaxIter      int
	// MaxCappedGap is the largest gap (metric "gap") among the capped fits;
	// NaN when none was capped or the rows carry no gap.
	MaxCappedGap float64
	Seconds      float64
}

// Convergence groups the successful rows with an "iterations" metric by
// set, loss and tag (in order of first appearance) and summarises each
// group. Whether a fit was capped comes from its stop reason (StopOf),
// never from its iteration count.
func Convergence(rs []Result) []ConvergenceRow {
	type key struct{ s, l, t string }
	at := map[key]int{}
	var out []ConvergenceRow
	for _, r := range rs {
		it, ok := r.Metrics["iterations"]
		if r.Error != "" || !ok {
			continue
		}
		k := key{r.Set, r.Loss, r.Tag}
		i, seen := at[k]
		if !seen {
			i = len(out)
			at[k] = i
			out = append(out, ConvergenceRow{Set: r.Set, Loss: r.Loss, Tag: r.Tag, MaxCappedGap: math.NaN()})
		}
		g := &out[i]
		g.Fits++
		g.MeanIter += it
		g.MaxIter = max(g.MaxIter, int(it))
		g.Seconds += r.Seconds
		stop, _, ok := StopOf(r.Metrics)
		if !ok {
			g.Unknown++
		}
		if stop == psub.StopNotCertified {
			g.NotCertified++
		}
		if stop == psub.StopMaxIter {
			g.Capped++
			if gap, ok := r.Metrics["gap"]; ok && !(gap <= g.MaxCappedGap) {
				g.MaxCappedGap = gap
			}
		}
	}
	for i := range out {
		out[i].MeanIter /= float64(out[i].Fits)
	}
	return out
}

// TotalSeconds is the summed job time of the rows, per tag (sorted by tag),
// and over all of them.
func TotalSeconds(rs []Result) (perTag map[string]float64, tags []string, total float64) {
	perTag = map[string]float64{}
	for _, r := range rs {
		if _, ok := perTag[r.Tag]; !ok {
			tags = append(tags, r.Tag)
		}
		perTag[r.Tag] += r.Seconds
		total += r.Seconds
	}
	sort.Strings(tags)
	return perTag, tags, total
}

// ConvergenceTable lays out Convergence(rs) for display: set, loss (only
// when the rows have more than one loss), stage, fits, fits stopped at the
// cap, fits not certified (only when there are some), fits without a
// recorded stop reason (only when there are some), mean
// and maximum iterations, the largest gap at the cap ("–" when none was
// capped) and the job time in seconds.
func ConvergenceTable(rs []Result) (header []string, rows [][]string) {
	groups := Convergence(rs)
	losses := map[string]bool{}
	unknown, uncertified := false, false
	for _, g := range groups {
		losses[g.Loss] = true
		unknown = unknown || g.Unknown > 0
		uncertified = uncertified || g.NotCertified > 0
	}
	withLoss := len(losses) > 1
	header = []string{"set", "stage", "fits", "stopped at the cap", "mean iterations", "max iterations", "largest gap at the cap", "job time (s)"}
	if unknown {
		header = slices.Insert(header, 4, "stop not recorded")
	}
	if uncertified {
		header = slices.Insert(header, 4, "not certified")
	}
	if withLoss {
		header = slices.Insert(header, 1, "loss")
	}
	for _, g := range groups {
		gap := "–"
		if g.Capped > 0 {
			gap = fmt.Sprintf("%.2g", g.MaxCappedGap)
		}
		row := []string{g.Set, g.Tag, fmt.Sprint(g.Fits), fmt.Sprint(g.Capped), fmt.Sprintf("%.0f", g.MeanIter),
			fmt.Sprint(g.MaxIter), gap, fmt.Sprintf("%.0f", g.Seconds)}
		if unknown {
			row = slices.Insert(row, 4, fmt.Sprint(g.Unknown))
		}
		if uncertified {
			row = slices.Insert(row, 4, fmt.Sprint(g.NotCertified))
		}
		if withLoss {
			row = slices.Insert(row, 1, g.Loss)
		}
		rows = append(rows, row)
	}
	return header, rows
}
