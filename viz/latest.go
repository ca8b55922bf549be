package viz

import (
	"context"
	"sync"
)

// Latest hands the most recent value of a set of live controls to the one
// worker that acts on it (a re-fit and a redraw), so that the worker never
// falls behind the controls:
//
//   - Set applies a change to the wanted value at any time, from any
//     goroutine (one per control); changes compose, since each is applied
//     to the current wanted value under the lock.
//   - Next waits until the wanted value differs from the last one it
//     returned (the first call returns at once), and returns it. Changes
//     made while the worker was busy are not queued one by one: the worker
//     gets only the newest value, and a value that went and came back to
//     what it last got is no change at all.
//   - Superseded tells the worker that the value it is acting on is no
//     longer wanted, so it can drop its result instead of drawing it.
//
// No change is lost: a change made before the first Next (before the worker
// starts listening) is part of what that Next returns.
type Latest[T comparable] struct {
	mu      sync.Mutex
	want    T
	handed  T    // the value last returned by Next
	started bool // Next has returned a value
	wake    chan struct{}
}

// NewLatest returns a Latest whose wanted value is initial.
func NewLatest[T comparable](initial T) *Latest[T] {
	return &Latest[T]{want: initial, wake: make(chan struct{}, 1)}
}

// Set replaces the wanted value v by change(v).
func (l *Latest[T]) Set(change func(T) T) {
	l.mu.Lock()
	l.want = change(l.want)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

// Next returns the wanted value as soon as it differs from the value Next
// last returned (at once on the first call), or ctx's error when ctx ends
// first.
func (l *Latest[T]) Next(ctx context.Context) (T, error) {
	for {
		l.mu.Lock()
		if !l.started || l.want != l.handed {
			l.started, l.handed = true, l.want
			v := l.want
			l.mu.Unlock()
			return v, nil
		}
		l.mu.Unlock()
		select {
		case <-l.wake:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
}

// Superseded reports whether the wanted value differs from the one Next
// last returned: the worker's current job is out of date.
func (l *Latest[T]) Superseded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.started && l.want != l.handed
}
