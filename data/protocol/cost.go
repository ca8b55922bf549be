package protocol

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"github.com/probably-submodular/crf/data/grid"
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

// Coster is a protocol that states its own costs per profile, used when no
// results file measures them.
type Coster interface {
	Cost(p Profile) Cost
}

// knownCosts are measured costs of the protocols' profiles, for sizing a
// run before any of its rows exist. Each says where its numbers come from.
var knownCosts = map[string]map[Profile]Cost{
	"cows": {
		// Seconds: notebook 01's full run (its committed output, cell
		// "convergence"): 700 selection and 140 final fits, 32 723 s of job
		// time. The longest fit is not recorded: 610 s is the costliest
		// stage's mean fit (C3, avg loss, final: 4 559 s / 10) times its
		// max/mean iterations (538/404).
		// Memory (2026-11-25, 2-core Xeon, /usr/bin/time -v): shard 1/140
		// (C0, hamming, fold 0: 5 selection fits and the final one, one
		// worker) peaked at 772 MB, building the 111 problems (-prepare) at
		// 471 MB in 9.4 s. C3's working set added 25 MB to a fit at the
		// quick profile's scale (66 MB against C0's 41 MB); 5.5 times the
		// superpixels and twice the margin give the 300 MB added here.
		Full: {Fits: 840, FitSeconds: 32723.0 / 840, MaxFitSeconds: 610,
			MemoryMB: 772 + 300, FitMemoryMB: (772 - 471) + 300, BuildSeconds: 30,
			Source: "notebook 01's full run (840 fits, 32723 s; longest fit estimated from its iterations); memory of shard 1/140 measured"},
		// The quick profile (2026-11-25, same machine, loaded): 28 fits,
		// 0.61 s each on average, 1.9 s the longest; a C3 group's run
		// peaked at 66 MB, the whole grid on two workers at 84 MB.
		Quick: {Fits: 28, FitSeconds: 0.61, MaxFitSeconds: 1.9, MemoryMB: 66, FitMemoryMB: 18, BuildSeconds: 10,
			Source: "a measured quick run (28 fits)"},
	},
	"retina": {
		// Seconds: notebook 03's full run (committed output): 1 400
		// selection and 280 final fits, 31 464 s of job time; the longest,
		// estimated as for the cows: C3's selection fits, 8 890 s / 200
		// times 648/336 iterations.
		// Memory (2026-11-25, as the cows): shard 1/280 (C0, fold 0) peaked
		// at 257 MB with the 50 horses built in 125 MB; 300 MB more for
		// C3's working set, as for the cows.
		Full: {Fits: 1680, FitSeconds: 31464.0 / 1680, MaxFitSeconds: 86,
			MemoryMB: 257 + 300, FitMemoryMB: (257 - 125) + 300, BuildSeconds: 30,
			Source: "notebook 03's full run (1680 fits, 31464 s; longest fit estimated from its iterations); memory of shard 1/280 measured"},
	},
	"mito": {
		// Seconds: notebook 04's full run (committed output): 88 selection
		// and 8 final fits, 10 062 s of job time; the longest, estimated as
		// for the cows: QPBO's selection fits, 2 409 s / 11 times 1985/596
		// iterations.
		// Memory: not measured for the protocol. Building the whole
		// training volume took 4.36 GB and 312 s (data/BENCHMARKS.md); the
		// protocol builds both volumes, so twice that and a fit's share
		// are assumed.
		Full: {Fits: 96, FitSeconds: 10062.0 / 96, MaxFitSeconds: 730,
			MemoryMB: 10240, FitMemoryMB: 2048, BuildSeconds: 700,
			Source: "notebook 04's full run (96 fits, 10062 s; longest fit estimated from its iterations); memory estimated from data/BENCHMARKS.md's build of one volume"},
	},
}

// fallbackCost is assumed for a protocol and profile that nothing measured:
// generous, so that a first cluster run is not killed at its time limit.
var fallbackCost = Cost{FitSeconds: 600, MaxFitSeconds: 3600, MemoryMB: 8192, FitMemoryMB: 2048, BuildSeconds: 3600,
	Source: "nothing measured: a conservative default (10 min per fit, 1 h the longest, 8 GiB, 1 h to build)"}

// EstimateCost returns the costs of running profile prof of p. Fits and
// Groups come from the protocol's jobs. The prior costs are the protocol's
// Coster, else the known costs, else a conservative default. The seconds
// are measured from the successful rows of the profile's jobs in the
// results files (none given: DefaultResults; missing files are skipped),
// when they hold any: the mean always, the longest fit only when the rows
// cover every fit (a partial run's longest fit may be among those still
// missing, so the prior's counts too). Memory is not recorded in rows and
// always comes from the prior.
func EstimateCost(p Protocol, prof Profile, results ...string) (Cost, error) {
	if len(results) == 0 {
		results = []string{DefaultResults(p.Name(), prof)}
	}
	first, err := p.Jobs(prof, nil)
	if err != nil {
		return Cost{}, err
	}
	c := fallbackCost
	if k, ok := knownCosts[p.Name()][prof]; ok {
		c = k
	}
	if cs, ok := p.(Coster); ok {
		c = cs.Cost(prof)
	}
	c.Groups = len(groupOrder(first, p.Group))
	listed := listedFits(first, p.Group)
	if c.Fits == 0 {
		c.Fits = listed
	}

	// The newest row of each fit over all files.
	byKey := map[string]grid.Result{}
	var rows []grid.Result
	var read []string
	for _, f := range results {
		rs, err := grid.ReadResults(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return Cost{}, fmt.Errorf("costs of %s %s: %w", p.Name(), prof, err)
		}
		read = append(read, f)
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
		return Cost{}, err
	}
	n, sum, max := 0, 0.0, 0.0
	for _, j := range jobs {
		r, ok := byKey[j.Key()]
		if !ok || r.Error != "" || !(r.Seconds > 0) {
			continue
		}
		n, sum, max = n+1, sum+r.Seconds, math.Max(max, r.Seconds)
	}
	if n == 0 {
		return c, nil
	}
	where := strings.Join(read, ", ")
	c.FitSeconds = sum / float64(n)
	if n == len(jobs) && n >= listed {
		c.Fits, c.MaxFitSeconds = n, max // a complete run lists every fit
		c.Source = fmt.Sprintf("seconds measured on all %d fits in %s; memory: %s", n, where, c.Source)
	} else {
		c.MaxFitSeconds = math.Max(max, c.MaxFitSeconds)
		c.Source = fmt.Sprintf("mean seconds measured on %d of %d fits in %s; longest fit and memory: %s", n, c.Fits, where, c.Source)
	}
	return c, nil
}

// listedFits counts the fits of a listing made without rows: a group of
// selection fits (Tag "select") adds its final fit once they are done, so
// such a listing lacks one fit per group that selects.
func listedFits(first []grid.Job, group func(grid.Job) string) int {
	sel := map[string]bool{}
	for _, j := range first {
		if j.Tag == "select" {
			sel[group(j)] = true
		}
	}
	return len(first) + len(sel)
}
