package protocol

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/grid"
)

// Cost is what a protocol's fits take on one core: what a cluster job must
// ask for (psub protocol -slurm sizes its array tasks with it).
type Cost struct {
	// Fits is how many fits the profile runs, Groups how many groups of
	// dependent fits it has (the most shards it splits into).
	Fits   int `json:"fits"`
	Groups int `json:"groups"`
	// FitSeconds is the mean wall time of one fit, MaxFitSeconds the
	// longest (a task cannot end before its longest fit).
	FitSeconds    float64 `json:"fit_seconds"`
	MaxFitSeconds float64 `json:"max_fit_seconds"`
	// MemoryMB is the peak resident memory of a run with one worker (the
	// built problems and one fit); FitMemoryMB is what each further
	// worker adds.
	MemoryMB    float64 `json:"memory_mb"`
	FitMemoryMB float64 `json:"fit_memory_mb"`
	// BuildSeconds is the wall time of building the problems (superpixels,
	// features) with an empty cache, on one core.
	BuildSeconds float64 `json:"build_seconds"`
	// Source says where the numbers come from.
	Source string `json:"source"`
}

// Coster is a protocol that states its measured costs per profile (false
// for a profile nothing measured), for sizing a run before any of its rows
// exist. Each Cost says where its numbers come from. The full profiles
// state no seconds: their committed results files (DefaultResults,
// notebooks/results/NAME-full.jsonl) record every fit's seconds, and
// EstimateCost measures them there, so that a cluster job is sized by the
// code the repository ships, not by an older run's numbers.
type Coster interface {
	Cost(p Profile) (Cost, bool)
}

// FallbackCost is assumed for a protocol and profile that nothing measured:
// generous, so that a first cluster run is not killed at its time limit.
// DefaultSeconds and DefaultMemory say where its numbers come from when
// rows measure the seconds, or a prior states only memory.
var FallbackCost = Cost{FitSeconds: 600, MaxFitSeconds: 3600, MemoryMB: 8192, FitMemoryMB: 2048, BuildSeconds: 3600,
	Source: "nothing measured: a conservative default (10 min per fit, 1 h the longest, 8 GiB, 2 GiB per further worker, 1 h to build)"}

const (
	DefaultSeconds = "a conservative default (10 min per fit, 1 h the longest)"
	DefaultMemory  = "a conservative default (8 GiB, 2 GiB per further worker, 1 h to build)"
)

// EstimateCost returns the costs of running profile prof of p. Fits and
// Groups come from the protocol's jobs. The prior costs are the protocol's
// Coster's, else a conservative default. The seconds
// are measured from the successful rows of the profile's jobs in the
// results files (none given: DefaultResults; missing files are skipped):
// the mean always, the longest fit only when the rows cover every fit (a
// partial run's longest fit may be among those still missing, so the
// prior's counts too). For the full profile, when the files measure none
// of its fits or not all, the committed DefaultResults file (the fits the
// repository ships, of whatever code version) is measured too, and its
// seconds take the place of the prior's. Only when no rows measure any fit
// do the seconds come from the prior (the default's, when the prior states
// none). Memory is not recorded in rows and always comes from the prior.
//
// Source then reads "seconds: WHERE; memory and build time: PRIOR", or is
// the prior's own Source when the prior gives every number.
func EstimateCost(p Protocol, prof Profile, results ...string) (Cost, error) {
	shipped := DefaultResults(p.Name(), prof)
	if len(results) == 0 {
		results = []string{shipped}
	}
	first, err := p.Jobs(prof, nil)
	if err != nil {
		return Cost{}, err
	}
	c := FallbackCost
	if cs, ok := p.(Coster); ok {
		if k, ok := cs.Cost(prof); ok {
			c = k
		}
	}
	// Where the seconds and the memory come from so far: the prior, or the
	// default for what the prior leaves out.
	seconds, memory := c.Source, c.Source
	if c == FallbackCost {
		seconds, memory = DefaultSeconds, DefaultMemory
	}
	if !(c.FitSeconds > 0) {
		c.FitSeconds, c.MaxFitSeconds = FallbackCost.FitSeconds, FallbackCost.MaxFitSeconds
		seconds = DefaultSeconds
	}
	c.Groups = len(groupOrder(first, p.Group))
	listed := ListedFits(first, p.Group)
	if c.Fits == 0 {
		c.Fits = listed
	}

	given, err := measureSeconds(p, prof, results)
	if err != nil {
		return Cost{}, err
	}
	if prof == Full && !given.complete(listed) && !among(shipped, results) {
		m, err := measureSeconds(p, prof, []string{shipped})
		if err != nil {
			return Cost{}, err
		}
		if m.n > 0 {
			c, seconds = m.apply(c, listed, seconds, shipped)
		}
	}
	if given.n > 0 {
		c, seconds = given.apply(c, listed, seconds, shipped)
	}
	if seconds != memory && !(seconds == DefaultSeconds && memory == DefaultMemory) {
		c.Source = "seconds: " + seconds + "; memory and build time: " + memory
	}
	return c, nil
}

// fitSeconds is what the rows of some results files measure of a profile's
// fits: n of the jobs listed given those rows, their total and longest
// seconds, and the code versions that ran them.
type fitSeconds struct {
	n, jobs  int
	sum, max float64
	read     []string // the files that exist
	codes    map[codever.CodeVersion]int
}

// complete reports whether the rows measure every fit of the profile.
func (m fitSeconds) complete(listed int) bool {
	return m.n > 0 && m.n == m.jobs && m.n >= listed
}

// apply puts the measured seconds in place of c's. seconds says where c's
// seconds come from, and apply returns where they come from now; shipped
// is the committed results file, named so among the files read.
func (m fitSeconds) apply(c Cost, listed int, seconds, shipped string) (Cost, string) {
	files := make([]string, len(m.read))
	for i, f := range m.read {
		files[i] = f
		if among(f, []string{shipped}) {
			files[i] = "the committed results " + f
		}
	}
	where := fmt.Sprintf("measured in %s (%s)", strings.Join(files, ", "), m.codeList())
	c.FitSeconds = m.sum / float64(m.n)
	if m.complete(listed) {
		c.Fits, c.MaxFitSeconds = m.n, m.max // a complete run lists every fit
		return c, fmt.Sprintf("all %d fits %s", m.n, where)
	}
	c.MaxFitSeconds = math.Max(m.max, c.MaxFitSeconds)
	return c, fmt.Sprintf("the mean of %d of %d fits %s, the longest fit the larger of theirs and that of %s", m.n, c.Fits, where, seconds)
}

// codeList names the code versions of the measured rows, most rows first.
func (m fitSeconds) codeList() string {
	codes := slices.Collect(maps.Keys(m.codes))
	slices.SortFunc(codes, func(a, b codever.CodeVersion) int {
		if d := m.codes[b] - m.codes[a]; d != 0 {
			return d
		}
		return strings.Compare(a.String(), b.String())
	})
	if len(codes) == 1 {
		return "rows of " + codes[0].String()
	}
	parts := make([]string, len(codes))
	for i, v := range codes {
		parts[i] = fmt.Sprintf("%s: %d fits", v, m.codes[v])
	}
	return "rows of " + strings.Join(parts, " and ")
}

// measureSeconds reads the newest row of each fit over the files (missing
// files are skipped) and measures the successful rows of the jobs p lists
// for prof given those rows.
func measureSeconds(p Protocol, prof Profile, files []string) (fitSeconds, error) {
	m := fitSeconds{codes: map[codever.CodeVersion]int{}}
	byKey := map[string]grid.Result{}
	var rows []grid.Result
	for _, f := range files {
		rs, err := grid.ReadResults(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return m, fmt.Errorf("costs of %s %s: %w", p.Name(), prof, err)
		}
		m.read = append(m.read, f)
		for _, r := range rs {
			if _, seen := byKey[r.Key()]; !seen {
				rows = append(rows, r)
			}
			byKey[r.Key()] = r
		}
	}
	for i := range rows {
		rows[i] = byKey[rows[i].Key()]
	}
	jobs, err := p.Jobs(prof, rows)
	if err != nil {
		return m, err
	}
	m.jobs = len(jobs)
	for _, j := range jobs {
		r, ok := byKey[j.Key()]
		if !ok || r.Error != "" || !(r.Seconds > 0) {
			continue
		}
		m.n, m.sum, m.max = m.n+1, m.sum+r.Seconds, math.Max(m.max, r.Seconds)
		m.codes[r.Code]++
	}
	return m, nil
}

// among reports whether file is one of files, compared as absolute paths.
func among(file string, files []string) bool {
	abs := func(f string) string {
		if a, err := filepath.Abs(f); err == nil {
			return a
		}
		return filepath.Clean(f)
	}
	return slices.ContainsFunc(files, func(f string) bool { return abs(f) == abs(file) })
}

// ListedFits counts the fits of a listing made without rows: a group of
// selection fits (Tag "select") adds its final fit once they are done, so
// such a listing lacks one fit per group that selects.
func ListedFits(first []grid.Job, group func(grid.Job) string) int {
	sel := map[string]bool{}
	for _, j := range first {
		if j.Tag == "select" {
			sel[group(j)] = true
		}
	}
	return len(first) + len(sel)
}
