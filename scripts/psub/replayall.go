package main

// The replay of every protocol at once: psub protocol all -profile P
// -replay N schedules the union of the protocols' grids on one pool of
// 1, 2, 4, ... N workers (grid.ReplayUnion) with the fit times their
// results files recorded, beside the protocols run one after another (as
// scripts/reproduce runs the notebooks), to see what sharing the workers
// would gain.

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/probably-submodular/crf/data/grid"
	"github.com/probably-submodular/crf/data/protocol"
)

// unionReport is what "psub protocol all -replay N" prints as JSON.
type unionReport struct {
	Profile   string          `json:"profile"`
	Protocols []unionProtocol `json:"protocols"`
	Fits      int             `json:"fits"`
	Work      float64         `json:"fit_seconds"`
	// Critical is the costliest chain of any one protocol, its stages
	// end to end.
	Critical float64    `json:"critical_seconds"`
	Rows     []unionRow `json:"rows"`
	Note     string     `json:"note"`
}

// unionProtocol is one protocol's grid as replayed.
type unionProtocol struct {
	Protocol string  `json:"protocol"`
	Results  string  `json:"results"`
	Fits     int     `json:"fits"`
	Stages   []int   `json:"stages"`
	Work     float64 `json:"fit_seconds"`
	Critical float64 `json:"critical_seconds"` // stages end to end
}

// unionRow is every grid replayed on Workers workers.
type unionRow struct {
	Workers int `json:"workers"`
	// Separate is the protocols one after another, each as -replay's
	// rerun column (costs: the rows' seconds), its makespans summed;
	// Together is their union on one pool of Workers. SeparateFresh and
	// TogetherFresh are the same with costs learned as in a run without
	// earlier rows (-replay's fresh column); Pipelined is Together with
	// -replay's pipelined waits (no wait between stages beyond each final
	// fit's own group).
	Separate      float64 `json:"separate"`
	Together      float64 `json:"together"`
	SeparateFresh float64 `json:"separate_fresh"`
	TogetherFresh float64 `json:"together_fresh"`
	Pipelined     float64 `json:"together_pipelined"`
	// Bound is the least makespan of the staged union: the larger of
	// the work per worker and, for each protocol, its stages' bounds
	// summed (a stage's bound: the larger of its work per worker and its
	// longest chain).
	Bound float64 `json:"bound"`
	// Alone is each protocol's rerun makespan on its own; Ends when each
	// ends in Together.
	Alone map[string]float64 `json:"alone"`
	Ends  map[string]float64 `json:"together_ends"`
	// SeparateSpeedup and TogetherSpeedup are on 2 workers over here.
	SeparateSpeedup float64 `json:"separate_speedup_vs_2"`
	TogetherSpeedup float64 `json:"together_speedup_vs_2"`
}

// unionGrid is one protocol's grid in the three forms replayed.
type unionGrid struct {
	rerun, fresh, pipelined grid.Staged
	// stageWork and stageCritical are per stage.
	stageWork, stageCritical []float64
}

// loadUnionGrid reads protocol p's rows from results and lists its stages
// as runReplay does.
func loadUnionGrid(p protocol.Protocol, prof protocol.Profile, results string) (unionGrid, unionProtocol, error) {
	info := unionProtocol{Protocol: p.Name(), Results: results}
	rows, err := grid.ReadResults(results)
	if err != nil {
		return unionGrid{}, info, fmt.Errorf("%s: -replay needs the rows of a complete run: %w", p.Name(), err)
	}
	stages, err := replayStages(p, prof, rows)
	if err != nil {
		return unionGrid{}, info, fmt.Errorf("%s: %w", p.Name(), err)
	}
	byKey := map[string]grid.Result{}
	for _, r := range rows {
		byKey[r.Key()] = r
	}
	after := warmAfter(p, prof)
	u := unionGrid{
		rerun:     grid.Staged{Opt: grid.Options{After: after}},
		fresh:     grid.Staged{Opt: grid.Options{After: after}},
		pipelined: grid.Staged{Opt: grid.Options{After: pipelinedAfter(p, prof, after)}},
	}
	all := grid.Stage{Earlier: rows}
	var before []grid.Result
	for _, st := range stages {
		t := timesOf(st, byKey)
		u.rerun.Stages = append(u.rerun.Stages, grid.Stage{Jobs: st, Took: t, Earlier: rows})
		u.fresh.Stages = append(u.fresh.Stages, grid.Stage{Jobs: st, Took: t, Earlier: before})
		all.Jobs = append(all.Jobs, st...)
		all.Took = append(all.Took, t...)
		one, err := grid.Replay(st, t, nil, grid.Options{Workers: 1, After: after})
		if err != nil {
			return unionGrid{}, info, fmt.Errorf("%s: %w", p.Name(), err)
		}
		u.stageWork = append(u.stageWork, one.Work)
		u.stageCritical = append(u.stageCritical, one.Critical)
		info.Stages = append(info.Stages, len(st))
		info.Fits += len(st)
		info.Work += one.Work
		info.Critical += one.Critical
		for _, j := range st {
			before = append(before, byKey[j.Key()])
		}
	}
	u.pipelined.Stages = []grid.Stage{all}
	return u, info, nil
}

// runReplayAll replays every protocol's grid of profile prof, each from
// its default results file, together and one after another on 1, 2, 4,
// ..., maxWorkers workers.
func runReplayAll(prof protocol.Profile, maxWorkers int, stdout, stderr io.Writer) error {
	rep := unionReport{Profile: string(prof),
		Note: "makespans in seconds of the recorded fit times, scheduled by grid.ReplayUnion; building the problems (per protocol, before its grid) is not included; efficiency's fits, which a run takes one at a time on every core, count as one-core fits"}
	var grids []unionGrid
	for _, p := range protocol.All() {
		g, info, err := loadUnionGrid(p, prof, protocol.DefaultResults(p.Name(), prof))
		if err != nil {
			return err
		}
		grids = append(grids, g)
		rep.Protocols = append(rep.Protocols, info)
		rep.Fits += info.Fits
		rep.Work += info.Work
		rep.Critical = max(rep.Critical, info.Critical)
	}
	pick := func(f func(unionGrid) grid.Staged) []grid.Staged {
		var out []grid.Staged
		for _, g := range grids {
			out = append(out, f(g))
		}
		return out
	}
	rerun := pick(func(g unionGrid) grid.Staged { return g.rerun })
	fresh := pick(func(g unionGrid) grid.Staged { return g.fresh })
	pipelined := pick(func(g unionGrid) grid.Staged { return g.pipelined })
	for _, w := range replayWorkers(maxWorkers) {
		row := unionRow{Workers: w, Alone: map[string]float64{}, Ends: map[string]float64{}, Bound: rep.Work / float64(w)}
		for i, g := range grids {
			name := rep.Protocols[i].Protocol
			alone, err := grid.ReplayUnion([]grid.Staged{g.rerun}, w)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			aloneFresh, err := grid.ReplayUnion([]grid.Staged{g.fresh}, w)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			row.Alone[name] = alone.Makespan
			row.Separate += alone.Makespan
			row.SeparateFresh += aloneFresh.Makespan
			bound := 0.0
			for k := range g.stageWork {
				bound += max(g.stageWork[k]/float64(w), g.stageCritical[k])
			}
			row.Bound = max(row.Bound, bound)
		}
		together, err := grid.ReplayUnion(rerun, w)
		if err != nil {
			return err
		}
		togetherFresh, err := grid.ReplayUnion(fresh, w)
		if err != nil {
			return err
		}
		pipe, err := grid.ReplayUnion(pipelined, w)
		if err != nil {
			return err
		}
		row.Together, row.TogetherFresh, row.Pipelined = together.Makespan, togetherFresh.Makespan, pipe.Makespan
		for i, end := range together.Ends {
			row.Ends[rep.Protocols[i].Protocol] = end
		}
		rep.Rows = append(rep.Rows, row)
	}
	for _, two := range rep.Rows {
		if two.Workers != 2 {
			continue
		}
		for i, r := range rep.Rows {
			if r.Separate > 0 && r.Together > 0 {
				rep.Rows[i].SeparateSpeedup = two.Separate / r.Separate
				rep.Rows[i].TogetherSpeedup = two.Together / r.Together
			}
		}
	}
	writeUnionTable(stderr, rep)
	return writeJSON(stdout, rep)
}

func writeUnionTable(w io.Writer, rep unionReport) {
	fmt.Fprintf(w, "all protocols, %s profile: %d fits, %.0f s of fits; longest chain of one protocol %.1f s (stages end to end)\n",
		rep.Profile, rep.Fits, rep.Work, rep.Critical)
	for _, p := range rep.Protocols {
		fmt.Fprintf(w, "  %-18s %5d fits in %v stages, %7.0f s, chain %6.1f s (%s)\n", p.Protocol, p.Fits, p.Stages, p.Work, p.Critical, p.Results)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workers\tseparate s\t×\ttogether s\t×\tseparate/together\tfresh separate s\tfresh together s\tpipelined together s\tbound s\t")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%d\t%.0f\t%.2f\t%.0f\t%.2f\t%.2f\t%.0f\t%.0f\t%.0f\t%.0f\t\n", r.Workers, r.Separate, r.SeparateSpeedup, r.Together, r.TogetherSpeedup,
			r.Separate/max(r.Together, 1e-300), r.SeparateFresh, r.TogetherFresh, r.Pipelined, r.Bound)
	}
	tw.Flush()
	fmt.Fprint(w, `× is the speed-up from 2 workers. separate: the protocols one after another (as scripts/reproduce
runs the notebooks), each as -replay's rerun column (longest chain first, costs: these rows' seconds),
the makespans summed. together: the union of their grids on one pool of workers, each protocol still
running its stages in order. fresh: the same with costs learned as in a run without earlier rows.
pipelined together: together with final fits waiting only for their own group. bound: the larger of
all the work per worker and any one protocol's stages' bounds summed. Building the problems is not
included. efficiency's fits run one at a time, each on every core (psub protocol all runs it last,
alone); here, as in -replay, they count as one-core fits of their recorded times.
`)
}
