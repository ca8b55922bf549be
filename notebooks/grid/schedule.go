package grid

import "container/heap"

// queue is Run's scheduler: it holds the jobs not yet started, those whose
// wait (Options.After) is over in a ready heap, and says which starts
// next.
type queue struct {
	ready   readyHeap
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
	q := &queue{ready: readyHeap{prio: prio}, waiting: map[int][]int{}}
	for i := range waitFor {
		switch {
		case done[i]:
		case waitFor[i] >= 0:
			q.waiting[waitFor[i]] = append(q.waiting[waitFor[i]], i)
			q.left++
		default:
			q.ready.jobs = append(q.ready.jobs, i)
			q.left++
		}
	}
	heap.Init(&q.ready)
	return q
}

// peek is the ready job to start next; ok is false when none is ready.
func (q *queue) peek() (i int, ok bool) {
	if len(q.ready.jobs) == 0 {
		return -1, false
	}
	return q.ready.jobs[0], true
}

// rank is job i's priority: the cost of the chain of waits it heads (0
// when no cost is known, or i < 0: no job).
func (q *queue) rank(i int) float64 {
	if i >= 0 && i < len(q.ready.prio) {
		return q.ready.prio[i]
	}
	return 0
}

// take removes the job peek gave: it has started.
func (q *queue) take() { heap.Pop(&q.ready) }

// finish records that job i has ended (failed or not) and readies the
// jobs that waited for it.
func (q *queue) finish(i int) {
	q.left--
	for _, k := range q.waiting[i] {
		heap.Push(&q.ready, k)
	}
	delete(q.waiting, i)
	if q.learn != nil {
		q.ready.prio = q.learn(i)
		heap.Init(&q.ready)
	}
}

// readyHeap orders ready jobs by priority, then by index.
type readyHeap struct {
	jobs []int
	prio []float64
}

func (h readyHeap) Len() int { return len(h.jobs) }
func (h readyHeap) Less(a, b int) bool {
	i, k := h.jobs[a], h.jobs[b]
	if h.prio[i] != h.prio[k] {
		return h.prio[i] > h.prio[k]
	}
	return i < k
}
func (h readyHeap) Swap(a, b int) { h.jobs[a], h.jobs[b] = h.jobs[b], h.jobs[a] }
func (h *readyHeap) Push(x any)   { h.jobs = append(h.jobs, x.(int)) }
func (h *readyHeap) Pop() any {
	n := len(h.jobs) - 1
	i := h.jobs[n]
	h.jobs = h.jobs[:n]
	return i
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
	q.ready.prio = prio()
	heap.Init(&q.ready)
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
		// would break the heap's order.
		if c := cost(jobs[i]); c > 0 {
			return c
		}
		return 0
	})
}
