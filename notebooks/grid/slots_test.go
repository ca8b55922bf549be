package grid

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSlotsBoundGrids runs three grids at once, three workers each, on a
// pool of two slots: never more than two jobs run at once over all of
// them, and every job runs once with its row.
func TestSlotsBoundGrids(t *testing.T) {
	slots := NewSlots(2)
	var running, most atomic.Int64
	fn := func(ctx context.Context, j Job) (map[string]float64, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(time.Millisecond) // let the others pile up
		return map[string]float64{"c": j.C}, nil
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	rows := make([][]Result, 3)
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			jobs := line(8, 4)
			for i := range jobs {
				jobs[i].Dataset = fmt.Sprint("g", g)
			}
			rows[g], errs[g] = Run(context.Background(), jobs, fn, Options{Workers: 3, Slots: slots, After: chainAfter,
				Results: filepath.Join(dir, fmt.Sprint("g", g, ".jsonl"))})
		}()
	}
	wg.Wait()
	for g := range 3 {
		if errs[g] != nil {
			t.Fatal(errs[g])
		}
		back, err := ReadResults(filepath.Join(dir, fmt.Sprint("g", g, ".jsonl")))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows[g]) != 12 || len(back) != 12 {
			t.Errorf("grid %d: %d rows returned, %d written; want 12", g, len(rows[g]), len(back))
		}
		for _, r := range rows[g] {
			if r.Error != "" || r.Metrics["c"] != r.C {
				t.Errorf("grid %d: row %+v", g, r)
			}
		}
	}
	if m := most.Load(); m > 2 || m < 1 {
		t.Errorf("%d jobs ran at once on 2 slots", m)
	}
	if slots.Len() != 2 || slots.used != 0 || len(slots.waiting) != 0 {
		t.Errorf("pool of %d slots, %d still held, %d waiting", slots.Len(), slots.used, len(slots.waiting))
	}
}

// TestSlotsStop stops a grid whose jobs wait for slots another grid holds:
// it returns the context's error, none of its jobs ran or got a row.
func TestSlotsStop(t *testing.T) {
	slots := NewSlots(1)
	hold, held := make(chan struct{}), make(chan struct{})
	go func() {
		Run(context.Background(), line(1, 0), func(context.Context, Job) (map[string]float64, error) {
			close(held)
			<-hold
			return nil, nil
		}, Options{Workers: 1, Slots: slots})
	}()
	<-held
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int64
	results := filepath.Join(t.TempDir(), "b.jsonl")
	done := make(chan error)
	go func() {
		_, err := Run(ctx, line(3, 0), func(context.Context, Job) (map[string]float64, error) {
			ran.Add(1)
			return nil, nil
		}, Options{Workers: 2, Slots: slots, Results: results})
		done <- err
	}()
	cancel()
	err := <-done
	close(hold)
	if !errors.Is(err, context.Canceled) || ran.Load() != 0 {
		t.Errorf("stopped grid: error %v, %d jobs ran; want context.Canceled and none", err, ran.Load())
	}
	if rows, err := ReadResults(results); err == nil && len(rows) > 0 {
		t.Errorf("stopped grid wrote %d rows", len(rows))
	}
}

// TestSlotsServeHighestRank: with the one slot held, jobs of ranks 1, 5, 3
// and 5 queue; each release hands the slot to the highest rank, equal
// ranks in the order they came; a waiter whose context ends leaves the
// queue without taking a slot.
func TestSlotsServeHighestRank(t *testing.T) {
	slots := NewSlots(1)
	if err := slots.acquire(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 4)
	var wg sync.WaitGroup
	wait := func(name string, rank float64, ctx context.Context) {
		defer wg.Done()
		if err := slots.acquire(ctx, rank); err != nil {
			got <- name + " stopped"
			return
		}
		got <- name
		slots.release()
	}
	queued := func(n int) { // wait until n jobs are queued
		for {
			slots.mu.Lock()
			k := len(slots.waiting)
			slots.mu.Unlock()
			if k == n {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	stop, cancel := context.WithCancel(context.Background())
	for k, w := range []struct {
		name string
		rank float64
		ctx  context.Context
	}{{"a1", 1, context.Background()}, {"b5", 5, context.Background()}, {"c3", 3, stop}, {"d5", 5, context.Background()}} {
		wg.Add(1)
		go wait(w.name, w.rank, w.ctx)
		queued(k + 1)
	}
	cancel() // c3 leaves the queue
	if g := <-got; g != "c3 stopped" {
		t.Fatalf("first event %q, want c3 stopped", g)
	}
	queued(3)
	slots.release() // the first holder's slot: b5, then d5, then a1
	wg.Wait()
	close(got)
	var order []string
	for g := range got {
		order = append(order, g)
	}
	if want := []string{"b5", "d5", "a1"}; !slices.Equal(order, want) {
		t.Errorf("served %v, want %v", order, want)
	}
	if slots.used != 0 || len(slots.waiting) != 0 {
		t.Errorf("%d slots held, %d waiting after all released", slots.used, len(slots.waiting))
	}
}
