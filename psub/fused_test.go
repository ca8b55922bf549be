package psub

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
)

// fillCut's margins are the pool's: for every edge of random binary
// instances, d written by fillCut equals Layout.EdgeSubmodularity (the
// margin c_e·w of C4's row) up to rounding.
func TestFillCutMargins(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 70))
	l := Layout{Labels: 2, UnaryDim: 3, PairwiseDim: 4}
	for c := 0; c < 20; c++ {
		in := randomInstance(rng, 30, 40, l.UnaryDim, l.PairwiseDim, 2)
		w := make([]float64, l.Dim())
		for j := range w {
			w[j] = rng.NormFloat64()
		}
		var r reduced
		l.reduce(w, &r)
		f := instFeatures{unary: in.unaryRows().csr(), pairwise: in.pairwiseRows().csr()}
		costs := make([]float64, in.Nodes())
		lin, pair, m := make([]float64, in.Nodes()), make([]float64, len(in.Edges)), make([]float64, len(in.Edges))
		l.fillCut(lin, pair, &f, &r, costs, in.Labels, in.Edges, false, m)
		for e, p := range in.Pairwise {
			want := l.EdgeSubmodularity(w, p)
			if math.Abs(m[e]-want) > 1e-12*(1+norm(p)*norm(w)) {
				t.Fatalf("case %d edge %d: fillCut's margin %v, EdgeSubmodularity %v", c, e, m[e], want)
			}
		}
	}
}

// Margins read off the cut (the default) train as margins computed in
// passes (Tuning.MarginPass): C4 and C̄4, Algorithms 1 and 2, with and
// without the cache, one and two workers. Both certify, take the same
// iterations, introduce the same hard constraints, reach the same primal
// within the tolerance, and the
// fused fits read the training edges' margins off the cut and compute
// fewer in passes (C̄4 still computes its test edges').
func TestFusedMarginsMatchPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	train := smoothSet(rng, 8, 16, 4, 2)
	test := smoothSet(rng, 3, 16, 4, 2)
	for _, set := range []ConstraintSet{C4{}, C4Bar{Test: test}} {
		for _, delayed := range []bool{false, true} {
			for _, cache := range []int{0, 5} {
				for _, workers := range []int{1, 2} {
					name := fmt.Sprintf("%s delayed=%v cache=%d workers=%d", set.Name(), delayed, cache, workers)
					s := Settings{C: 20, Tol: 1e-5, Set: set, Delayed: delayed, Workers: workers, Tuning: Tuning{Cache: cache}}
					_, fused := trainSet(t, train, s)
					s.Tuning.MarginPass = true
					_, pass := trainSet(t, train, s)
					pf, pp := fused.Final().Primal, pass.Final().Primal
					if math.Abs(pf-pp) > 2*s.Tol*math.Max(pf, pp) {
						t.Errorf("%s: primal %v fused, %v with passes", name, pf, pp)
					}
					// On this data no margin is within rounding of another's
					// or of the threshold, so the same rows come in the
					// same order.
					if fused.Iters != pass.Iters || fused.HardIntroduced != pass.HardIntroduced {
						t.Errorf("%s: %d iterations and %d hard constraints fused, %d and %d with passes", name, fused.Iters, fused.HardIntroduced, pass.Iters, pass.HardIntroduced)
					}
					if pass.HardIntroduced == 0 {
						t.Errorf("%s: no hard constraint introduced: the test does not exercise generation", name)
					}
					if fused.InferenceMargins == 0 || pass.InferenceMargins != 0 {
						t.Errorf("%s: margins read off the cut %d fused, %d with passes", name, fused.InferenceMargins, pass.InferenceMargins)
					}
					if fused.Margins >= pass.Margins {
						t.Errorf("%s: %d margins computed in passes fused, %d with passes only", name, fused.Margins, pass.Margins)
					}
					t.Logf("%s: iters %d/%d hard %d/%d margins %d+%d/%d", name, fused.Iters, pass.Iters, fused.HardIntroduced, pass.HardIntroduced, fused.Margins, fused.InferenceMargins, pass.Margins)
					if fused.HardViolated != 0 {
						t.Errorf("%s: %d hard constraints violated", name, fused.HardViolated)
					}
				}
			}
		}
	}
}

// Only two labels with a graph cut and C4's row read margins off the cut:
// QPBO's inference, TightBounds and C3's rows keep their passes.
func TestFusedOnlyWhereExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 55))
	train := smoothSet(rng, 6, 12, 3, 2)
	for _, s := range []Settings{
		{C: 10, Set: C4{}, Tuning: Tuning{TightBounds: true}, Delayed: true},
		{C: 10, Set: C3{}},
		{C: 10, Set: C4{}, Tuning: Tuning{SubmodularInference: inference.QPBO{}, UnconstrainedInference: inference.QPBO{}}},
	} {
		s.Tol = 1e-4
		_, tr := trainSet(t, train, s)
		if tr.InferenceMargins != 0 {
			t.Errorf("%s %+v: %d margins read off the cut", s.Set.Name(), s.Tuning, tr.InferenceMargins)
		}
	}
}
