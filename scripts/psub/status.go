package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// allStatus is what "psub protocol all -status" prints: what the results
// files hold of each protocol's fits, and what a run would compute again.
type allStatus struct {
	Profile string `json:"profile"`
	// Reuse is the policy a run would follow ($PSUB_REUSE): "current"
	// recomputes stale rows, "stale" reuses them.
	Reuse   string `json:"reuse"`
	Workers int    `json:"workers"`
	// The totals over Protocols.
	Fits    int `json:"fits"`
	Fresh   int `json:"fresh"`
	Stale   int `json:"stale"`
	Missing int `json:"missing"`
	ToRun   int `json:"to_run"`
	// ToRunSeconds is the one-core time of the fits to run; ToRunWall an
	// estimate of a run's wall time on Workers (see estimateWall).
	ToRunSeconds float64 `json:"to_run_seconds"`
	ToRunWall    float64 `json:"to_run_wall_seconds"`
	// FullByDefault says whether the rows hold every fit (ToRun is 0,
	// and there are fits): scripts/reproduce then renders the full
	// profile by default, computing nothing.
	FullByDefault bool             `json:"full_by_default"`
	Protocols     []protocolStatus `json:"protocols"`
	// WithoutProtocol lists the notebooks asked about that run no protocol.
	WithoutProtocol []string `json:"without_protocol,omitempty"`
}

// protocolStatus is one protocol's fits in its results file: the newest
// row of each fit the profile lists.
type protocolStatus struct {
	Protocol string `json:"protocol"`
	// Notebook is the notebook that imports the protocol's package and
	// notebooks/protocol ("" when none does).
	Notebook string `json:"notebook,omitempty"`
	Results  string `json:"results"`
	// Code is the version of the code the protocol's fits execute in
	// this checkout (protocol.Code): rows of another Source are stale.
	Code codever.CodeVersion `json:"code"`
	// Fits is how many fits the profile runs; Fresh of them have a
	// successful row of Code, Stale one of other code (or none recorded),
	// Missing none (or only a failed one).
	Fits    int `json:"fits"`
	Fresh   int `json:"fresh"`
	Stale   int `json:"stale"`
	Missing int `json:"missing"`
	// Seconds sums the successful rows' seconds (each fit on one core,
	// efficiency's on every core).
	Seconds float64 `json:"seconds"`
	// Capped counts the rows stopped at the iteration cap, NotCertified
	// those whose model failed Train's certificate check, per set.
	Capped       int            `json:"capped"`
	NotCertified map[string]int `json:"not_certified,omitempty"`
	// RowCodes are the code versions of the successful rows, most first.
	RowCodes []rowCode `json:"row_codes"`
	// ToRun is how many fits a run would compute (Missing, plus Stale
	// unless stale rows are reused), ToRunSeconds their one-core time:
	// a stale row's seconds, else the mean a cost estimate gives.
	ToRun        int     `json:"to_run"`
	ToRunSeconds float64 `json:"to_run_seconds"`
	// Exclusive protocols run their fits alone, each on every core.
	Exclusive bool `json:"exclusive,omitempty"`
}

// rowCode is one code version among a protocol's rows.
type rowCode struct {
	Commit string `json:"commit"`
	Source string `json:"source"`
	Rows   int    `json:"rows"`
}

// statusOf reads the rows of p's fits for prof from results (a missing
// file holds none) and compares them with code; reuseStale says whether a
// run would reuse stale rows.
func statusOf(p protocol.Protocol, prof protocol.Profile, results string, code codever.CodeVersion, reuseStale bool) (protocolStatus, error) {
	s := protocolStatus{Protocol: p.Name(), Results: results, Code: code, Exclusive: exclusive(p)}
	rows, err := grid.ReadResults(results)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	first, err := p.Jobs(prof, nil)
	if err != nil {
		return s, err
	}
	jobs, err := p.Jobs(prof, rows)
	if err != nil {
		return s, err
	}
	// A listing without the rows of a stage lacks the fits that wait for
	// them (a fold's final fit): count those as missing.
	s.Fits = max(len(jobs), protocol.ListedFits(first, p.Group))
	by := make(map[string]grid.Result, len(rows))
	for _, r := range rows {
		by[r.Key()] = r
	}
	cost, err := protocol.EstimateCost(p, prof, results)
	if err != nil {
		return s, err
	}
	codes := map[rowCode]int{}
	for _, j := range jobs {
		r, ok := by[j.Key()]
		if !ok || r.Error != "" {
			s.Missing++
			continue
		}
		s.Seconds += r.Seconds
		codes[rowCode{Commit: r.Code.Commit, Source: r.Code.Source}]++
		if stop, _, ok := grid.StopOf(r.Metrics); ok {
			switch stop {
			case psub.StopMaxIter:
				s.Capped++
			case psub.StopNotCertified:
				if s.NotCertified == nil {
					s.NotCertified = map[string]int{}
				}
				s.NotCertified[r.Set]++
			}
		}
		if r.Code.Same(code) {
			s.Fresh++
			continue
		}
		s.Stale++
		if !reuseStale {
			s.ToRun++
			s.ToRunSeconds += r.Seconds
		}
	}
	s.Missing += s.Fits - len(jobs)
	s.ToRun += s.Missing
	s.ToRunSeconds += float64(s.Missing) * cost.FitSeconds
	for c, n := range codes {
		c.Rows = n
		s.RowCodes = append(s.RowCodes, c)
	}
	slices.SortFunc(s.RowCodes, func(a, b rowCode) int {
		return cmp.Or(b.Rows-a.Rows, strings.Compare(a.Commit+a.Source, b.Commit+b.Source))
	})
	return s, nil
}

// estimateWall estimates the wall time of running the fits of ss on
// workers slots as "psub protocol all" does: the shared pool's fits at
// best spread evenly (a chain of warm-started fits can make it longer),
// then the exclusive protocols' fits one after another.
func estimateWall(ss []protocolStatus, workers int) float64 {
	pooled, alone := 0.0, 0.0
	for _, s := range ss {
		if s.Exclusive {
			alone += s.ToRunSeconds
		} else {
			pooled += s.ToRunSeconds
		}
	}
	return pooled/float64(max(workers, 1)) + alone
}

// statusAll is the status of the protocols ps (each in dir, or in its
// default results file when dir is "").
func statusAll(ps []protocol.Protocol, prof protocol.Profile, dir string, workers int, reuseStale bool) (allStatus, error) {
	out := allStatus{Profile: string(prof), Reuse: "current", Workers: workers}
	if reuseStale {
		out.Reuse = "stale"
	}
	nbs, err := readNotebooks()
	if err != nil {
		return out, err
	}
	for _, p := range ps {
		code, err := protocol.Code(p)
		if err != nil {
			return out, fmt.Errorf("%s: the code version of its fits: %w", p.Name(), err)
		}
		s, err := statusOf(p, prof, resultsOf(p, prof, dir), code, reuseStale)
		if err != nil {
			return out, fmt.Errorf("%s: %w", p.Name(), err)
		}
		if s.Notebook, err = notebookOf(p, nbs); err != nil {
			return out, err
		}
		if s.Notebook != "" {
			s.Notebook = filepath.Join("notebooks", filepath.Base(s.Notebook))
		}
		out.Protocols = append(out.Protocols, s)
	}
	out.total()
	return out, nil
}

// total sets the totals over st.Protocols, the estimated wall time and
// FullByDefault.
func (st *allStatus) total() {
	st.Fits, st.Fresh, st.Stale, st.Missing, st.ToRun, st.ToRunSeconds = 0, 0, 0, 0, 0, 0
	for _, s := range st.Protocols {
		st.Fits += s.Fits
		st.Fresh += s.Fresh
		st.Stale += s.Stale
		st.Missing += s.Missing
		st.ToRun += s.ToRun
		st.ToRunSeconds += s.ToRunSeconds
	}
	st.ToRunWall = estimateWall(st.Protocols, st.Workers)
	st.FullByDefault = st.Fits > 0 && st.ToRun == 0
}

// resultsOf is the results file of p under "psub protocol all -dir dir".
func resultsOf(p protocol.Protocol, prof protocol.Profile, dir string) string {
	if dir != "" {
		return filepath.Join(dir, fmt.Sprintf("%s-%s.jsonl", p.Name(), prof))
	}
	return protocol.DefaultResults(p.Name(), prof)
}

// notebooksDir is the folder of the notebooks, notebooks/ under the
// module root (a variable for tests).
var notebooksDir = filepath.Join(filepath.Dir(data.OutDir()), "notebooks")

// readNotebooks reads the code of the notebooks in notebooksDir, by file.
func readNotebooks() (map[string]string, error) {
	files, err := filepath.Glob(filepath.Join(notebooksDir, "*.ipynb"))
	if err != nil {
		return nil, err
	}
	nbs := make(map[string]string, len(files))
	for _, f := range files {
		if nbs[f], err = notebookCode(f); err != nil {
			return nil, err
		}
	}
	return nbs, nil
}

// notebookOf finds the notebook of p among nbs (readNotebooks): the one
// whose code imports both p's package and notebooks/protocol (a notebook
// that only borrows an experiment's code, as the quickstart does, imports
// the one and not the other). It is "" when no notebook does, and an
// error when several do.
func notebookOf(p protocol.Protocol, nbs map[string]string) (string, error) {
	t := reflect.TypeOf(p)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := []string{`"` + t.PkgPath() + `"`, `"` + reflect.TypeFor[protocol.Options]().PkgPath() + `"`}
	var found []string
	for f, src := range nbs {
		if strings.Contains(src, want[0]) && strings.Contains(src, want[1]) {
			found = append(found, f)
		}
	}
	slices.Sort(found)
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("protocol %s: %d notebooks import its package and notebooks/protocol (%s): want one", p.Name(), len(found), strings.Join(found, ", "))
}

// notebookCode is the source of a notebook's code cells, joined.
func notebookCode(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	var nb struct {
		Cells []struct {
			Type   string          `json:"cell_type"`
			Source json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		return "", fmt.Errorf("%s: not a notebook: %w", file, err)
	}
	var src strings.Builder
	for i, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		// nbformat writes a source as a list of lines or one string.
		var lines []string
		if err := json.Unmarshal(c.Source, &lines); err != nil {
			var one string
			if err := json.Unmarshal(c.Source, &one); err != nil {
				return "", fmt.Errorf("%s: cell %d: source is neither a string nor a list of lines", file, i)
			}
			lines = []string{one}
		}
		for _, l := range lines {
			src.WriteString(l)
		}
		src.WriteByte('\n')
	}
	return src.String(), nil
}

// jobTable writes the README's table of the full profile's job time from
// st, in markdown: per protocol its notebook, fits, summed seconds, fits
// at the cap and not certified, the code versions of the rows, how many
// rows are fresh for this checkout's code, and the results file; then the
// totals.
func jobTable(w io.Writer, st allStatus) error {
	var b strings.Builder
	b.WriteString("| notebook | fits | job time | at the cap | not certified | code of the rows | fresh at HEAD | results |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	capped, uncertified, seconds := 0, 0, 0.0
	var codes []string
	for _, s := range st.Protocols {
		nb := "–"
		if s.Notebook != "" {
			nb = "`" + strings.TrimSuffix(filepath.Base(s.Notebook), ".ipynb") + "`"
		}
		var rc []string
		for _, c := range s.RowCodes {
			name := shortCommit(c.Commit)
			if !slices.Contains(codes, name) {
				codes = append(codes, name)
			}
			if len(s.RowCodes) > 1 {
				name += fmt.Sprintf(" (%d)", c.Rows)
			}
			rc = append(rc, name)
		}
		if len(rc) == 0 {
			rc = []string{"–"}
		}
		nc := 0
		for _, n := range s.NotCertified {
			nc += n
		}
		capped, uncertified, seconds = capped+s.Capped, uncertified+nc, seconds+s.Seconds
		fits := thousands(s.Fits)
		if s.Missing > 0 {
			fits += fmt.Sprintf(" (%d without a row)", s.Missing)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %s | %s | `%s` |\n", nb, fits, duration(s.Seconds), s.Capped,
			setCounts(nc, s.NotCertified), strings.Join(rc, ", "), freshCell(s.Fresh, s.Fits), filepath.Base(s.Results))
	}
	commits := fmt.Sprintf("%d commits", len(codes))
	if len(codes) == 1 {
		commits = "one: " + codes[0]
	}
	fmt.Fprintf(&b, "| **all** | **%s** | **%s** | **%d** | **%d** | %s | **%s** | |\n", thousands(st.Fits), duration(seconds),
		capped, uncertified, commits, freshCell(st.Fresh, st.Fits))
	_, err := io.WriteString(w, b.String())
	return err
}

// freshCell says how many of fits have a row of this checkout's code.
func freshCell(fresh, fits int) string {
	switch fresh {
	case fits:
		return fmt.Sprintf("all %s", thousands(fits))
	case 0:
		return "none (all stale)"
	}
	return fmt.Sprintf("%s of %s", thousands(fresh), thousands(fits))
}

// setCounts writes n and, when there are some, how many per set.
func setCounts(n int, bySet map[string]int) string {
	if n == 0 {
		return "0"
	}
	sets := slices.Sorted(maps.Keys(bySet))
	parts := make([]string, len(sets))
	for i, s := range sets {
		parts[i] = fmt.Sprintf("%s %d", s, bySet[s])
	}
	return fmt.Sprintf("%d (%s)", n, strings.Join(parts, ", "))
}

// shortCommit is a commit's first 7 hex digits, its "+dirty" kept.
func shortCommit(c string) string {
	base, dirty := strings.CutSuffix(c, "+dirty")
	if len(base) > 7 {
		base = base[:7]
	}
	if base == "" {
		base = "no version"
	}
	if dirty {
		base += "+dirty"
	}
	return base
}

// duration writes seconds as "1 633 s (0.45 h)" (hours from 1 000 s on).
func duration(sec float64) string {
	s := thousands(int(math.Round(sec))) + " s"
	if sec >= 1000 {
		s += fmt.Sprintf(" (%.2f h)", sec/3600)
	}
	return s
}

// thousands writes n with a space between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}

// printStatus prints the status of ps (those the notebooks run, when
// notebooks are given) as JSON with a summary line on stderr, or, with
// table, the job-time table in markdown.
func printStatus(ps []protocol.Protocol, prof protocol.Profile, dir string, workers int, table bool, notebooks []string, stdout, stderr io.Writer) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var reuseStale bool
	switch v := strings.TrimSpace(os.Getenv(grid.ReuseEnv)); v {
	case "", "current":
	case "stale":
		reuseStale = true
	default:
		return fmt.Errorf("%s=%q: want \"stale\" or \"current\"", grid.ReuseEnv, v)
	}
	st, err := statusAll(ps, prof, dir, workers, reuseStale)
	if err != nil {
		return err
	}
	if table {
		return jobTable(stdout, st)
	}
	if len(notebooks) > 0 {
		st, err = keepNotebooks(st, notebooks)
		if err != nil {
			return err
		}
	}
	if err := writeJSON(stdout, st); err != nil {
		return err
	}
	fmt.Fprintln(stderr, st.summary())
	return nil
}

// keepNotebooks keeps the protocols that the notebooks run and recounts
// the totals; a notebook that runs none goes to WithoutProtocol.
func keepNotebooks(st allStatus, notebooks []string) (allStatus, error) {
	out := allStatus{Profile: st.Profile, Reuse: st.Reuse, Workers: st.Workers}
	for _, nb := range notebooks {
		if _, err := os.Stat(nb); err != nil {
			return out, fmt.Errorf("notebook %s: %w", nb, err)
		}
		found := false
		for _, s := range st.Protocols {
			if s.Notebook != "" && filepath.Base(s.Notebook) == filepath.Base(nb) {
				found = true
				if !slices.ContainsFunc(out.Protocols, func(o protocolStatus) bool { return o.Protocol == s.Protocol }) {
					out.Protocols = append(out.Protocols, s)
				}
			}
		}
		if !found {
			out.WithoutProtocol = append(out.WithoutProtocol, nb)
		}
	}
	out.total()
	return out, nil
}

// summary says in one line what a run would do.
func (st allStatus) summary() string {
	if len(st.Protocols) == 0 {
		return fmt.Sprintf("%s profile: no protocol's fits", st.Profile)
	}
	names := make([]string, len(st.Protocols))
	for i, p := range st.Protocols {
		names[i] = p.Protocol
	}
	s := fmt.Sprintf("%s profile (%s): %s fits, %s with a row of this checkout's code, %s stale, %s missing", st.Profile,
		strings.Join(names, ", "), thousands(st.Fits), thousands(st.Fresh), thousands(st.Stale), thousands(st.Missing))
	if st.ToRun == 0 && st.Reuse == "stale" && st.Stale > 0 {
		return s + "; nothing to compute, the stale rows reused (" + grid.ReuseEnv + "=stale)"
	}
	if st.ToRun == 0 {
		return s + "; nothing to compute"
	}
	reuse := "stale ones recomputed"
	if st.Reuse == "stale" {
		reuse = "stale ones reused (" + grid.ReuseEnv + "=stale)"
	}
	return s + fmt.Sprintf("; %s: %s fits to compute, %s of one-core time, about %s on %d workers (besides building the problems)", reuse, thousands(st.ToRun),
		duration(st.ToRunSeconds), duration(st.ToRunWall), st.Workers)
}
