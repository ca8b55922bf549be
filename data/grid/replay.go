package grid

import (
	"container/heap"
	"fmt"
	"math"
	"runtime"
)

// Schedule is a grid replayed on a number of workers (Replay): when and
// where each job ran, and what the whole took.
type Schedule struct {
	Workers int
	// Makespan is the time from the first start to the last end.
	Makespan float64
	// Work is the jobs' times summed: the makespan on one worker.
	Work float64
	// Critical is the costliest chain of waits (Options.After): no number
	// of workers finishes sooner.
	Critical float64
	// Start, End and Worker are per job, in the order of the replayed
	// jobs; workers are numbered from 0.
	Start, End []float64
	Worker     []int
}

// Bound is the least makespan any order could reach on s.Workers: the
// larger of Work/Workers and Critical.
func (s Schedule) Bound() float64 { return max(s.Work/float64(s.Workers), s.Critical) }

// Idle is the fraction of the workers' time that no job used.
func (s Schedule) Idle() float64 {
	if s.Makespan == 0 {
		return 0
	}
	return 1 - s.Work/(float64(s.Workers)*s.Makespan)
}

// Replay runs Run's scheduler on a simulated clock instead of running the
// jobs: jobs[i] takes took[i] (seconds, say, from the rows of a run), on
// opt.Workers workers, waiting as opt.After says and ordered as Run
// orders them: by opt.Cost, or when it is nil by costs estimated from the
// rows earlier (what Run would find in its results file) and from the
// jobs finished so far (on more than one worker). Other options are ignored; nothing is run or
// written. A worker takes the next job the moment it is free, and jobs
// that end at the same time release their waiting jobs before any starts,
// so the replay is deterministic (a real run differs by its timing noise).
// It fails as Run does on duplicate jobs and cyclic waits, and on times
// that are not finite non-negative numbers.
func Replay(jobs []Job, took []float64, earlier []Result, opt Options) (Schedule, error) {
	if len(took) != len(jobs) {
		return Schedule{}, fmt.Errorf("grid: replay of %d jobs given %d times", len(jobs), len(took))
	}
	index := make(map[string]int, len(jobs))
	for i, j := range jobs {
		if _, dup := index[j.Key()]; dup {
			return Schedule{}, fmt.Errorf("grid: job %s listed twice", j.Key())
		}
		index[j.Key()] = i
		if !(took[i] >= 0) || math.IsInf(took[i], 1) {
			return Schedule{}, fmt.Errorf("grid: replay: job %s takes %v", j.Key(), took[i])
		}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	waitFor, err := dependencies(jobs, index, make([]bool, len(jobs)), opt.After)
	if err != nil {
		return Schedule{}, err
	}
	s := Schedule{Workers: workers, Start: make([]float64, len(jobs)), End: make([]float64, len(jobs)), Worker: make([]int, len(jobs))}
	for i, c := range chainCosts(waitFor, func(i int) float64 { return took[i] }) {
		s.Work += took[i]
		s.Critical = max(s.Critical, c)
	}
	q := newQueue(make([]bool, len(jobs)), waitFor, priorities(jobs, waitFor, opt.Cost))
	if opt.Cost == nil && workers > 1 {
		q.learning(jobs, waitFor, earlier, func(i int) Result { return Result{Job: jobs[i], Seconds: took[i]} })
	}
	idle := make([]int, workers) // free workers, lowest number first
	for w := range idle {
		idle[w] = w
	}
	var running endHeap
	now := 0.0
	for q.left > 0 {
		for len(idle) > 0 {
			i, ok := q.peek()
			if !ok {
				break
			}
			q.take()
			s.Start[i], s.End[i], s.Worker[i] = now, now+took[i], idle[0]
			idle = idle[1:]
			heap.Push(&running, ending{s.End[i], i})
		}
		if running.Len() == 0 {
			// Unreachable: dependencies refuses cycles.
			return s, fmt.Errorf("grid: replay: %d jobs wait and none runs", q.left)
		}
		now = running[0].at
		for running.Len() > 0 && running[0].at == now {
			e := heap.Pop(&running).(ending)
			q.finish(e.job)
			idle = insertSorted(idle, s.Worker[e.job])
		}
	}
	s.Makespan = now
	return s, nil
}

// ending is a running job and when it ends.
type ending struct {
	at  float64
	job int
}

// endHeap orders running jobs by their end, then by index.
type endHeap []ending

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(a, b int) bool {
	if h[a].at != h[b].at {
		return h[a].at < h[b].at
	}
	return h[a].job < h[b].job
}
func (h endHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(ending)) }
func (h *endHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func insertSorted(xs []int, x int) []int {
	k := 0
	for k < len(xs) && xs[k] < x {
		k++
	}
	xs = append(xs, 0)
	copy(xs[k+1:], xs[k:])
	xs[k] = x
	return xs
}
