package data

import (
	"fmt"
	"strings"
)

// GridReport says what RunGrid took from its results file, before running
// the rest: how many rows were reused, and which stale rows (other code or
// params) were reused or ignored, and why.
type GridReport struct {
	File   string      // the results file ("" for none)
	Jobs   int         // jobs of the grid
	Code   CodeVersion // the running code
	Policy ReusePolicy // ReuseCurrent or ReuseStale
	// Reused jobs have a successful row of the running code and params.
	Reused int
	// StaleReused jobs have only stale rows, reused under ReuseStale.
	StaleReused int
	// StaleIgnored jobs have only stale rows, not reused: they run again.
	StaleIgnored int
	// Stale groups the stale rows reused or ignored by where they came from.
	Stale []StaleRows
	// ToRun is the number of jobs that run now.
	ToRun int
}

// StaleRows are stale rows of one code version and params.
type StaleRows struct {
	Code   CodeVersion
	Params string // their ParamsKey
	Why    string // "other code", "other params (differ in Tol)", …
	Rows   int
}

func (r GridReport) String() string {
	if r.File == "" {
		return fmt.Sprintf("grid: no results file; %d jobs to run (%s)", r.ToRun, r.Code)
	}
	var b strings.Builder
	if r.StaleReused > 0 {
		b.WriteString("WARNING: ")
	}
	if r.Reused == 0 && len(r.Stale) == 0 {
		fmt.Fprintf(&b, "%s: no earlier rows of these %d jobs", r.File, r.Jobs)
	} else {
		fmt.Fprintf(&b, "%s: reused %d of %d results (rows of this code and params)", r.File, r.Reused, r.Jobs)
	}
	if r.StaleReused > 0 {
		fmt.Fprintf(&b, "; reused %d STALE results (%s=stale)", r.StaleReused, ReuseEnv)
	}
	if r.StaleIgnored > 0 {
		fmt.Fprintf(&b, "; %d jobs have only stale rows and run again (%s=stale would reuse them)", r.StaleIgnored, ReuseEnv)
	}
	for i, s := range r.Stale {
		if i == 0 {
			b.WriteString(" — stale rows: ")
		} else {
			b.WriteString("; ")
		}
		if i == 4 {
			fmt.Fprintf(&b, "and %d more groups", len(r.Stale)-i)
			break
		}
		if s.Code.IsZero() {
			fmt.Fprintf(&b, "%d without a code version (%s)", s.Rows, s.Why)
		} else {
			fmt.Fprintf(&b, "%d from %s (%s)", s.Rows, s.Code, s.Why)
		}
	}
	fmt.Fprintf(&b, "; running %s; %d jobs to run", r.Code, r.ToRun)
	return b.String()
}

// reusePlan is RunGrid's choice of rows from the results file.
type reusePlan struct {
	rows                              []Result // per job: the row to reuse
	use                               []bool
	reappend                          []Result // reused rows that are not their key's newest row
	reused, staleReused, staleIgnored int
	stale                             []StaleRows
}

// planReuse picks, per job, the newest successful row of the running code
// and params; failing that, under ReuseStale, the newest successful stale
// row. Rows of keys not in index (other jobs) are left alone.
func planReuse(prev []Result, index map[string]int, code CodeVersion, params string, policy ReusePolicy) reusePlan {
	n := len(index)
	type cand struct {
		at  int // position in prev, -1 for none
		why string
	}
	current, stale := make([]cand, n), make([]cand, n)
	newest := make([]int, n)
	for i := range n {
		current[i].at, stale[i].at, newest[i] = -1, -1, -1
	}
	for at, r := range prev {
		i, ok := index[r.Key()]
		if !ok {
			continue
		}
		newest[i] = at
		if r.Error != "" {
			continue
		}
		if why := staleness(r.Code, r.Params, code, params); why == "" {
			current[i] = cand{at: at}
		} else {
			stale[i] = cand{at: at, why: why}
		}
	}
	p := reusePlan{rows: make([]Result, n), use: make([]bool, n)}
	group := map[string]int{} // code|params → index in p.stale
	for i := range n {
		c := current[i]
		switch {
		case c.at >= 0:
			p.reused++
		case stale[i].at < 0:
			continue
		default:
			s := stale[i]
			r := prev[s.at]
			k := r.Code.Commit + "|" + r.Code.Source + "|" + r.Params
			g, ok := group[k]
			if !ok {
				g = len(p.stale)
				group[k] = g
				p.stale = append(p.stale, StaleRows{Code: r.Code, Params: r.Params, Why: s.why})
			}
			p.stale[g].Rows++
			if policy != ReuseStale {
				p.staleIgnored++
				continue
			}
			p.staleReused++
			c = s
		}
		p.rows[i], p.use[i] = prev[c.at], true
		if c.at != newest[i] {
			p.reappend = append(p.reappend, prev[c.at])
		}
	}
	return p
}
