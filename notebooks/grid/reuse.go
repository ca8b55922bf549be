package grid

import (
	"fmt"
	"os"
	"strings"

	"github.com/probably-submodular/crf/internal/codever"
)

// Report says what Run took from its results file, before running
// the rest: how many rows were reused, and which stale rows (other code or
// params) were reused or ignored, and why.
type Report struct {
	File   string              // the results file ("" for none)
	Jobs   int                 // jobs of the grid
	Code   codever.CodeVersion // the running code
	Policy ReusePolicy         // ReuseCurrent or ReuseStale
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
	Code   codever.CodeVersion
	Params string // their ParamsKey
	Why    string // "other code", "other params (differ in Tol)", …
	Rows   int
}

func (r Report) String() string {
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

// reusePlan is Run's choice of rows from the results file.
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
func planReuse(prev []Result, index map[string]int, code codever.CodeVersion, params string, policy ReusePolicy) reusePlan {
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

// ReuseEnv is the environment variable that sets the default ReusePolicy:
// "stale" reuses stored results of other code or params (with a warning),
// "current" or unset only those of the running code and the same params.
const ReuseEnv = "PSUB_REUSE"

// ReusePolicy says which stored results (the rows of a results file) may
// be reused instead of computed again.
type ReusePolicy int

const (
	// ReuseFromEnv reads ReuseEnv: ReuseCurrent when it is unset.
	ReuseFromEnv ReusePolicy = iota
	// ReuseCurrent reuses only results of the running code's source and the
	// same params; stale ones are computed again (the file keeps them).
	ReuseCurrent
	// ReuseStale also reuses stale results, and says so in a warning naming
	// how many and which code and params they came from.
	ReuseStale
)

func (p ReusePolicy) String() string {
	switch p {
	case ReuseCurrent:
		return "current"
	case ReuseStale:
		return ReuseEnv + "=stale"
	}
	return "from " + ReuseEnv
}

// resolve turns ReuseFromEnv into the policy the environment asks for.
func (p ReusePolicy) resolve() (ReusePolicy, error) {
	if p != ReuseFromEnv {
		return p, nil
	}
	switch v := strings.TrimSpace(os.Getenv(ReuseEnv)); v {
	case "", "current":
		return ReuseCurrent, nil
	case "stale":
		return ReuseStale, nil
	default:
		return 0, fmt.Errorf("%s=%q: want \"stale\" (reuse results of other code or params, with a warning) or \"current\"", ReuseEnv, v)
	}
}

// runningCode is the version to compare stored results with: override when
// set (tests), else codever.CurrentCode (whose error leaves Source empty, so that
// nothing is reused).
func runningCode(override *codever.CodeVersion) codever.CodeVersion {
	if override != nil {
		return *override
	}
	v, _ := codever.CurrentCode()
	return v
}

// staleness says why a result stored by code `stored` with params key
// `params` is not current for code `cur` and params `want`; "" when it is.
func staleness(stored codever.CodeVersion, params string, cur codever.CodeVersion, want string) string {
	var why []string
	switch {
	case stored.IsZero():
		why = append(why, "written before code versions were recorded")
	case !cur.Known():
		why = append(why, "the running code's source is unknown")
	case !stored.Same(cur):
		why = append(why, "other code")
	}
	if params != want {
		diff := paramsDiff(params, want, 4)
		why = append(why, "other params (differ in "+strings.Join(diff, ", ")+")")
	}
	return strings.Join(why, ", ")
}
