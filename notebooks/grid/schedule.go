package grid

import "slices"

// queue is Run's scheduler: it holds the jobs not yet started, those whose
// wait (Options.After) is over in ready, and says which starts next.
type queue struct {
	ready   []int         // the jobs whose wait is over, not yet started
	prio    []float64     // per job: the larger starts first, ties in the order of jobs
	waiting map[int][]int // job → the jobs waiting for it
	left    int           // jobs not yet finished
	// learn, when set, is told of every finished job and returns the
	// priorities anew (costs estimated from the jobs finished so far).
	learn func(finished int) []float64
}

// newQueue queues the jobs not done; waitFor[i] is the job i waits for
// (−1: none) and prio[i] its priority (the larger starts first, ties in
// the order of jobs).
func newQueue(done []bool, waitFor []int, prio []float64) *queue {
	q := &queue{prio: prio, waiting: map[int][]int{}}
	for i := range waitFor {
		switch {
		case done[i]:
		case waitFor[i] >= 0:
			q.waiting[waitFor[i]] = append(q.waiting[waitFor[i]], i)
			q.left++
		default:
			q.ready = append(q.ready, i)
			q.left++
		}
	}
	return q
}

// next is the position in ready of the job to start next: the highest
// priority, ties to the earliest job; −1 when none is ready.
func (q *queue) next() int {
	at := -1
	for k, i := range q.ready {
		if at < 0 || q.prio[i] > q.prio[q.ready[at]] || q.prio[i] == q.prio[q.ready[at]] && i < q.ready[at] {
			at = k
		}
	}
	return at
}

// peek is the ready job to start next; ok is false when none is ready.
func (q *queue) peek() (i int, ok bool) {
	if at := q.next(); at >= 0 {
		return q.ready[at], true
	}
	return -1, false
}

// rank is job i's priority: the cost of the chain of waits it heads (0
// when no cost is known, or i < 0: no job).
func (q *queue) rank(i int) float64 {
	if i >= 0 && i < len(q.prio) {
		return q.prio[i]
	}
	return 0
}

// take removes the job peek gave: it has started.
func (q *queue) take() {
	at := q.next()
	q.ready = slices.Delete(q.ready, at, at+1)
}

// finish records that job i has ended (failed or not) and readies the
// jobs that waited for it.
func (q *queue) finish(i int) {
	q.left--
	q.ready = append(q.ready, q.waiting[i]...)
	delete(q.waiting, i)
	if q.learn != nil {
		q.prio = q.learn(i)
	}
}

// chainCosts gives, per job, the cost of the longest chain of waits that
// starts at it: its own cost plus the longest chain among the jobs waiting
// for it (cost(i) per job; waitFor must be acyclic, as dependencies
// checks). Starting the job with the longest chain first is the classic
// critical-path rule of list scheduling: a long chain started last leaves
// the other workers idle while it ends.
func chainCosts(waitFor []int, cost func(i int) float64) []float64 {
	n := len(waitFor)
	waiters := make([][]int, n)
	var order []int // every job after the job it waits for
	for i, w := range waitFor {
		if w >= 0 {
			waiters[w] = append(waiters[w], i)
		} else {
			order = append(order, i)
		}
	}
	for k := 0; k < len(order); k++ {
		order = append(order, waiters[order[k]]...)
	}
	chain := make([]float64, n)
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		longest := 0.0
		for _, w := range waiters[i] {
			longest = max(longest, chain[w])
		}
		chain[i] = cost(i) + longest
	}
	return chain
}

// learning makes q re-estimate its priorities as jobs finish: an estimator of
// rows (an earlier run's) and of the jobs finished so far, whose row
// row(i) gives. Run uses it when Options.Cost is nil.
func (q *queue) learning(jobs []Job, waitFor []int, rows []Result, row func(i int) Result) {
	e := newEstimator()
	for _, r := range rows {
		e.add(r)
	}
	keys := make([]string, len(jobs))
	for i, j := range jobs {
		keys[i] = j.Key()
	}
	prio := func() []float64 {
		return chainCosts(waitFor, func(i int) float64 { return e.costOf(keys[i], jobs[i]) })
	}
	q.prio = prio()
	q.learn = func(i int) []float64 {
		e.add(row(i))
		return prio()
	}
}

// priorities are the jobs' priorities in Run's queue: with cost, the cost
// of the chain each heads (chainCosts); without, all equal (the order of
// jobs).
func priorities(jobs []Job, waitFor []int, cost func(Job) float64) []float64 {
	if cost == nil {
		return make([]float64, len(jobs))
	}
	return chainCosts(waitFor, func(i int) float64 {
		// A cost that is no number or negative counts as none: NaN
		// would break the queue's order.
		if c := cost(jobs[i]); c > 0 {
			return c
		}
		return 0
	})
}
