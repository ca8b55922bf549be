package grid

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
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
	if slots.Len() != 2 || len(slots.c) != 0 {
		t.Errorf("pool of %d slots, %d still held", slots.Len(), len(slots.c))
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
