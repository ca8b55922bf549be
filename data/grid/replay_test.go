package grid

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// line is jobs named x1..xN (independent) followed by a chain c1 → c2 →
// ... (each c waits for the one before), in that order.
func line(xs, cs int) []Job {
	var jobs []Job
	for i := range xs {
		jobs = append(jobs, Job{Dataset: "d", Set: "x", C: float64(i + 1)})
	}
	for i := range cs {
		jobs = append(jobs, Job{Dataset: "d", Set: "c", C: float64(i + 1)})
	}
	return jobs
}

// chainAfter makes a "c" job wait for the one at the C below.
func chainAfter(j Job) (Job, bool) {
	if j.Set != "c" || j.C == 1 {
		return Job{}, false
	}
	j.C--
	return j, true
}

// listOrder is a Cost under which ready jobs start in the order listed.
func listOrder(Job) float64 { return 0 }

func unitTimes(n int) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = 1
	}
	return t
}

func shortName(j Job) string { return fmt.Sprintf("%s%g", j.Set, j.C) }

// startOrder names the jobs of s by start, then worker.
func startOrder(jobs []Job, s Schedule) string {
	idx := make([]int, len(jobs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if s.Start[a] != s.Start[b] {
			return int(math.Copysign(1, s.Start[a]-s.Start[b]))
		}
		return s.Worker[a] - s.Worker[b]
	})
	var names []string
	for _, i := range idx {
		names = append(names, shortName(jobs[i]))
	}
	return strings.Join(names, " ")
}

// TestReplayByHand checks schedules small enough to draw: list order and
// longest chain first on two workers.
func TestReplayByHand(t *testing.T) {
	// Five independent jobs of 3, 3, 2, 2, 2 s on two workers in list
	// order: 3|3 at 0, 2|2 at 3, the last 2 at 5 on worker 0: 7 s (the
	// best, 3+3 | 2+2+2, is 6 s).
	jobs := line(5, 0)
	s, err := Replay(jobs, []float64{3, 3, 2, 2, 2}, nil, Options{Workers: 2, Cost: listOrder})
	if err != nil {
		t.Fatal(err)
	}
	if s.Makespan != 7 || s.Work != 12 || s.Critical != 3 || s.Bound() != 6 {
		t.Errorf("3 3 2 2 2 on 2 workers: makespan %g work %g critical %g bound %g; want 7 12 3 6", s.Makespan, s.Work, s.Critical, s.Bound())
	}
	if !slices.Equal(s.Start, []float64{0, 0, 3, 3, 5}) || !slices.Equal(s.Worker, []int{0, 1, 0, 1, 0}) {
		t.Errorf("starts %v on workers %v; want [0 0 3 3 5] on [0 1 0 1 0]", s.Start, s.Worker)
	}
	if idle := s.Idle(); math.Abs(idle-2.0/14) > 1e-12 {
		t.Errorf("idle %g, want 2/14", idle)
	}

	// Four 1-s jobs listed before a chain of three 1-s jobs. In list
	// order the chain starts at 2 and ends at 5 with one worker idle from
	// 3; longest chain first starts it at 0 and ends at 4, the best
	// (7 s of work on 2 workers). At 2, c3's chain (1 s) ties with x3 and
	// x4, which are listed first.
	jobs = line(4, 3)
	took := unitTimes(7)
	listed, err := Replay(jobs, took, nil, Options{Workers: 2, After: chainAfter, Cost: listOrder})
	if err != nil {
		t.Fatal(err)
	}
	if got := startOrder(jobs, listed); listed.Makespan != 5 || got != "x1 x2 x3 x4 c1 c2 c3" {
		t.Errorf("list order: makespan %g, started %s; want 5, x1 x2 x3 x4 c1 c2 c3", listed.Makespan, got)
	}
	cost := func(j Job) float64 { return 1 }
	chain, err := Replay(jobs, took, nil, Options{Workers: 2, After: chainAfter, Cost: cost})
	if err != nil {
		t.Fatal(err)
	}
	if got := startOrder(jobs, chain); chain.Makespan != 4 || got != "c1 x1 c2 x2 x3 x4 c3" {
		t.Errorf("chain first: makespan %g, started %s; want 4, c1 x1 c2 x2 x3 x4 c3", chain.Makespan, got)
	}
	if chain.Critical != 3 || chain.Bound() != 3.5 {
		t.Errorf("critical %g bound %g, want 3 and 3.5", chain.Critical, chain.Bound())
	}

	// Without Cost, as a run without earlier rows: every cost is 0 until
	// x1 and x2 end at 1; then each job is estimated at 1 s (the mean of
	// the jobs finished), c1 heads 3 s of chain and starts beside x3, and
	// the chain ends at 4.
	learned, err := Replay(jobs, took, nil, Options{Workers: 2, After: chainAfter})
	if err != nil {
		t.Fatal(err)
	}
	if got := startOrder(jobs, learned); learned.Makespan != 4 || got != "x1 x2 c1 x3 c2 x4 c3" {
		t.Errorf("learned costs: makespan %g, started %s; want 4, x1 x2 c1 x3 c2 x4 c3", learned.Makespan, got)
	}
	// Given earlier rows (a results file of an earlier run) it knows c's
	// cost from the start: c1 (3 s of chain) starts at 0.
	var earlier []Result
	for _, j := range jobs[4:] {
		earlier = append(earlier, Result{Job: j, Seconds: 1})
	}
	seeded, err := Replay(jobs, took, earlier, Options{Workers: 2, After: chainAfter})
	if err != nil {
		t.Fatal(err)
	}
	if seeded.Makespan != 4 || seeded.Start[4] != 0 {
		t.Errorf("earlier rows: makespan %g, c1 starts at %g; want 4 and 0", seeded.Makespan, seeded.Start[4])
	}

	// More workers than jobs: the chain alone sets the makespan.
	wide, err := Replay(jobs, took, nil, Options{Workers: 16, After: chainAfter})
	if err != nil {
		t.Fatal(err)
	}
	if wide.Makespan != 3 {
		t.Errorf("16 workers: makespan %g, want the chain's 3", wide.Makespan)
	}
}

// TestReplayRandomDAGs checks replays of random forests of waits against
// what any list schedule must satisfy: every job once, never before the
// job it waits for, one job at a time per worker, no worker idle while a
// job is ready, and Graham's bound Work/W + (1 − 1/W)·Critical.
func TestReplayRandomDAGs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(40)
		jobs := make([]Job, n)
		took := make([]float64, n)
		wait := make([]int, n)
		for i := range jobs {
			jobs[i] = Job{Dataset: "r", Fold: i}
			took[i] = float64(rng.IntN(10)) // whole seconds: ties happen
			wait[i] = -1
			if i > 0 && rng.IntN(3) > 0 {
				wait[i] = rng.IntN(i)
			}
		}
		after := func(j Job) (Job, bool) {
			if w := wait[j.Fold]; w >= 0 {
				return jobs[w], true
			}
			return Job{}, false
		}
		workers := 1 + rng.IntN(5)
		var cost func(Job) float64
		if trial%2 == 1 {
			cost = func(j Job) float64 { return took[j.Fold] }
		}
		s, err := Replay(jobs, took, nil, Options{Workers: workers, After: after, Cost: cost})
		if err != nil {
			t.Fatal(err)
		}
		ready := make([]float64, n) // when job i could start
		for i := range jobs {
			if wait[i] >= 0 {
				ready[i] = s.End[wait[i]]
				if s.Start[i] < ready[i] {
					t.Fatalf("trial %d: job %d starts at %g before job %d ends at %g", trial, i, s.Start[i], wait[i], ready[i])
				}
			}
			if s.End[i] != s.Start[i]+took[i] || s.Worker[i] < 0 || s.Worker[i] >= workers {
				t.Fatalf("trial %d: job %d runs %g-%g on worker %d", trial, i, s.Start[i], s.End[i], s.Worker[i])
			}
		}
		// busy(t) counts the jobs running at time t (a job of 0 s runs
		// at no time).
		busy := func(at float64) int {
			k := 0
			for i := range jobs {
				if s.Start[i] <= at && at < s.End[i] {
					k++
				}
			}
			return k
		}
		for i := range jobs {
			for k := range jobs {
				if i != k && s.Worker[i] == s.Worker[k] && s.Start[i] < s.End[k] && s.Start[k] < s.End[i] {
					t.Fatalf("trial %d: jobs %d and %d overlap on worker %d", trial, i, k, s.Worker[i])
				}
			}
			// Between becoming ready and starting, every worker was busy:
			// check at every start or end in that span.
			for k := range jobs {
				for _, at := range []float64{s.Start[k], s.End[k]} {
					if at >= ready[i] && at < s.Start[i] && busy(at) < workers {
						t.Fatalf("trial %d: job %d ready at %g waited until %g with a worker free at %g", trial, i, ready[i], s.Start[i], at)
					}
				}
			}
		}
		var work, last float64
		for i := range jobs {
			work += took[i]
			last = max(last, s.End[i])
		}
		w := float64(workers)
		if s.Work != work || s.Makespan != last || s.Makespan < s.Bound()-1e-9 || s.Makespan > work/w+(1-1/w)*s.Critical+1e-9 {
			t.Fatalf("trial %d: makespan %g (last end %g), work %g (%g), critical %g on %d workers: outside [bound %g, Graham %g]",
				trial, s.Makespan, last, s.Work, work, s.Critical, workers, s.Bound(), work/w+(1-1/w)*s.Critical)
		}
	}
}

// TestReplayFollowsRun checks that Replay orders jobs as Run does: on one
// worker (where a run's order does not depend on timing) the replay's
// order of starts is the run's, in list order, with costs given, and with
// costs read from the stale rows of the results file.
func TestReplayFollowsRun(t *testing.T) {
	jobs := line(4, 3)
	took := []float64{1, 1, 1, 1, 2, 2, 2}
	byName := map[string]float64{}
	for i, j := range jobs {
		byName[shortName(j)] = took[i]
	}
	runOrder := func(opt Options) string {
		t.Helper()
		if opt.Workers == 0 {
			opt.Workers = 1
		}
		// The first jobs wait until every worker has one, so that none
		// ends before the workers' first jobs are handed out.
		var mu sync.Mutex
		var order []string
		var first sync.WaitGroup
		first.Add(opt.Workers)
		fn := func(_ context.Context, j Job) (map[string]float64, error) {
			mu.Lock()
			order = append(order, shortName(j))
			n := len(order)
			mu.Unlock()
			if n <= opt.Workers {
				first.Done()
				first.Wait()
			}
			return map[string]float64{}, nil
		}
		opt.After = chainAfter
		if _, err := Run(context.Background(), jobs, fn, opt); err != nil {
			t.Fatal(err)
		}
		return strings.Join(order, " ")
	}
	replayOrder := func(cost func(Job) float64) string {
		t.Helper()
		s, err := Replay(jobs, took, nil, Options{Workers: 1, After: chainAfter, Cost: cost})
		if err != nil {
			t.Fatal(err)
		}
		return startOrder(jobs, s)
	}
	cost := func(j Job) float64 { return byName[shortName(j)] }
	for _, c := range []struct {
		what      string
		run, want string
		replay    string
	}{
		{"list order", runOrder(Options{Cost: listOrder}), "x1 x2 x3 x4 c1 c2 c3", replayOrder(listOrder)},
		// c1 heads 6 s of chain, then c2 (4 s) beats the x's (1 s), and
		// c3 (2 s) too.
		{"cost", runOrder(Options{Cost: cost}), "c1 c2 c3 x1 x2 x3 x4", replayOrder(cost)},
	} {
		if c.run != c.want || c.replay != c.want {
			t.Errorf("%s: run %s, replay %s; want %s", c.what, c.run, c.replay, c.want)
		}
	}

	// A results file of an earlier version of the code (stale rows, which
	// run again) gives the costs when Options.Cost is nil: on two workers
	// c1 (6 s of chain) starts at once, beside x1. On one worker the order
	// cannot change the grid's time, and stays the order given.
	path := filepath.Join(t.TempDir(), "r.jsonl")
	old := CodeVersion{Commit: "old", Source: "0ld"}
	var rows []Result
	for i, j := range jobs {
		rows = append(rows, Result{Job: j, Metrics: map[string]float64{}, Seconds: took[i], Code: old})
	}
	var buf bytes.Buffer
	if err := WriteResultsJSONL(&buf, rows); err != nil {
		t.Fatal(err)
	}
	now := CodeVersion{Commit: "new", Source: "n3w"}
	for _, workers := range []int{1, 2} {
		writeFile(t, path, buf.String())
		got := runOrder(Options{Results: path, Code: &now, Workers: workers})
		first := strings.Fields(got)[:workers]
		slices.Sort(first)
		want := map[int][]string{1: {"x1"}, 2: {"c1", "x1"}}[workers]
		if !slices.Equal(first, want) {
			t.Errorf("costs from stale rows, %d workers: ran %s; want %v first", workers, got, want)
		}
	}
}

func TestReplayRefuses(t *testing.T) {
	jobs := line(2, 2)
	for _, c := range []struct {
		what string
		jobs []Job
		took []float64
		opt  Options
		want string
	}{
		{"short times", jobs, []float64{1, 1, 1}, Options{}, "4 jobs given 3 times"},
		{"negative", jobs, []float64{1, -1, 1, 1}, Options{}, "takes -1"},
		{"NaN", jobs, []float64{1, math.NaN(), 1, 1}, Options{}, "takes NaN"},
		{"infinite", jobs, []float64{1, math.Inf(1), 1, 1}, Options{}, "takes +Inf"},
		{"duplicate", append(jobs, jobs[0]), []float64{1, 1, 1, 1, 1}, Options{}, "listed twice"},
		{"cycle", jobs, unitTimes(4), Options{After: func(j Job) (Job, bool) {
			if j.Set == "c" {
				j.C = 3 - j.C
				return j, true
			}
			return Job{}, false
		}}, "cycle"},
	} {
		if _, err := Replay(c.jobs, c.took, nil, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.what, err, c.want)
		}
	}
	// No jobs: an empty schedule.
	if s, err := Replay(nil, nil, nil, Options{Workers: 3}); err != nil || s.Makespan != 0 || s.Idle() != 0 {
		t.Errorf("no jobs: %+v, %v", s, err)
	}
}

func TestEstimate(t *testing.T) {
	row := func(set, tag string, c float64, fold int, sec float64) Result {
		return Result{Job: Job{Dataset: "d", Set: set, Loss: "l", C: c, Fold: fold, Tag: tag}, Seconds: sec}
	}
	failed := row("A", "select", 1, 2, 1000)
	failed.Error = "boom"
	est := Estimate([]Result{
		row("A", "select", 1, 0, 2), row("A", "select", 1, 1, 4), failed,
		row("A", "select", 10, 0, 30), row("B", "final", 1, 0, 7),
	})
	for _, c := range []struct {
		job  Job
		want float64
	}{
		{Job{Dataset: "d", Set: "A", Loss: "l", C: 1, Fold: 1, Tag: "select"}, 4},     // its own row
		{Job{Dataset: "d", Set: "A", Loss: "l", C: 1, Fold: 2, Tag: "select"}, 3},     // folds 0 and 1 (the failed row left out)
		{Job{Dataset: "d", Set: "A", Loss: "l", C: 3, Fold: 0, Tag: "select"}, 12},    // set A's selection: (2+4+30)/3
		{Job{Dataset: "d", Set: "Z", Loss: "l", C: 1, Fold: 0, Tag: "select"}, 10.75}, // all rows: 43/4
	} {
		if got := est(c.job); got != c.want {
			t.Errorf("Estimate(%s) = %g, want %g", c.job.Key(), got, c.want)
		}
	}
	if got := Estimate(nil)(Job{}); got != 0 {
		t.Errorf("no rows: %g, want 0", got)
	}
}

// BenchmarkReplay replays a grid the size of the retina protocol's
// selection stage (280 chains of 5 along C) on 16 workers.
func BenchmarkReplay(b *testing.B) {
	jobs := Jobs([]string{"d"}, []string{"a", "b", "c", "d", "e", "f", "g"}, []string{"l"}, []float64{1, 2, 3, 4, 5}, 40)
	took := make([]float64, len(jobs))
	for i, j := range jobs {
		took[i] = j.C * float64(1+i%7)
	}
	after := func(j Job) (Job, bool) {
		if j.C == 1 {
			return Job{}, false
		}
		j.C--
		return j, true
	}
	cost := func(j Job) float64 { return j.C }
	b.Run("cost", func(b *testing.B) {
		for b.Loop() {
			if _, err := Replay(jobs, took, nil, Options{Workers: 16, After: after, Cost: cost}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Costs learned from the jobs finished so far: Run's default, which
	// estimates every job's chain again after each job.
	b.Run("learned", func(b *testing.B) {
		for b.Loop() {
			if _, err := Replay(jobs, took, nil, Options{Workers: 16, After: after}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
