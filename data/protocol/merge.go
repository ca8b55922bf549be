package protocol

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/probably-submodular/crf/data/grid"
	"github.com/probably-submodular/crf/internal/safefile"
)

// MergeReport says what Merge did.
type MergeReport struct {
	Protocol string   `json:"protocol"`
	Profile  Profile  `json:"profile"`
	Out      string   `json:"out"`
	Files    []string `json:"files"`
	Rows     int      `json:"rows"` // rows written
	// Duplicates counts fits found in more than one file with the same
	// result (kept once).
	Duplicates int `json:"duplicates"`
	// Conflicts lists fits that two files disagree on (refused).
	Conflicts []string `json:"conflicts,omitempty"`
	// Missing lists the protocol's jobs with no successful row; Failed
	// those whose row holds an error (rerun the shard to retry them).
	Missing []string `json:"missing,omitempty"`
	Failed  []string `json:"failed,omitempty"`
	// Unknown counts rows of jobs the protocol does not list (another
	// profile's, or a changed grid's); they are not written.
	Unknown  int  `json:"unknown"`
	Complete bool `json:"complete"`
}

// Merge joins the rows of shard files (each read like grid.ReadResults: the
// newest row of each fit) into out, written atomically in the protocol's
// job order. A fit in two files must have the same result (metrics, error,
// parameters and code) or Merge fails naming both files and writes
// nothing. Missing and failed fits do not stop the merge: the report lists
// them (Complete is false), so a merge after a partial run shows what to
// rerun.
func Merge(p Protocol, profile Profile, out string, files []string) (MergeReport, error) {
	rep := MergeReport{Protocol: p.Name(), Profile: profile, Out: out, Files: files}
	if len(files) == 0 {
		return rep, fmt.Errorf("merge %s: no shard files", p.Name())
	}
	byKey := map[string]grid.Result{}
	from := map[string]string{}
	var rows []grid.Result
	for _, f := range files {
		if abs, err := filepath.Abs(f); err == nil && abs == mustAbs(out) {
			return rep, fmt.Errorf("merge %s: %s is both a shard and the output", p.Name(), f)
		}
		rs, err := grid.ReadResults(f)
		if err != nil {
			return rep, fmt.Errorf("merge %s: %w", p.Name(), err)
		}
		for _, r := range rs {
			k := r.Key()
			if prev, ok := byKey[k]; ok {
				if !sameFit(prev, r) {
					rep.Conflicts = append(rep.Conflicts, fmt.Sprintf("%s: %s and %s disagree", k, from[k], f))
				} else {
					rep.Duplicates++
				}
				continue
			}
			byKey[k], from[k] = r, f
			rows = append(rows, r)
		}
	}
	if len(rep.Conflicts) > 0 {
		return rep, fmt.Errorf("merge %s: %d fits differ between files, first %s; nothing written", p.Name(), len(rep.Conflicts), rep.Conflicts[0])
	}
	jobs, err := p.Jobs(profile, rows)
	if err != nil {
		return rep, fmt.Errorf("merge %s: %w", p.Name(), err)
	}
	var merged []grid.Result
	listed := map[string]bool{}
	for _, j := range jobs {
		k := j.Key()
		listed[k] = true
		r, ok := byKey[k]
		switch {
		case !ok:
			rep.Missing = append(rep.Missing, k)
			continue
		case r.Error != "":
			rep.Failed = append(rep.Failed, k+": "+r.Error)
		}
		merged = append(merged, r)
	}
	rep.Unknown = len(rows) - len(merged)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return rep, err
	}
	if err := safefile.Write(out, func(w io.Writer) error { return grid.WriteResultsJSONL(w, merged) }); err != nil {
		return rep, fmt.Errorf("merge %s: %w", p.Name(), err)
	}
	rep.Rows = len(merged)
	rep.Complete = len(rep.Missing) == 0 && len(rep.Failed) == 0
	return rep, nil
}

// sameFit compares two rows of one fit, timing aside.
func sameFit(a, b grid.Result) bool {
	if a.Error != b.Error || a.Params != b.Params || a.Code != b.Code {
		return false
	}
	strip := func(m map[string]float64) map[string]float64 {
		c := maps.Clone(m)
		for k := range c {
			if isTiming(k) {
				delete(c, k)
			}
		}
		return c
	}
	return reflect.DeepEqual(strip(a.Metrics), strip(b.Metrics)) && string(a.Detail) == string(b.Detail)
}

// isTiming tells the metrics that measure time, which differ between two
// runs of the same fit.
func isTiming(metric string) bool {
	for _, s := range []string{"seconds", "_cpu", "cpu_"} {
		if strings.HasSuffix(metric, s) || strings.HasPrefix(metric, s) {
			return true
		}
	}
	return false
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}
