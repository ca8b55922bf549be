package protocol

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/internal/outguard"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/notebooks/grid"
)

// MergeReport says what Merge did.
type MergeReport struct {
	Protocol string   `json:"protocol"`
	Profile  Profile  `json:"profile"`
	Out      string   `json:"out"`
	Files    []string `json:"files"`
	// Rows counts the fits of the merged file (the protocol's fits and any
	// other fits out held).
	Rows int `json:"rows"`
	// OutRows counts the fits out held before the merge, all kept.
	OutRows int `json:"out_rows"`
	// Added counts the rows appended to out: fits it lacked, fits whose
	// row in out had failed and that a shard file holds done (Replaced
	// counts these), and fits whose row in out is of other code than the
	// running one and that a shard file holds done by the running code
	// (Superseded counts these).
	Added      int `json:"added"`
	Replaced   int `json:"replaced"`
	Superseded int `json:"superseded"`
	// Written says whether out was written: not when nothing was added.
	Written bool `json:"written"`
	// Duplicates counts fits found in more than one file (out included)
	// with the same result (kept once).
	Duplicates int `json:"duplicates"`
	// KeptOver counts fits whose row in out was kept over a shard file's
	// failed row.
	KeptOver int `json:"kept_over_failed"`
	// Conflicts lists fits that two files disagree on (refused).
	Conflicts []string `json:"conflicts,omitempty"`
	// Missing lists the protocol's jobs with no successful row; Failed
	// those whose row holds an error (rerun the shard to retry them).
	Missing []string `json:"missing,omitempty"`
	Failed  []string `json:"failed,omitempty"`
	// Unknown counts shard rows of jobs the protocol does not list
	// (another profile's, or a changed grid's); they are not written.
	Unknown  int  `json:"unknown"`
	Complete bool `json:"complete"`
}

// ErrNothingToMerge is wrapped by Merge's error when the shard files hold
// no row of the protocol's fits (a wrong profile, an empty shard).
var ErrNothingToMerge = errors.New("nothing to merge")

// Merge joins the rows of shard files (each read like grid.ReadResults: the
// newest row of each fit) into out, the protocol's results file, and
// returns what it did.
//
// The merged file is a superset of out: out's lines are kept as they are,
// in their order, and the new rows follow in the protocol's job order (a
// new out holds them alone). A fit in two files must have the same result
// (metrics, error, parameters and code, timings aside): else Merge fails
// naming both files and writes nothing. Two exceptions follow what a grid
// does when it runs a fit again, appending its new row below the old one:
// a fit whose row in out failed takes a shard file's successful row, and
// a fit whose row in out is of other code than the running one (stale,
// codever.CurrentCode) takes a shard file's successful row of the running
// code. A shard file's failed row never replaces a row of out, and a row
// of the running code in out is never replaced by another.
//
// Merge takes out's lock (safefile.LockPath), the one a grid running into
// out holds, and refuses while another run holds it. It writes out
// atomically, so that a reader or a kill sees the old file or the new one,
// and writes nothing when it fails, when the shard files hold no row of
// the protocol's fits (ErrNothingToMerge), or when out already holds every
// row they hold. Missing and failed fits do not stop the merge: the report
// lists them (Complete is false), so a merge after a partial run shows what
// to rerun. An output that is one of the shard files (under any spelling)
// is refused (internal/outguard).
func Merge(p Protocol, profile Profile, out string, files []string) (MergeReport, error) {
	rep := MergeReport{Protocol: p.Name(), Profile: profile, Out: out, Files: files}
	if len(files) == 0 {
		return rep, fmt.Errorf("merge %s: no shard files", p.Name())
	}
	var shardPaths []outguard.Path
	for _, f := range files {
		shardPaths = append(shardPaths, outguard.Path{Flag: "shard file", Path: f})
	}
	if err := outguard.Check([]outguard.Path{{Flag: "the output", Path: out}}, shardPaths); err != nil {
		return rep, fmt.Errorf("merge %s: %w", p.Name(), err)
	}
	byKey := map[string]grid.Result{}
	from := map[string]string{}
	var rows []grid.Result
	for _, f := range files {
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
	dir := filepath.Dir(out)
	if _, err := os.Stat(dir); err != nil {
		// A new folder: see whether there is anything to write first.
		if _, _, err := mergeInto(p, profile, out, nil, rows, byKey, from, rep); err != nil {
			return rep, err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return rep, fmt.Errorf("merge %s: %w", p.Name(), err)
		}
	}
	lock, err := safefile.TryLock(safefile.LockPath(out))
	if errors.Is(err, safefile.ErrLocked) {
		return rep, fmt.Errorf("merge %s: results file %s is in use by another run (%v); wait for it to finish and merge again; nothing written", p.Name(), out, err)
	}
	if err != nil {
		return rep, fmt.Errorf("merge %s: %w", p.Name(), err)
	}
	defer lock.Unlock()
	old, err := membudget.ReadFile(out)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return rep, fmt.Errorf("merge %s: %w", p.Name(), err)
	}
	var outRows []grid.Result
	if len(old) > 0 {
		if outRows, err = grid.ReadResults(out); err != nil {
			return rep, fmt.Errorf("merge %s: the output %w; nothing written", p.Name(), err)
		}
	}
	rep, added, err := mergeInto(p, profile, out, outRows, rows, byKey, from, rep)
	if err != nil || len(added) == 0 {
		return rep, err
	}
	err = safefile.Write(out, func(w io.Writer) error {
		if _, err := w.Write(old); err != nil {
			return err
		}
		if len(old) > 0 && old[len(old)-1] != '\n' {
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return err
			}
		}
		return grid.WriteResultsJSONL(w, added)
	})
	if err != nil {
		return rep, fmt.Errorf("merge %s: %w", p.Name(), err)
	}
	rep.Written = true
	return rep, nil
}

// mergeInto merges the shard rows (rows, byKey and from as Merge read
// them) into out's rows and returns the report and the rows to append to
// out, in job order. It fails, with nothing to append, on a conflict with
// out or when no shard row is of the protocol's fits.
func mergeInto(p Protocol, profile Profile, out string, outRows, rows []grid.Result, byKey map[string]grid.Result, from map[string]string, rep MergeReport) (MergeReport, []grid.Result, error) {
	have := make(map[string]grid.Result, len(outRows))
	for _, r := range outRows {
		have[r.Key()] = r
	}
	rep.OutRows = len(outRows)
	// The rows the merged file gives (grid.ReadResults' view): out's,
	// with failed ones replaced, then the shards' new fits.
	effective := slices.Clone(outRows)
	at := map[string]int{}
	for i, r := range effective {
		at[r.Key()] = i
	}
	cur, _ := codever.CurrentCode() // unknown: no row of out is stale
	candidate := map[string]bool{}
	for _, r := range rows {
		k := r.Key()
		o, ok := have[k]
		switch {
		case !ok:
			at[k] = len(effective)
			effective = append(effective, r)
		case sameFit(o, r):
			rep.Duplicates++
			continue
		case o.Error != "" && r.Error == "",
			r.Error == "" && r.Code.Same(cur) && !o.Code.Same(cur):
			effective[at[k]] = r
		case r.Error != "":
			rep.KeptOver++
			continue
		default:
			rep.Conflicts = append(rep.Conflicts, fmt.Sprintf("%s: %s and %s disagree", k, out, from[k]))
			continue
		}
		candidate[k] = true
	}
	if len(rep.Conflicts) > 0 {
		return rep, nil, fmt.Errorf("merge %s: %d fits of %s differ in the shard files, first %s; nothing written (merge into a new file to replace rows)", p.Name(), len(rep.Conflicts), out, rep.Conflicts[0])
	}
	jobs, err := p.Jobs(profile, effective)
	if err != nil {
		return rep, nil, fmt.Errorf("merge %s: %w", p.Name(), err)
	}
	var added []grid.Result
	listed := 0
	for _, j := range jobs {
		k := j.Key()
		if _, ok := byKey[k]; ok {
			listed++
		}
		if candidate[k] {
			added = append(added, byKey[k])
			if o, ok := have[k]; ok && o.Error != "" {
				rep.Replaced++
			} else if ok {
				rep.Superseded++
			}
		}
		i, ok := at[k]
		switch {
		case !ok:
			rep.Missing = append(rep.Missing, k)
		case effective[i].Error != "":
			rep.Failed = append(rep.Failed, k+": "+effective[i].Error)
		}
	}
	// Shard rows of fits the protocol does not list are not written.
	rep.Unknown = len(rows) - listed
	rep.Added = len(added)
	rep.Rows = len(outRows) + len(added) - rep.Replaced - rep.Superseded
	rep.Complete = len(rep.Missing) == 0 && len(rep.Failed) == 0
	if listed == 0 {
		return rep, nil, fmt.Errorf("merge %s: %w: the shard files hold no row of the %s profile's %d fits (%d rows of other fits: another profile or grid?); %s left as it was",
			p.Name(), ErrNothingToMerge, profile, len(jobs), rep.Unknown, out)
	}
	return rep, added, nil
}

// sameFit compares two rows of one fit, timing aside.
func sameFit(a, b grid.Result) bool {
	if a.Error != b.Error || a.Params != b.Params || a.Code != b.Code {
		return false
	}
	strip := func(m map[string]float64) map[string]float64 {
		c := maps.Clone(m)
		maps.DeleteFunc(c, func(k string, _ float64) bool { return IsTiming(k) })
		return c
	}
	return reflect.DeepEqual(strip(a.Metrics), strip(b.Metrics)) && string(a.Detail) == string(b.Detail)
}

// IsTiming tells the metrics that measure time, which differ between two
// runs of the same fit.
func IsTiming(metric string) bool {
	return slices.ContainsFunc([]string{"seconds", "_cpu", "cpu_"}, func(s string) bool {
		return strings.HasSuffix(metric, s) || strings.HasPrefix(metric, s)
	})
}
