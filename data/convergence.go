package data

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// ConvergenceRow summarises how the fits of one (set, loss, tag) group of a
// results file ended: how many reached the tolerance and how many stopped
// at the iteration cap (metric "converged" 0), their iterations, the
// largest relative gap left by a capped fit, and the summed job time.
type ConvergenceRow struct {
	Set, Loss, Tag string
	Fits, Capped   int
	MeanIter       float64
	MaxIter        int
	// MaxCappedGap is the largest gap (metric "gap") among the capped fits;
	// NaN when none was capped or the rows carry no gap.
	MaxCappedGap float64
	Seconds      float64
}

// Convergence groups the successful rows with an "iterations" metric by
// set, loss and tag (in order of first appearance) and summarises each
// group. Rows without "converged" count as converged.
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
		if c, ok := r.Metrics["converged"]; ok && c == 0 {
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
// cap, mean and maximum iterations, the largest gap at the cap ("–" when
// none was capped) and the job time in seconds.
func ConvergenceTable(rs []Result) (header []string, rows [][]string) {
	groups := Convergence(rs)
	losses := map[string]bool{}
	for _, g := range groups {
		losses[g.Loss] = true
	}
	withLoss := len(losses) > 1
	header = []string{"set", "stage", "fits", "stopped at the cap", "mean iterations", "max iterations", "largest gap at the cap", "job time (s)"}
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
		if withLoss {
			row = slices.Insert(row, 1, g.Loss)
		}
		rows = append(rows, row)
	}
	return header, rows
}
