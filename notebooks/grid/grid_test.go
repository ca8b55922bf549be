package grid

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

func TestLogSpace(t *testing.T) {
	g := LogSpace(0.1, 10, 5)
	want := []float64{0.1, math.Sqrt(0.1), 1, math.Sqrt(10), 10}
	for i := range want {
		if math.Abs(g[i]-want[i]) > 1e-12*want[i] {
			t.Fatalf("LogSpace = %v, want %v", g, want)
		}
	}
	if g := LogSpace(1e-2, 1e3, 11); len(g) != 11 || g[0] != 1e-2 || g[10] != 1e3 || math.Abs(g[4]-1) > 1e-12 {
		t.Fatalf("EM grid %v", g)
	}
}

func TestBestByCAndPairedAcrossFolds(t *testing.T) {
	type acc struct{ Acc float64 }
	var rs []Row[Job, acc]
	for f := range 6 {
		for _, c := range []float64{0.1, 1} {
			for _, set := range []string{"C1", "C4"} {
				a := 0.80 + 0.01*float64(f%3)
				if set == "C4" {
					a += 0.05 + 0.001*float64(f)
				}
				if c == 1 {
					a -= 0.02 // the smaller C is better everywhere
				}
				rs = append(rs, Row[Job, acc]{Job: Job{Dataset: "d", Set: set, Loss: "hamming", C: c, Fold: f}, Metrics: acc{a}})
			}
		}
	}
	rs = append(rs, Row[Job, acc]{Job: Job{Dataset: "d", Set: "C4", Loss: "hamming", C: 10, Fold: 0}, Error: "diverged", Metrics: acc{2}})
	v := func(m acc) float64 { return m.Acc }
	best := BestByC(rs, v)
	if len(best) != 12 {
		t.Fatalf("%d groups", len(best))
	}
	for _, r := range best {
		if r.Job.C != 0.1 {
			t.Fatalf("picked C=%v for %s", r.Job.C, r.Job.Key())
		}
	}
	c4 := func(j Job) bool { return j.Set == "C4" }
	c1 := func(j Job) bool { return j.Set == "C1" }
	tt, p, n, err := PairedAcrossFolds(best, v, c4, c1)
	if err != nil || n != 6 || tt <= 0 || p > 1e-5 {
		t.Fatalf("t %v p %v n %d err %v", tt, p, n, err)
	}
	if _, _, _, err := PairedAcrossFolds(rs, v, c4, c1); err == nil || !strings.Contains(err.Error(), "two results for fold") {
		t.Fatalf("unselected C accepted: %v", err)
	}
	mean, se, n := Aggregate(best, "C1", "hamming", v)
	if n != 6 || math.Abs(mean-0.81) > 1e-12 || se <= 0 {
		t.Fatalf("aggregate %v ± %v over %d", mean, se, n)
	}
	if _, _, n := Aggregate(best, "C2", "hamming", v); n != 0 {
		t.Fatalf("aggregate of no rows: %d", n)
	}
}

func TestRunGridResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out", "grid.jsonl")
	jobs := Jobs([]string{"a", "b"}, []string{"C1", "C4"}, []string{"hamming"}, []float64{0.1, 1}, 3)
	if len(jobs) != 24 {
		t.Fatalf("%d jobs", len(jobs))
	}
	var calls atomic.Int64
	fn := func(_ context.Context, j Job) (map[string]float64, error) {
		calls.Add(1)
		if j.Dataset == "b" && j.Fold == 2 && j.C == 1 {
			return nil, errors.New("flaky")
		}
		return map[string]float64{"acc": float64(j.Fold) + j.C}, nil
	}
	var last Progress
	rs, err := Run(context.Background(), jobs, fn, Options{Workers: 3, Results: path, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 24 || last.Done != 24 || last.Total != 24 || last.Skipped != 0 {
		t.Fatalf("calls %d, progress %+v", calls.Load(), last)
	}
	for i, r := range rs {
		if r.Job != jobs[i] {
			t.Fatalf("result %d is for %s, want %s", i, r.Key(), jobs[i].Key())
		}
	}
	// Simulate an interrupted write, then resume: only the 2 failed jobs run.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"dataset":"a","set":`)
	f.Close()
	calls.Store(0)
	rs2, err := Run(context.Background(), jobs, fn, Options{Workers: 2, Results: path, Progress: func(p Progress) { last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 || last.Skipped != 22 {
		t.Fatalf("resume ran %d jobs, skipped %d; want 2, 22", calls.Load(), last.Skipped)
	}
	if !reflect.DeepEqual(rs2[0], rs[0]) {
		t.Fatalf("loaded row %+v differs from %+v", rs2[0], rs[0])
	}
	all, err := ReadResults(path)
	if err != nil || len(all) != 24 {
		t.Fatalf("results file: %d rows (the re-run rows replace the failed ones), %v", len(all), err)
	}
	byKey := map[string]Result{}
	for _, r := range rs2 {
		byKey[r.Key()] = r
	}
	for _, r := range all {
		if !reflect.DeepEqual(r, byKey[r.Key()]) {
			t.Fatalf("file row %+v differs from the returned %+v", r, byKey[r.Key()])
		}
	}
}

func TestRunGridCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	jobs := Jobs([]string{"a"}, []string{"C4"}, []string{"h"}, LogSpace(0.1, 10, 5), 10)
	fn := func(ctx context.Context, j Job) (map[string]float64, error) {
		if j.Fold == 1 {
			cancel()
		}
		return map[string]float64{"x": 1}, ctx.Err()
	}
	_, err := Run(ctx, jobs, fn, Options{Workers: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if _, err := Run(context.Background(), append(jobs, jobs[0]), fn, Options{}); err == nil {
		t.Fatal("duplicate job accepted")
	}
}

func TestRunGridRejectsCorruptResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, []byte("{\"dataset\":\"a\"}\nnot json\n{}\n"), 0o644)
	_, err := Run(context.Background(), Jobs([]string{"a"}, []string{"C4"}, []string{"h"}, []float64{1}, 1),
		func(context.Context, Job) (map[string]float64, error) { return nil, nil }, Options{Results: path})
	if err == nil || !strings.Contains(err.Error(), "r.jsonl:2:") {
		t.Fatalf("error %v", err)
	}
}
