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
// (grid.StopOf, never the iteration count), and adds one note per marked
// name: how many of its fits were capped and the largest relative gap they
// left. Names without fits or without capped fits are left alone.
func MarkCapped(c *Comparison, rows []grid.Result, names []string, belongs func(name string, r grid.Result) bool) {
	for _, name := range names {
		fits, capped, gap := 0, 0, -1.0
		for _, r := range rows {
			if r.Error != "" || !belongs(name, r) {
				continue
			}
			fits++
			if stop, _, ok := grid.StopOf(r.Metrics); ok && stop == psub.StopMaxIter {
				capped++
				if g, ok := r.Metrics["gap"]; ok && g > gap {
					gap = g
				}
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
// (grid.Result.Set) of one loss ("" for any).
func SetIs(loss string) func(string, grid.Result) bool {
	return func(name string, r grid.Result) bool { return r.Set == name && (loss == "" || r.Loss == loss) }
}
