package yardstick

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// JobTime is the job time of a profile's fits as their committed rows
// record it.
type JobTime struct {
	// Files is how many results files were read.
	Files int
	// Fits counts the listed fits with a successful row, Seconds their
	// summed seconds, Missing the listed fits without one.
	Fits    int
	Seconds float64
	Missing int
	// Stale counts the fits whose row was made by other code than the
	// protocol's of this checkout (protocol.Code).
	Stale int
}

// FullJobTime sums the seconds of the full profile's fits over the
// protocols, from each one's committed results
// (protocol.DefaultResults(name, protocol.Full)): the newest row of every
// fit the protocol lists given those rows. A protocol without the file is
// an error: the whole paper is not measured.
func FullJobTime(ps []protocol.Protocol) (JobTime, error) {
	var t JobTime
	for _, p := range ps {
		file := protocol.DefaultResults(p.Name(), protocol.Full)
		rows, err := grid.ReadResults(file) // the newest row of each job
		if errors.Is(err, fs.ErrNotExist) {
			return t, fmt.Errorf("yardstick: %s has no committed full-profile rows (%s)", p.Name(), file)
		}
		if err != nil {
			return t, err
		}
		t.Files++
		jobs, err := p.Jobs(protocol.Full, rows)
		if err != nil {
			return t, fmt.Errorf("yardstick: %s: %w", p.Name(), err)
		}
		byKey := make(map[string]grid.Result, len(rows))
		for _, r := range rows {
			byKey[r.Key()] = r
		}
		code, _ := protocol.Code(p) // unknown: every row counts as stale
		for _, j := range jobs {
			r, ok := byKey[j.Key()]
			if !ok || r.Error != "" {
				t.Missing++
				continue
			}
			t.Fits++
			t.Seconds += r.Seconds
			if !r.Code.Same(code) {
				t.Stale++
			}
		}
	}
	return t, nil
}
