package efficiency

import (
	"fmt"
	"math"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/psub"
)

func TestEfficiencyConfigs(t *testing.T) {
	for _, tc := range []struct {
		name        string
		minibatches int
		rows        int
	}{
		{"paper's four rows", 0, 4},
		{"one minibatch is no extra row", 1, 4},
		{"with minibatches", 3, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := Configs(0.5, 7, tc.minibatches)
			if len(cs) != tc.rows {
				t.Fatalf("%d rows, want %d", len(cs), tc.rows)
			}
			for _, c := range cs {
				if c.Settings.C != 0.5 || c.Settings.Tol != 1e-3 || c.Settings.MaxIter != 7 {
					t.Errorf("%s: C %g tol %g maxIter %d", c.Name, c.Settings.C, c.Settings.Tol, c.Settings.MaxIter)
				}
			}
			if _, ok := cs[0].Settings.Set.(psub.C2); !ok {
				t.Errorf("row 0 set %T, want C2", cs[0].Settings.Set)
			}
			want := []struct{ delayed, pretrain bool }{{false, false}, {true, false}, {true, true}}
			for i, w := range want {
				s := cs[i+1].Settings
				if _, ok := s.Set.(psub.C4); !ok || s.Delayed != w.delayed || s.Pretrain != w.pretrain {
					t.Errorf("row %d (%s): set %T delayed %v pretrain %v", i+1, cs[i+1].Name, s.Set, s.Delayed, s.Pretrain)
				}
			}
			if tc.rows == 5 && cs[4].Settings.Minibatches != tc.minibatches {
				t.Errorf("minibatch row has Minibatches %d", cs[4].Settings.Minibatches)
			}
		})
	}
}

// TestRunEfficiency checks, on the embedded synthetic problem, what the
// paper's table claims between rows: the C4 rows reach the same optimum,
// delayed generation computes fewer margins than Algorithm 1 for the same
// iterations, the definitely submodular row computes none, and the curves
// add up to the trace's totals.
func TestRunEfficiency(t *testing.T) {
	seg := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 3, Train: 8, Test: 1})
	calls := 0
	rs, err := RunConfigs(seg.Train, 2, Configs(1, 0, 3), func(i int, name string) {
		if i != calls {
			t.Errorf("progress index %d, want %d", i, calls)
		}
		calls++
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 5 || calls != 5 {
		t.Fatalf("%d results, %d progress calls", len(rs), calls)
	}
	for _, r := range rs {
		if !r.Converged {
			t.Errorf("%s did not converge", r.Name)
		}
		if r.Seconds <= 0 || r.Iterations != r.Trace.Iters || r.Margins != r.Trace.Margins {
			t.Errorf("%s: seconds %g, iterations %d (trace %d), margins %d (trace %d)", r.Name, r.Seconds, r.Iterations, r.Trace.Iters, r.Margins, r.Trace.Margins)
		}
		x, per, run := MarginCurves(r.Trace)
		if len(x) != len(r.Trace.QPCalls) || len(per) != len(x) || len(run) != len(x) {
			t.Fatalf("%s: curve lengths %d %d %d, %d QP calls", r.Name, len(x), len(per), len(run), len(r.Trace.QPCalls))
		}
		sum := 0.0
		for _, v := range per {
			sum += v
		}
		if len(run) > 0 && (run[len(run)-1] != sum || int64(sum) != r.Margins) {
			t.Errorf("%s: running total %g, per-call sum %g, trace %d", r.Name, run[len(run)-1], sum, r.Margins)
		}
		ix, irun := MarginsPerIteration(r.Trace)
		if len(ix) != len(r.Trace.Iterations) || (len(irun) > 0 && int64(irun[len(irun)-1]) > r.Margins) {
			t.Errorf("%s: per-iteration running total %v exceeds %d", r.Name, irun, r.Margins)
		}
	}
	if rs[0].Margins != 0 || rs[0].HardIntroduced != 0 {
		t.Errorf("C2 computed %d margins, introduced %d hard constraints", rs[0].Margins, rs[0].HardIntroduced)
	}
	full, delayed := rs[1], rs[2]
	if full.Margins == 0 || delayed.Margins > full.Margins {
		t.Errorf("margins: full %d, delayed %d", full.Margins, delayed.Margins)
	}
	for _, r := range rs[2:] {
		if d := math.Abs(r.Primal-full.Primal) / full.Primal; d > 2e-3 {
			t.Errorf("%s primal %g, 1-pass full %g (rel. diff %.2g)", r.Name, r.Primal, full.Primal, d)
		}
	}
}

func TestPositive(t *testing.T) {
	x, y := Positive([]float64{1, 2, 3, 4}, []float64{0, 5, -1, 2})
	if len(x) != 2 || x[0] != 2 || x[1] != 4 || y[0] != 5 || y[1] != 2 {
		t.Errorf("got %v %v", x, y)
	}
}

// The recommended rows reach the optimum of the paper's rows on the embedded
// synthetic problem, and delayed generation with the tight bound computes
// fewer margins than Algorithm 1 with the same number of constraints per
// round.
func TestTunedEfficiency(t *testing.T) {
	seg := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 3, Train: 8, Test: 1})
	paper, err := RunConfigs(seg.Train, 2, Configs(1, 0, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := RunConfigs(seg.Train, 2, TunedConfigs(1, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec) != 4 {
		t.Fatalf("%d recommended rows", len(rec))
	}
	for i, r := range rec {
		if !r.Converged {
			t.Errorf("%s did not converge", r.Name)
		}
		if d := math.Abs(r.Primal-paper[i].Primal) / paper[i].Primal; d > 2e-3 {
			t.Errorf("%s primal %g, paper's row %s %g (rel. diff %.2g)", r.Name, r.Primal, paper[i].Name, paper[i].Primal, d)
		}
	}
	if rec[0].Margins != 0 || rec[2].Margins >= rec[1].Margins {
		t.Errorf("margins: C2 %d, 1-pass full k = 20 %d, delayed tight %d", rec[0].Margins, rec[1].Margins, rec[2].Margins)
	}
	t.Logf("margins paper rows %d %d %d, recommended %d %d %d", paper[1].Margins, paper[2].Margins, paper[3].Margins, rec[1].Margins, rec[2].Margins, rec[3].Margins)
}

// RunConfigs trains every configuration on the same training set, one
// after the other (so they do not compete for cores), and collects the
// table's columns. progress, when set, is called before each configuration
// with its index. Training errors are returned with the configuration's name.
func RunConfigs(train []psub.Instance, labels int, configs []Config, progress func(i int, name string)) ([]Result, error) {
	p, err := psub.Prepare(train, labels)
	if err != nil {
		return nil, fmt.Errorf("efficiency: training set: %w", err)
	}
	return RunConfigsPrepared(p, configs, progress)
}
