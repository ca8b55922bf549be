package main

// The replay mode of psub protocol: a protocol's grid scheduled again on
// 1, 2, 4, ... workers with the fit times its results file recorded, on a
// simulated clock (grid.Replay), to see how the grid would use more cores
// than the machine that ran it has.

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/probably-submodular/crf/data/grid"
	"github.com/probably-submodular/crf/data/protocol"
)

// replayReport is what -replay prints as JSON.
type replayReport struct {
	Protocol string  `json:"protocol"`
	Profile  string  `json:"profile"`
	Results  string  `json:"results"`
	Fits     int     `json:"fits"`
	Stages   []int   `json:"stages"`      // fits per stage, as the protocol lists them
	Work     float64 `json:"fit_seconds"` // the fits' recorded seconds summed
	// Critical is the costliest chain of fits that wait for one another:
	// within the stages (Staged), and were a final fit to wait only for
	// its own group's selection (Pipelined).
	Critical struct {
		Staged    float64 `json:"staged"`
		Pipelined float64 `json:"pipelined"`
	} `json:"critical_seconds"`
	Rows []replayRow `json:"rows"`
	Note string      `json:"note"`
}

// replayRow is the grid replayed on Workers workers in each order.
type replayRow struct {
	Workers int `json:"workers"`
	// Makespans in seconds, stage after stage as the protocol runs:
	// Listed starts ready fits in the order listed (psub before
	// grid.Options.Cost); Fresh is a run without earlier rows (longest
	// chain first, costs estimated from the fits finished so far, those of
	// earlier stages included); Chain is a run whose results file holds
	// these rows (costs: their seconds).
	// Pipelined is Chain with no wait between stages beyond each final
	// fit's own group.
	Listed    float64 `json:"listed"`
	Fresh     float64 `json:"fresh"`
	Chain     float64 `json:"chain"`
	Pipelined float64 `json:"pipelined"`
	// Bound is the least makespan of the staged grid on Workers: per
	// stage the larger of its work per worker and its critical chain.
	Bound float64 `json:"bound"`
	// Speedup is Listed on 2 workers over Listed here; FreshSpeedup and
	// ChainSpeedup the same of Fresh and Chain.
	Speedup      float64 `json:"speedup_vs_2"`
	FreshSpeedup float64 `json:"fresh_speedup_vs_2"`
	ChainSpeedup float64 `json:"chain_speedup_vs_2"`
}

// replayWorkers are the worker counts of -replay N: 1, 2, 4, ... up to N,
// and N.
func replayWorkers(n int) []int {
	var ws []int
	for w := 1; w < n; w *= 2 {
		ws = append(ws, w)
	}
	return append(ws, n)
}

// runReplay replays protocol p's grid of profile prof on 1, 2, 4, ..., max
// workers with the seconds of the rows in results.
func runReplay(p protocol.Protocol, prof protocol.Profile, results string, maxWorkers int, stdout, stderr io.Writer) error {
	rows, err := grid.ReadResults(results)
	if err != nil {
		return fmt.Errorf("-replay needs the rows of a complete run: %w", err)
	}
	after := warmAfter(p, prof)
	stages, err := replayStages(p, prof, rows)
	if err != nil {
		return err
	}
	rep := replayReport{Protocol: p.Name(), Profile: string(prof), Results: results,
		Note: "makespans in seconds of the recorded fit times, scheduled by grid.Replay; the problems are built before the grid (in parallel) and are not included"}
	byKey := map[string]grid.Result{}
	for _, r := range rows {
		byKey[r.Key()] = r
	}
	var all []grid.Job
	var took []float64
	for _, st := range stages {
		rep.Stages = append(rep.Stages, len(st))
		for _, j := range st {
			all = append(all, j)
			took = append(took, byKey[j.Key()].Seconds)
		}
	}
	rep.Fits = len(all)
	none := func(grid.Job) float64 { return 0 }
	pipe := pipelinedAfter(p, prof, after)
	for _, w := range replayWorkers(maxWorkers) {
		row := replayRow{Workers: w}
		var before []grid.Result // the rows of the stages before: a fresh run's results file
		for _, st := range stages {
			t := timesOf(st, byKey)
			listed, err := grid.Replay(st, t, nil, grid.Options{Workers: w, After: after, Cost: none})
			if err != nil {
				return err
			}
			fresh, err := grid.Replay(st, t, before, grid.Options{Workers: w, After: after})
			if err != nil {
				return err
			}
			rerun, err := grid.Replay(st, t, rows, grid.Options{Workers: w, After: after})
			if err != nil {
				return err
			}
			row.Listed += listed.Makespan
			row.Fresh += fresh.Makespan
			row.Chain += rerun.Makespan
			row.Bound += rerun.Bound()
			if w == 1 {
				rep.Work += rerun.Work
				rep.Critical.Staged += rerun.Critical
			}
			for _, j := range st {
				before = append(before, byKey[j.Key()])
			}
		}
		pipelined, err := grid.Replay(all, took, rows, grid.Options{Workers: w, After: pipe})
		if err != nil {
			return err
		}
		row.Pipelined = pipelined.Makespan
		rep.Critical.Pipelined = pipelined.Critical
		rep.Rows = append(rep.Rows, row)
	}
	var two replayRow
	for _, r := range rep.Rows {
		if r.Workers == 2 {
			two = r
		}
	}
	for i, r := range rep.Rows {
		if two.Workers == 2 && r.Listed > 0 && r.Fresh > 0 && r.Chain > 0 {
			rep.Rows[i].Speedup = two.Listed / r.Listed
			rep.Rows[i].FreshSpeedup = two.Fresh / r.Fresh
			rep.Rows[i].ChainSpeedup = two.Chain / r.Chain
		}
	}
	writeReplayTable(stderr, rep)
	return writeJSON(stdout, rep)
}

// replayStages lists p's jobs stage by stage as the protocol's run does
// (a stage's jobs are those listed from the rows of the stages before),
// and checks that rows has a successful row for each.
func replayStages(p protocol.Protocol, prof protocol.Profile, rows []grid.Result) ([][]grid.Job, error) {
	byKey := map[string]grid.Result{}
	for _, r := range rows {
		byKey[r.Key()] = r
	}
	var stages [][]grid.Job
	var known []grid.Result
	seen := map[string]bool{}
	for {
		jobs, err := p.Jobs(prof, known)
		if err != nil {
			return nil, err
		}
		var fresh []grid.Job
		var missing []string
		for _, j := range jobs {
			if seen[j.Key()] {
				continue
			}
			seen[j.Key()] = true
			fresh = append(fresh, j)
			r, ok := byKey[j.Key()]
			if !ok || r.Error != "" {
				missing = append(missing, j.Key())
				continue
			}
			known = append(known, r)
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("-replay: %d of the %d fits of stage %d have no successful row (first: %s); replay a complete run's results", len(missing), len(fresh), len(stages)+1, missing[0])
		}
		if len(fresh) == 0 {
			break
		}
		stages = append(stages, fresh)
	}
	if len(stages) == 0 {
		return nil, errors.New("-replay: the protocol lists no fits")
	}
	return stages, nil
}

func timesOf(jobs []grid.Job, byKey map[string]grid.Result) []float64 {
	t := make([]float64, len(jobs))
	for i, j := range jobs {
		t[i] = byKey[j.Key()].Seconds
	}
	return t
}

// segmentationSettings are p's settings when it is a segmentation
// protocol (cows, retina, mito), whose fits warm-start along C.
func segmentationSettings(p protocol.Protocol, prof protocol.Profile) (protocol.SegmentationSettings, bool) {
	switch s := p.(type) {
	case interface {
		Settings(protocol.Profile) protocol.SegmentationSettings
	}:
		return s.Settings(prof), true
	case interface {
		Settings(protocol.Profile) protocol.MitoSettings
	}:
		return s.Settings(prof).SegmentationSettings, true
	}
	return protocol.SegmentationSettings{}, false
}

// warmAfter is the grid.Options.After of p's run: a segmentation
// protocol with a grid of C warm-starts along it (protocol.WarmStarts),
// the others' fits wait for none.
func warmAfter(p protocol.Protocol, prof protocol.Profile) func(grid.Job) (grid.Job, bool) {
	s, ok := segmentationSettings(p, prof)
	if !ok || len(s.Cs) < 2 || s.Cold {
		return nil
	}
	w := &protocol.WarmStarts{Cs: slices.Sorted(slices.Values(s.Cs))}
	return w.After
}

// pipelinedAfter is after with the stages joined: a final fit, which is
// listed once its group's selection has ended, waits for the selection
// fit at the largest C instead (the end of the group's chain along C).
func pipelinedAfter(p protocol.Protocol, prof protocol.Profile, after func(grid.Job) (grid.Job, bool)) func(grid.Job) (grid.Job, bool) {
	s, ok := segmentationSettings(p, prof)
	if !ok || after == nil {
		return after
	}
	last := slices.Max(s.Cs)
	return func(j grid.Job) (grid.Job, bool) {
		if j.Tag == "final" {
			j.Tag, j.C = "select", last
			return j, true
		}
		return after(j)
	}
}

func writeReplayTable(w io.Writer, rep replayReport) {
	fmt.Fprintf(w, "%s %s: %d fits in %v stages, %.0f s of fits (%s); longest chain %.1f s staged, %.1f s pipelined\n",
		rep.Protocol, rep.Profile, rep.Fits, rep.Stages, rep.Work, rep.Results, rep.Critical.Staged, rep.Critical.Pipelined)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workers\tlisted order s\t×\tfresh run s\t×\trerun s\t×\tpipelined s\tbound s\t")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%d\t%.0f\t%.2f\t%.0f\t%.2f\t%.0f\t%.2f\t%.0f\t%.0f\t\n", r.Workers, r.Listed, r.Speedup, r.Fresh, r.FreshSpeedup, r.Chain, r.ChainSpeedup, r.Pipelined, r.Bound)
	}
	tw.Flush()
	fmt.Fprint(w, `× is the speed-up from 2 workers. listed order: ready fits start in the order listed (psub before
longest-chain-first). fresh run: the longest chain of waits first, fit costs estimated from the fits
finished so far (a run without earlier rows). rerun: the same with these rows' seconds as costs (a
run whose results file holds them). pipelined: rerun with final fits waiting only for their own
group, not for the whole selection stage. bound: per stage, the larger of its seconds per worker and
its longest chain. Building the problems (in parallel, before the grid) is not included.
`)
}
