package grid

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// chains is jobs of three groups (sets) along a C grid, listed C-major so
// that the grid would run a group's C values side by side without After.
func chains() []Job {
	var jobs []Job
	for _, c := range []float64{1, 2, 4, 8} {
		for _, s := range []string{"a", "b", "c"} {
			jobs = append(jobs, Job{Dataset: "d", Set: s, Loss: "l", C: c})
		}
	}
	return jobs
}

// previousC waits for the same set at half the C.
func previousC(j Job) (Job, bool) {
	if j.C == 1 {
		return Job{}, false
	}
	j.C /= 2
	return j, true
}

// TestRunAfter checks that a job starts only after the job it waits for
// has finished (on 1, 2 and 4 workers), that a failed predecessor still
// lets it run, and that a resumed grid does not wait for rows it reuses.
func TestRunAfter(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		var mu sync.Mutex
		finished := map[string]bool{}
		var order []string
		fn := func(_ context.Context, j Job) (map[string]float64, error) {
			if p, ok := previousC(j); ok {
				mu.Lock()
				ok := finished[p.Key()]
				mu.Unlock()
				if !ok {
					t.Errorf("%d workers: %s started before %s finished", workers, j.Key(), p.Key())
				}
			}
			mu.Lock()
			finished[j.Key()] = true
			order = append(order, fmt.Sprintf("%s%g", j.Set, j.C))
			mu.Unlock()
			if j.Set == "b" && j.C == 2 {
				return nil, errors.New("fails")
			}
			return map[string]float64{"c": j.C}, nil
		}
		// Costs of 0: ready jobs start in the order given (without Cost,
		// the order would follow the measured times of finished jobs).
		zero := func(Job) float64 { return 0 }
		rs, err := Run(context.Background(), chains(), fn, Options{Workers: workers, After: previousC, Cost: zero})
		if err != nil {
			t.Fatal(err)
		}
		if len(order) != 12 {
			t.Errorf("%d workers: ran %d jobs, want 12", workers, len(order))
		}
		for _, r := range rs {
			if (r.Error != "") != (r.Set == "b" && r.C == 2) {
				t.Errorf("%d workers: %s error %q", workers, r.Key(), r.Error)
			}
		}
		if workers == 1 {
			// One worker: the earliest ready job first.
			if got := strings.Join(order, " "); got != "a1 b1 c1 a2 b2 c2 a4 b4 c4 a8 b8 c8" {
				t.Errorf("1 worker ran %s", got)
			}
		}
	}
	// Resume: the first two C values are in the file; the rest must not
	// wait for them.
	path := filepath.Join(t.TempDir(), "r.jsonl")
	half := chains()[:6]
	ok := func(_ context.Context, j Job) (map[string]float64, error) { return map[string]float64{"c": j.C}, nil }
	if _, err := Run(context.Background(), half, ok, Options{Results: path, After: previousC}); err != nil {
		t.Fatal(err)
	}
	ran := 0
	count := func(c context.Context, j Job) (map[string]float64, error) { ran++; return ok(c, j) }
	if _, err := Run(context.Background(), chains(), count, Options{Results: path, Workers: 1, After: previousC}); err != nil {
		t.Fatal(err)
	}
	if ran != 6 {
		t.Errorf("resumed grid ran %d jobs, want 6", ran)
	}
}

// TestRunAfterRefuses checks that a cycle of waits is an error before any
// job runs, and that a cancelled grid with waiting jobs returns.
func TestRunAfterRefuses(t *testing.T) {
	jobs := chains()[:2]
	cycle := func(j Job) (Job, bool) {
		if j.Set == "a" {
			j.Set = "b"
		} else {
			j.Set = "a"
		}
		return j, true
	}
	ran := false
	_, err := Run(context.Background(), jobs, func(context.Context, Job) (map[string]float64, error) { ran = true; return nil, nil }, Options{After: cycle})
	if err == nil || !strings.Contains(err.Error(), "cycle") || ran {
		t.Errorf("cycle: err = %v, ran = %v", err, ran)
	}
	self := func(j Job) (Job, bool) { return j, true }
	if _, err := Run(context.Background(), jobs, func(context.Context, Job) (map[string]float64, error) { return nil, nil }, Options{After: self}); err == nil || !strings.Contains(err.Error(), "itself") {
		t.Errorf("self: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = Run(ctx, chains(), func(context.Context, Job) (map[string]float64, error) {
		n++
		cancel()
		return map[string]float64{}, nil
	}, Options{Workers: 1, After: previousC})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Errorf("cancelled: err = %v after %d jobs, want context.Canceled after 1", err, n)
	}
}
