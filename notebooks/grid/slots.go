package grid

import (
	"container/heap"
	"context"
	"sync"
)

// Slots is a pool of places for jobs, shared by grids that run at once
// (several protocols in one process, say): with Options.Slots, Run holds
// one slot while a job runs, so that no more jobs run at once, over all
// the grids sharing the pool, than it has slots. A job's time (its row's
// Seconds) starts once it holds its slot: waiting for one is not counted.
//
// A freed slot goes to the waiting job of the highest rank, over all the
// grids: each grid ranks a job by the cost of the chain of waits it heads
// (Options.Cost), so that one grid's long chain does not queue behind the
// other grids' short jobs. Equal ranks are served in the order they came.
type Slots struct {
	mu      sync.Mutex
	n, used int
	waiting slotWaiters
	seq     uint64
}

// NewSlots makes a pool of n slots (n < 1: one).
func NewSlots(n int) *Slots { return &Slots{n: max(n, 1)} }

// Len is the number of slots.
func (s *Slots) Len() int { return s.n }

// acquire waits for a free slot for a job of the given rank, or until ctx
// is done (then it returns ctx's error and holds none).
func (s *Slots) acquire(ctx context.Context, rank float64) error {
	s.mu.Lock()
	if s.used < s.n && len(s.waiting) == 0 {
		s.used++
		s.mu.Unlock()
		return nil
	}
	w := &slotWaiter{rank: rank, seq: s.seq, granted: make(chan struct{})}
	s.seq++
	heap.Push(&s.waiting, w)
	s.mu.Unlock()
	select {
	case <-w.granted:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		if w.index >= 0 { // still waiting: leave the queue
			heap.Remove(&s.waiting, w.index)
			s.mu.Unlock()
			return ctx.Err()
		}
		s.mu.Unlock()
		s.release() // granted meanwhile: hand it on
		return ctx.Err()
	}
}

// release frees a slot: it goes to the highest-ranked waiting job, if any.
func (s *Slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiting) > 0 {
		w := heap.Pop(&s.waiting).(*slotWaiter)
		close(w.granted) // the slot passes on: used is unchanged
		return
	}
	s.used--
}

type slotWaiter struct {
	rank    float64
	seq     uint64
	index   int // in the heap; −1 once granted or removed
	granted chan struct{}
}

// slotWaiters is a max-heap by rank, then first come first served.
type slotWaiters []*slotWaiter

func (h slotWaiters) Len() int { return len(h) }
func (h slotWaiters) Less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank > h[b].rank
	}
	return h[a].seq < h[b].seq
}
func (h slotWaiters) Swap(a, b int) {
	h[a], h[b] = h[b], h[a]
	h[a].index, h[b].index = a, b
}
func (h *slotWaiters) Push(x any) {
	w := x.(*slotWaiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *slotWaiters) Pop() any {
	old := *h
	w := old[len(old)-1]
	*h = old[:len(old)-1]
	w.index = -1
	return w
}
