package grid

import (
	"container/heap"
	"fmt"
	"math"
	"runtime"
)

// Stage is one stage of a grid replayed by ReplayUnion: its jobs take
// Took (as Replay's took) and start only once every job of the stage
// before, in the same grid, has ended, as when a protocol lists its final
// fits from the rows of its selection. Earlier are the rows a run of the
// stage finds in its results file (Replay's earlier).
type Stage struct {
	Jobs    []Job
	Took    []float64
	Earlier []Result
}

// Staged is one grid run stage after stage: one Run per stage with the
// options Opt (of which only After and Cost count, as in Replay).
type Staged struct {
	Stages []Stage
	Opt    Options
}

// Union is several staged grids replayed on one pool of workers.
type Union struct {
	// Schedule is of every job, grid after grid and stage after stage in
	// the order given; its Critical is the costliest chain of one grid,
	// stages joined end to end (a stage's longest chain after the one
	// before), and its Bound() the larger of that and Work per worker.
	Schedule
	// Ends are per grid: when its last job ended (0 for a grid without
	// jobs).
	Ends []float64
}

// ReplayUnion replays the grids as if their runs shared workers (0:
// GOMAXPROCS) on a simulated clock: each grid runs its stages one after
// another, as the runs of its stages would, and a free worker takes, among
// the jobs ready in every grid's current stage, the one Replay would rank
// first (longest chain first by Opt.Cost, or by costs estimated from the
// stage's Earlier rows and its jobs finished so far); ties go to the grid
// given first. The grids are kept apart: two grids may list the same job
// (by Key) without either waiting for the other, and a job's After is
// looked up in its own stage only, as in a run of that stage. A single
// grid of one stage is scheduled exactly as Replay schedules it. It fails
// as Replay does, per stage, and on a job listed twice in one grid.
//
// Sharing workers is usually, not always, faster than running the grids
// one after another: a list schedule has its anomalies (a random search of
// 20 000 small pairs of grids found 5 where it was slower), and a stage's
// priorities do not see the stages after it.
func ReplayUnion(grids []Staged, workers int) (Union, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// run is one stage of one grid, with the scheduler's queue for it.
	type run struct {
		grid, base int // the grid, the first job's index in the union
		took       []float64
		q          *queue
	}
	var runs []run
	first := make([]int, len(grids)+1) // grid g's runs are runs[first[g]:first[g+1]]
	u := Union{Schedule: Schedule{Workers: workers}, Ends: make([]float64, len(grids))}
	n := 0
	for g, sg := range grids {
		first[g] = len(runs)
		seen := map[string]int{}
		chain := 0.0
		for k, st := range sg.Stages {
			if len(st.Took) != len(st.Jobs) {
				return Union{}, fmt.Errorf("grid: replay of grid %d, stage %d: %d jobs given %d times", g+1, k+1, len(st.Jobs), len(st.Took))
			}
			index := make(map[string]int, len(st.Jobs))
			for i, j := range st.Jobs {
				if s, dup := seen[j.Key()]; dup {
					return Union{}, fmt.Errorf("grid: replay of grid %d: job %s listed twice (stages %d and %d)", g+1, j.Key(), s+1, k+1)
				}
				seen[j.Key()] = k
				index[j.Key()] = i
				if !(st.Took[i] >= 0) || math.IsInf(st.Took[i], 1) {
					return Union{}, fmt.Errorf("grid: replay of grid %d: job %s takes %v", g+1, j.Key(), st.Took[i])
				}
				u.Work += st.Took[i]
			}
			waitFor, err := dependencies(st.Jobs, index, make([]bool, len(st.Jobs)), sg.Opt.After)
			if err != nil {
				return Union{}, fmt.Errorf("grid %d, stage %d: %w", g+1, k+1, err)
			}
			longest := 0.0
			for _, c := range chainCosts(waitFor, func(i int) float64 { return st.Took[i] }) {
				longest = max(longest, c)
			}
			chain += longest
			q := newQueue(make([]bool, len(st.Jobs)), waitFor, priorities(st.Jobs, waitFor, sg.Opt.Cost))
			if sg.Opt.Cost == nil && workers > 1 {
				took := st.Took
				jobs := st.Jobs
				q.learning(jobs, waitFor, st.Earlier, func(i int) Result { return Result{Job: jobs[i], Seconds: took[i]} })
			}
			runs = append(runs, run{grid: g, base: n, took: st.Took, q: q})
			n += len(st.Jobs)
		}
		u.Critical = max(u.Critical, chain)
	}
	first[len(grids)] = len(runs)
	u.Start, u.End, u.Worker = make([]float64, n), make([]float64, n), make([]int, n)
	owner := make([]int, n) // job → its run
	for r, x := range runs {
		for i := range x.took {
			owner[x.base+i] = r
		}
	}

	// cur[g] is grid g's current run: the first with jobs left
	// (first[g+1] when the grid has ended).
	cur := make([]int, len(grids))
	left := 0
	advance := func(g int, now float64) {
		for cur[g] < first[g+1] && runs[cur[g]].q.left == 0 {
			cur[g]++
		}
		if cur[g] == first[g+1] {
			u.Ends[g] = max(u.Ends[g], now)
		}
	}
	for g := range grids {
		cur[g] = first[g]
		for r := first[g]; r < first[g+1]; r++ {
			left += runs[r].q.left
		}
		advance(g, 0)
	}
	idle := make([]int, workers) // free workers, lowest number first
	for w := range idle {
		idle[w] = w
	}
	var running endHeap
	now := 0.0
	for left > 0 {
		for len(idle) > 0 {
			best, bi := -1, -1
			for g := range grids {
				if cur[g] == first[g+1] {
					continue
				}
				q := runs[cur[g]].q
				i, ok := q.peek()
				if ok && (best < 0 || q.ready.prio[i] > runs[best].q.ready.prio[bi]) {
					best, bi = cur[g], i
				}
			}
			if best < 0 {
				break
			}
			x := runs[best]
			x.q.take()
			i := x.base + bi
			u.Start[i], u.End[i], u.Worker[i] = now, now+x.took[bi], idle[0]
			idle = idle[1:]
			heap.Push(&running, ending{u.End[i], i})
		}
		if running.Len() == 0 {
			// Unreachable: dependencies refuses cycles.
			return u, fmt.Errorf("grid: replay: %d jobs wait and none runs", left)
		}
		now = running[0].at
		for running.Len() > 0 && running[0].at == now {
			e := heap.Pop(&running).(ending)
			x := runs[owner[e.job]]
			x.q.finish(e.job - x.base)
			left--
			idle = insertSorted(idle, u.Worker[e.job])
		}
		for g := range grids {
			if cur[g] < first[g+1] {
				advance(g, now)
			}
		}
	}
	u.Makespan = now
	return u, nil
}
