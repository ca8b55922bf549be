package viz

import (
	"context"
	"errors"
	"sync"
	"testing"
)

type pos [2]int

// Want returns the wanted value (for tests: the worker reads it through Next).
func (l *Latest[T]) Want() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.want
}

func setAt(i, v int) func(pos) pos { return func(p pos) pos { p[i] = v; return p } }

// A change made before the worker first asks is what the first Next returns:
// nothing sent before listening starts is lost.
func TestLatestChangeBeforeFirstNext(t *testing.T) {
	l := NewLatest(pos{1, 1})
	l.Set(setAt(0, 4))
	l.Set(setAt(1, 7))
	v, err := l.Next(context.Background())
	if err != nil || v != (pos{4, 7}) {
		t.Fatalf("first Next = %v, %v; want [4 7]", v, err)
	}
	if l.Superseded() {
		t.Error("superseded right after Next")
	}
}

// The first Next returns the initial value even without a change.
func TestLatestFirstNextUnchanged(t *testing.T) {
	l := NewLatest(pos{2, 3})
	if l.Superseded() {
		t.Error("superseded before any Next")
	}
	v, err := l.Next(context.Background())
	if err != nil || v != (pos{2, 3}) {
		t.Fatalf("first Next = %v, %v", v, err)
	}
	// Nothing changed since: Next waits, and gives up when ctx ends.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Next with nothing new and a cancelled ctx: %v", err)
	}
}

// Changes while the worker is busy supersede its job, and only the newest
// is handed over: the intermediate positions are skipped.
func TestLatestSupersede(t *testing.T) {
	l := NewLatest(pos{0, 0})
	ctx := context.Background()
	if v, _ := l.Next(ctx); v != (pos{0, 0}) {
		t.Fatal(v)
	}
	// The worker is fitting [0 0]; the slider moves three times.
	for _, x := range []int{1, 2, 3} {
		l.Set(setAt(1, x))
		if !l.Superseded() {
			t.Fatalf("after a change to %d: not superseded", x)
		}
	}
	l.Set(setAt(0, 5)) // and another control
	if v, err := l.Next(ctx); err != nil || v != (pos{5, 3}) {
		t.Fatalf("Next = %v, %v; want only the newest [5 3]", v, err)
	}
	if l.Superseded() || l.Want() != (pos{5, 3}) {
		t.Errorf("superseded %v, want %v after handing out the newest", l.Superseded(), l.Want())
	}
}

// A change that is undone before the worker looks is no change: the job in
// flight is still what is wanted.
func TestLatestChangeUndone(t *testing.T) {
	l := NewLatest(pos{1, 1})
	ctx := context.Background()
	l.Next(ctx)
	l.Set(setAt(0, 2))
	l.Set(setAt(0, 1))
	if l.Superseded() {
		t.Error("a change and its undo supersede the job in flight")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if v, err := l.Next(cctx); err == nil {
		t.Errorf("Next handed out %v although nothing differs from the last value", v)
	}
}

// A worker waiting in Next wakes for a change made by another goroutine;
// changes from many goroutines compose (none overwrites another's field).
func TestLatestConcurrent(t *testing.T) {
	l := NewLatest(pos{0, 0})
	ctx := context.Background()
	l.Next(ctx)
	got := make(chan pos)
	go func() {
		v, err := l.Next(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- v
	}()
	l.Set(setAt(0, 9))
	if v := <-got; v[0] != 9 {
		t.Fatalf("woken with %v, want the change to 9", v)
	}
	var wg sync.WaitGroup
	for i := range 2 {
		for x := 1; x <= 100; x++ {
			wg.Go(func() { l.Set(func(p pos) pos { p[i] += x; return p }) })
		}
	}
	wg.Wait()
	if w := l.Want(); w != (pos{9 + 5050, 5050}) {
		t.Errorf("after 200 concurrent changes: %v, want [5059 5050]", w)
	}
}
