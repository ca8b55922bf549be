package grid

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomStage is n jobs of dataset d with whole-second times (ties
// happen), some "c" jobs forming chains along C (chainAfter).
func randomStage(rng *rand.Rand, d, tag string, n int) Stage {
	var st Stage
	cs := 0
	for i := range n {
		j := Job{Dataset: d, Set: "x", C: float64(i + 1), Tag: tag}
		if rng.IntN(2) == 0 {
			cs++
			j = Job{Dataset: d, Set: "c", C: float64(cs), Tag: tag}
		}
		st.Jobs = append(st.Jobs, j)
		st.Took = append(st.Took, float64(rng.IntN(8)))
	}
	return st
}

// separately is the grids run one after another, stage after stage, each
// stage by Replay: the makespans summed.
func separately(t *testing.T, grids []Staged, workers int) float64 {
	t.Helper()
	total := 0.0
	for _, g := range grids {
		for _, st := range g.Stages {
			opt := g.Opt
			opt.Workers = workers
			s, err := Replay(st.Jobs, st.Took, st.Earlier, opt)
			if err != nil {
				t.Fatal(err)
			}
			total += s.Makespan
		}
	}
	return total
}

// TestReplayUnionOneGrid checks ReplayUnion against Replay: one grid of
// one stage is scheduled job for job as Replay schedules it (with costs
// given, learned, or learned from earlier rows), and one grid of several
// stages takes the stages' makespans summed.
func TestReplayUnionOneGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 100 {
		st := randomStage(rng, "d", "", 1+rng.IntN(20))
		workers := 1 + rng.IntN(5)
		var opt Options
		switch trial % 3 {
		case 1:
			took := map[string]float64{}
			for i, j := range st.Jobs {
				took[j.Key()] = st.Took[i]
			}
			opt.Cost = func(j Job) float64 { return took[j.Key()] }
		case 2:
			for i, j := range st.Jobs[:len(st.Jobs)/2] {
				st.Earlier = append(st.Earlier, Result{Job: j, Seconds: st.Took[i]})
			}
		}
		opt.After = chainAfter
		u, err := ReplayUnion([]Staged{{Stages: []Stage{st}, Opt: opt}}, workers)
		if err != nil {
			t.Fatal(err)
		}
		opt.Workers = workers
		s, err := Replay(st.Jobs, st.Took, st.Earlier, opt)
		if err != nil {
			t.Fatal(err)
		}
		if u.Makespan != s.Makespan || u.Work != s.Work || u.Critical != s.Critical || u.Ends[0] != s.Makespan ||
			!slices.Equal(u.Start, s.Start) || !slices.Equal(u.Worker, s.Worker) {
			t.Fatalf("trial %d: union of one grid %+v, Replay %+v", trial, u, s)
		}

		// The same jobs split into three stages.
		k1, k2 := len(st.Jobs)/3, 2*len(st.Jobs)/3
		g := Staged{Opt: Options{After: chainAfter, Cost: opt.Cost}}
		for _, r := range [][2]int{{0, k1}, {k1, k2}, {k2, len(st.Jobs)}} {
			g.Stages = append(g.Stages, Stage{Jobs: st.Jobs[r[0]:r[1]], Took: st.Took[r[0]:r[1]], Earlier: st.Earlier})
		}
		u, err = ReplayUnion([]Staged{g}, workers)
		if err != nil {
			t.Fatal(err)
		}
		if sum := separately(t, []Staged{g}, workers); math.Abs(u.Makespan-sum) > 1e-9 {
			t.Fatalf("trial %d: three stages take %g, their replays %g", trial, u.Makespan, sum)
		}
	}
}

// TestReplayUnionByHand checks a union small enough to draw. Grid A: a
// chain c1 → c2 → c3 of 1 s each, then a stage of one 2-s job f. Grid B:
// four independent 1-s jobs x1..x4. Costs 1 per job, two workers.
// Separately A takes 3 + 2 s and B 2 s: 7 s. Together c1 (chain of 3)
// starts at 0 beside x1; c2 beside x2 at 1; c3 beside x3 at 2; at 3 A's
// first stage has ended, f (cost 1) ties with x4 and goes first, A being
// given first: f on worker 0 at 3, x4 on worker 1; 5 s in all, A's chain
// of 3 + 2 s, so no order does better.
func TestReplayUnionByHand(t *testing.T) {
	one := func(Job) float64 { return 1 }
	a := Staged{Opt: Options{After: chainAfter, Cost: one}, Stages: []Stage{
		{Jobs: line(0, 3), Took: []float64{1, 1, 1}},
		{Jobs: []Job{{Dataset: "d", Set: "f"}}, Took: []float64{2}},
	}}
	b := Staged{Opt: Options{Cost: one}, Stages: []Stage{{Jobs: line(4, 0), Took: unitTimes(4)}}}
	u, err := ReplayUnion([]Staged{a, b}, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Jobs in order: c1 c2 c3 f x1 x2 x3 x4.
	if !slices.Equal(u.Start, []float64{0, 1, 2, 3, 0, 1, 2, 3}) || !slices.Equal(u.Worker, []int{0, 0, 0, 0, 1, 1, 1, 1}) {
		t.Errorf("starts %v on workers %v; want [0 1 2 3 0 1 2 3] on [0 0 0 0 1 1 1 1]", u.Start, u.Worker)
	}
	if u.Makespan != 5 || u.Work != 9 || u.Critical != 5 || u.Bound() != 5 || !slices.Equal(u.Ends, []float64{5, 4}) {
		t.Errorf("makespan %g work %g critical %g bound %g ends %v; want 5 9 5 5 [5 4]", u.Makespan, u.Work, u.Critical, u.Bound(), u.Ends)
	}
	if sep := separately(t, []Staged{a, b}, 2); sep != 7 {
		t.Errorf("separately %g s, want 7", sep)
	}
	// B given first: c1 still starts first (its chain costs 3, x1 1),
	// but at 2 c3 (a chain of 1: the run of a stage does not see the
	// stages after it) ties with x3 and x4 and loses both to B; it runs
	// 3-4 and f 4-6: 6 s, still less than 7.
	u2, err := ReplayUnion([]Staged{b, a}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(u2.Start, []float64{0, 1, 2, 2, 0, 1, 3, 4}) || u2.Makespan != 6 || !slices.Equal(u2.Ends, []float64{3, 6}) {
		t.Errorf("B first: starts %v, makespan %g, ends %v; want [0 1 2 2 0 1 3 4], 6 and [3 6]", u2.Start, u2.Makespan, u2.Ends)
	}
}

// handGrids are pairs of small grids, drawn to cover a long chain beside
// many short jobs, two chained grids, stages of uneven width and a grid
// whose second stage is one long job.
func handGrids() [][2]Staged {
	chain := func(d string, took ...float64) Stage {
		st := Stage{Took: took}
		for i := range took {
			st.Jobs = append(st.Jobs, Job{Dataset: d, Set: "c", C: float64(i + 1)})
		}
		return st
	}
	flat := func(d, tag string, took ...float64) Stage {
		st := Stage{Took: took}
		for i := range took {
			st.Jobs = append(st.Jobs, Job{Dataset: d, Set: "x", C: float64(i + 1), Tag: tag})
		}
		return st
	}
	both := func(a, b Stage) Stage {
		return Stage{Jobs: append(slices.Clone(a.Jobs), b.Jobs...), Took: append(slices.Clone(a.Took), b.Took...)}
	}
	opt := Options{After: chainAfter}
	return [][2]Staged{
		{{Opt: opt, Stages: []Stage{chain("a", 5, 5, 5, 5)}}, {Opt: opt, Stages: []Stage{flat("b", "", 1, 2, 3, 4, 5, 6, 7, 8)}}},
		{{Opt: opt, Stages: []Stage{chain("a", 3, 1, 4, 1, 5)}}, {Opt: opt, Stages: []Stage{chain("b", 9, 2, 6), flat("b", "final", 5, 3)}}},
		{{Opt: opt, Stages: []Stage{both(chain("a", 2, 2, 2), flat("a", "", 1, 1, 1, 1, 1, 1)), flat("a", "final", 4)}},
			{Opt: opt, Stages: []Stage{flat("b", "", 3, 3, 3, 3, 3), flat("b", "final", 2, 2, 2, 2, 2, 2, 2)}}},
		{{Opt: opt, Stages: []Stage{flat("a", "", 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), flat("a", "final", 12)}},
			{Opt: opt, Stages: []Stage{both(chain("b", 4, 4, 4), flat("b", "", 2, 2, 2, 2))}}},
	}
}

// TestReplayUnionBetween checks the hand-made pairs on 1 to 8 workers,
// either given first, with costs learned and given: together they are
// never slower than one grid after the other, and never faster than the
// bound max(work / workers, the longest chain).
func TestReplayUnionBetween(t *testing.T) {
	for p, pair := range handGrids() {
		for _, swap := range []bool{false, true} {
			grids := []Staged{pair[0], pair[1]}
			if swap {
				grids = []Staged{pair[1], pair[0]}
			}
			for _, given := range []bool{false, true} {
				if given {
					for g := range grids {
						took := map[string]float64{}
						for _, st := range grids[g].Stages {
							for i, j := range st.Jobs {
								took[j.Key()] = st.Took[i]
							}
						}
						grids[g].Opt.Cost = func(j Job) float64 { return took[j.Key()] }
					}
				}
				for w := 1; w <= 8; w++ {
					u, err := ReplayUnion(grids, w)
					if err != nil {
						t.Fatal(err)
					}
					sep := separately(t, grids, w)
					if u.Makespan > sep+1e-9 || u.Makespan < u.Bound()-1e-9 || u.Bound() < u.Work/float64(w) || u.Bound() < u.Critical {
						t.Errorf("pair %d (swapped %v, costs given %v) on %d workers: together %g s, separately %g s, bound %g (work %g, chain %g)",
							p, swap, given, w, u.Makespan, sep, u.Bound(), u.Work, u.Critical)
					}
					if w == 1 && u.Makespan != u.Work {
						t.Errorf("pair %d on 1 worker: %g s, want the work %g", p, u.Makespan, u.Work)
					}
					for g := range grids {
						if u.Ends[g] > u.Makespan || u.Ends[g] <= 0 {
							t.Errorf("pair %d: grid %d ends at %g of %g", p, g, u.Ends[g], u.Makespan)
						}
					}
				}
			}
		}
	}
}

// TestReplayUnionStages checks that no job starts before every job of the
// stage before in its grid has ended, nor before the job it waits for,
// and that equal keys in two grids are two jobs.
func TestReplayUnionStages(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 100 {
		var grids []Staged
		for range 1 + rng.IntN(4) {
			g := Staged{Opt: Options{After: chainAfter}}
			for k := range 1 + rng.IntN(3) {
				// Every grid lists the same keys: dataset "d".
				g.Stages = append(g.Stages, randomStage(rng, "d", string(rune('a'+k)), rng.IntN(8)))
			}
			grids = append(grids, g)
		}
		w := 1 + rng.IntN(5)
		u, err := ReplayUnion(grids, w)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		work := 0.0
		for g, sg := range grids {
			prevEnd := 0.0
			for _, st := range sg.Stages {
				end := prevEnd
				at := map[string]int{}
				for k, j := range st.Jobs {
					at[j.Key()] = i + k
				}
				for k, j := range st.Jobs {
					if u.Start[i+k] < prevEnd || u.End[i+k] != u.Start[i+k]+st.Took[k] {
						t.Fatalf("trial %d, grid %d: job %s runs %g-%g, its stage may start at %g", trial, g, j.Key(), u.Start[i+k], u.End[i+k], prevEnd)
					}
					if p, ok := chainAfter(j); ok {
						if pi, listed := at[p.Key()]; listed && u.Start[i+k] < u.End[pi] {
							t.Fatalf("trial %d: job %s starts at %g before %s ends at %g", trial, j.Key(), u.Start[i+k], p.Key(), u.End[pi])
						}
					}
					end = max(end, u.End[i+k])
					work += st.Took[k]
				}
				i += len(st.Jobs)
				prevEnd = end
			}
			if u.Ends[g] != prevEnd {
				t.Fatalf("trial %d: grid %d ends at %g, its last job at %g", trial, g, u.Ends[g], prevEnd)
			}
		}
		if i != len(u.Start) || math.Abs(work-u.Work) > 1e-9 || u.Makespan < u.Bound()-1e-9 {
			t.Fatalf("trial %d: %d jobs of %d, work %g of %g, makespan %g below bound %g", trial, i, len(u.Start), u.Work, work, u.Makespan, u.Bound())
		}
	}
}

func TestReplayUnionRefuses(t *testing.T) {
	x := Job{Dataset: "d", Set: "x"}
	for _, c := range []struct {
		grids []Staged
		want  string
	}{
		{[]Staged{{Stages: []Stage{{Jobs: []Job{x}, Took: nil}}}}, "1 jobs given 0 times"},
		{[]Staged{{Stages: []Stage{{Jobs: []Job{x}, Took: []float64{1}}, {Jobs: []Job{x}, Took: []float64{1}}}}}, "listed twice (stages 1 and 2)"},
		{[]Staged{{}, {Stages: []Stage{{Jobs: []Job{x}, Took: []float64{math.NaN()}}}}}, "grid 2: job d|x||0|0| takes NaN"},
		{[]Staged{{Opt: Options{After: func(j Job) (Job, bool) { return j, true }}, Stages: []Stage{{Jobs: []Job{x}, Took: []float64{1}}}}}, "waits for itself"},
	} {
		if _, err := ReplayUnion(c.grids, 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
