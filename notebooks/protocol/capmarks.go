package protocol

import (
	"fmt"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
)

// CapMark marks a row or column of a table whose numbers come from fits
// that stopped at the iteration cap instead of at the tolerance.
const CapMark = "†"

// MarkCapped marks, in c, every name whose fits (those of rows for which
// belongs reports that name) include any that stopped at the iteration cap
// (Fit.Stop, never the iteration count), and adds one note per marked
// name: how many of its fits were capped and the largest relative gap they
// left. Names without fits or without capped fits are left alone.
func MarkCapped[M Fitted](c *Comparison, rows []grid.Row[grid.Job, M], names []string, belongs func(name string, j grid.Job) bool) {
	for _, name := range names {
		fits, capped, gap := 0, 0, -1.0
		for _, r := range rows {
			if r.Error != "" || !belongs(name, r.Job) {
				continue
			}
			fits++
			if f := r.Metrics.Fitted(); f.Stop == psub.StopMaxIter {
				capped++
				gap = max(gap, f.Gap)
			}
		}
		if capped == 0 {
			continue
		}
		if c.Marks == nil {
			c.Marks = map[string]string{}
		}
		c.Marks[name] = CapMark
		note := fmt.Sprintf("%s %s: %d of %d fits stopped at the iteration cap, not at the tolerance", CapMark, name, capped, fits)
		if gap >= 0 {
			note += fmt.Sprintf(" (largest relative gap left %.2g)", gap)
		}
		c.Notes = append(c.Notes, note+"; their models are scored as they are.")
	}
}

// SetIs is MarkCapped's belongs for tables whose names are constraint sets
// (grid.Job.Set) of one loss ("" for any).
func SetIs(loss string) func(string, grid.Job) bool {
	return func(name string, j grid.Job) bool { return j.Set == name && (loss == "" || j.Loss == loss) }
}

// Fitted are metrics with a fit's training metrics (those that embed Fit).
type Fitted interface{ Fitted() Fit }

// Fitted is f itself: any metrics struct that embeds Fit is Fitted.
func (f Fit) Fitted() Fit { return f }
