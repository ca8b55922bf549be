package protocol

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/internal/modroot"
	"github.com/probably-submodular/crf/notebooks/grid"
)

// RunDetails is a notebook's closing section "Run details", generated from
// the rows the page shows: the profile, the results file, how many rows
// and how many failed, the code versions that wrote them and whether the
// running code would reuse them, and the job time per stage. It keeps the
// story free of commits and seconds, and it cannot go stale: it is the
// rows'. also names other results files the page reads (committed studies
// beside the protocol): their rows and code versions are listed too.
func RunDetails(p Protocol, profile Profile, results string, rows []grid.Result, also ...string) Table {
	code, err := Code(p)
	if err != nil {
		code = codever.CodeVersion{}
	}
	t := runDetails(p.Name(), profile, results, rows, code)
	for _, f := range also {
		rs, err := grid.ReadResults(f)
		if err != nil {
			t.Rows = append(t.Rows, []string{"also read: " + shownPath(f), "unreadable: " + err.Error()})
			continue
		}
		t.Rows = append(t.Rows, []string{"also read: " + shownPath(f), fmt.Sprintf("%d rows; %s", len(rs), codeVersions(rs))})
	}
	return t
}

// shownPath is f relative to the module's root when it lies inside it (a
// page names notebooks/results/..., not the folder it was rendered in).
func shownPath(f string) string {
	root, err := modroot.Find("")
	if err != nil {
		return f
	}
	abs, err := filepath.Abs(f)
	if err != nil {
		return f
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return f
	}
	return filepath.ToSlash(rel)
}

// codeVersions lists the code versions of rows, the most common first.
func codeVersions(rows []grid.Result) string {
	byCode := map[string]int{}
	var codes []string
	for _, r := range rows {
		k := "no code version recorded"
		if !r.Code.IsZero() {
			k = r.Code.String()
		}
		if _, ok := byCode[k]; !ok {
			codes = append(codes, k)
		}
		byCode[k]++
	}
	slices.SortStableFunc(codes, func(a, b string) int { return byCode[b] - byCode[a] })
	var cv []string
	for _, k := range codes {
		cv = append(cv, fmt.Sprintf("%s: %d rows", k, byCode[k]))
	}
	return strings.Join(cv, "; ")
}

// runDetails is RunDetails with the running code given.
func runDetails(name string, profile Profile, results string, rows []grid.Result, running codever.CodeVersion) Table {
	t := Table{Title: "run details: " + name + ", " + string(profile) + " profile", Header: []string{"", ""}}
	add := func(k, v string) { t.Rows = append(t.Rows, []string{k, v}) }
	add("profile", string(profile))
	add("results file", shownPath(results))
	failed, current := 0, 0
	secs := map[string]float64{}
	var tags []string
	total := 0.0
	for _, r := range rows {
		if r.Error != "" {
			failed++
		}
		if running.Known() && r.Code.Same(running) {
			current++
		}
		tag := r.Tag
		if tag == "" {
			tag = "fits"
		}
		if _, ok := secs[tag]; !ok {
			tags = append(tags, tag)
		}
		secs[tag] += r.Seconds
		total += r.Seconds
	}
	add("rows", fmt.Sprintf("%d (%d failed)", len(rows), failed))
	add("code versions of the rows", codeVersions(rows))
	run := "unknown (no row is reused)"
	if running.Known() {
		run = running.String()
	}
	add("running code", run)
	reuse := fmt.Sprintf("%d of %d rows are of the running code", current, len(rows))
	if stale := len(rows) - current; stale > 0 {
		reuse += fmt.Sprintf("; %d are of other code: shown only under %s=stale, else trained again", stale, grid.ReuseEnv)
	}
	add("reuse", reuse)
	var jt []string
	for _, tag := range tags {
		jt = append(jt, fmt.Sprintf("%s %.0f s", tag, secs[tag]))
	}
	add("job time (sum over fits, as recorded)", fmt.Sprintf("%.0f s: %s", total, strings.Join(jt, ", ")))
	return t
}
