package grid

import "context"

// Slots is a pool of places for jobs, shared by grids that run at once
// (several protocols in one process, say): with Options.Slots, Run holds
// one slot while a job runs, so that no more jobs run at once, over all
// the grids sharing the pool, than it has slots. A job's time (its row's
// Seconds) starts once it holds its slot: waiting for one is not counted.
type Slots struct{ c chan struct{} }

// NewSlots makes a pool of n slots (n < 1: one).
func NewSlots(n int) *Slots { return &Slots{c: make(chan struct{}, max(n, 1))} }

// Len is the number of slots.
func (s *Slots) Len() int { return cap(s.c) }

// acquire waits for a free slot, or until ctx is done (then it returns
// ctx's error and holds none).
func (s *Slots) acquire(ctx context.Context) error {
	select {
	case s.c <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Slots) release() { <-s.c }
