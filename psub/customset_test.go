package psub

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
)

// thresholdC4 is a set defined through the exported interface only: C4 on
// the edges whose pairwise feature 0 exceeds T. It does not promise
// submodularity (the other edges are free).
type thresholdC4 struct{ T float64 }

func (s thresholdC4) Name() string { return fmt.Sprintf("C4[p0>%g]", s.T) }

func (s thresholdC4) Spec(l Layout, train []Instance) (SetSpec, error) {
	spec, err := C4{}.Spec(l, train)
	spec.Pool.Keep = func(_ *Instance, _ int, p []float64) bool { return p[0] > s.T }
	spec.Submodular = false
	return spec, err
}

// renamedC4 is C4 under a name of its own, its pool built through Keep
// (accepting every edge).
type renamedC4 struct{}

func (renamedC4) Name() string { return "myC4" }

func (renamedC4) Spec(l Layout, train []Instance) (SetSpec, error) {
	spec, err := C4{}.Spec(l, train)
	spec.Pool.Keep = func(*Instance, int, []float64) bool { return true }
	return spec, err
}

// shuffledC4 is C4 with each row's terms given last block first and the
// coefficient of w_αα split in two halves: the learner's canonical rows
// (sorted by block, a block named twice summed) are C4's.
type shuffledC4 struct{}

func (shuffledC4) Name() string { return "C4-shuffled" }

func (shuffledC4) Spec(l Layout, train []Instance) (SetSpec, error) {
	spec, err := C4{}.Spec(l, train)
	if err != nil {
		return spec, err
	}
	rows := make([]PoolRow, len(spec.Pool.B))
	for j, r := range spec.Pool.B {
		for k := len(r) - 1; k >= 0; k-- {
			if k == 0 {
				rows[j] = append(rows[j], BlockTerm{r[k].Block, r[k].C / 2}, BlockTerm{r[k].Block, r[k].C / 2})
				continue
			}
			rows[j] = append(rows[j], r[k])
		}
	}
	spec.Pool = &ConstraintPool{B: rows}
	return spec, nil
}

// c4Attractive is C4 with w_αα ≥ 0 coordinate-wise besides: a subset of C4.
type c4Attractive struct{}

func (c4Attractive) Name() string { return "C4+attractive" }

func (c4Attractive) Spec(l Layout, train []Instance) (SetSpec, error) {
	spec, err := C4{}.Spec(l, train)
	for a := 0; a < l.Labels; a++ {
		for j := 0; j < l.PairwiseDim; j++ {
			spec.Bounds = append(spec.Bounds, Bound{l.PairwiseIndex(a, a, j), 1})
		}
	}
	return spec, err
}

// fixedSpec is a set whose description is given.
type fixedSpec struct {
	name string
	spec SetSpec
}

func (s fixedSpec) Name() string                             { return s.name }
func (s fixedSpec) Spec(Layout, []Instance) (SetSpec, error) { return s.spec, nil }

// repulsiveSet is chains whose labels tend to change across weak edges
// (pairwise feature (s, 1, u), s < 1, u uniform noise) and to stay across strong ones, with a
// weak unary cue: the best weights make weak edges repulsive, which C4
// forbids.
func repulsiveSet(rng *rand.Rand, n, nodes int) []Instance {
	var set []Instance
	for range n {
		var in Instance
		y := rng.IntN(2)
		for k := range nodes {
			if k > 0 {
				s := 2 * rng.Float64()
				if s < 1 && rng.Float64() < 0.8 || s >= 1 && rng.Float64() < 0.1 {
					y = 1 - y
				}
				in.Edges = append(in.Edges, [2]int{k - 1, k})
				in.Pairwise = append(in.Pairwise, []float64{s, 1, rng.Float64()})
			}
			in.Unary = append(in.Unary, []float64{0.3*float64(2*y-1) + 0.5*rng.NormFloat64(), 1})
			in.Labels = append(in.Labels, y)
		}
		set = append(set, in)
	}
	return set
}

// User-defined sets nest like the paper's: with exact (brute-force)
// inference, opt(none) ≤ opt(C4 on strong edges) ≤ opt(C4) ≤
// opt(C4 + w_αα ≥ 0), each optimum in [Dual, Primal] of its run, and each
// run's primal is the enumerated primal of its weights (refPrimal). The
// threshold set holds C4 on the edges it keeps (checked edge by edge with
// Layout.EdgeSubmodularity) and not on all the others.
func TestUserSetsNested(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 5))
	train := repulsiveSet(rng, 6, 10)
	thr := thresholdC4{T: 0.5}
	const tol, c = 1e-5, 10.0
	bf := inference.BruteForce{}
	fin := map[string]Iteration{}
	var wThr []float64
	for _, set := range []ConstraintSet{Unconstrained{}, thr, C4{}, c4Attractive{}} {
		m, tr := trainSet(t, train, Settings{C: c, Tol: tol, Set: set,
			Tuning: Tuning{SubmodularInference: bf, UnconstrainedInference: bf}})
		f := tr.Final()
		fin[set.Name()] = f
		if ref := refPrimal(m.W, c, 2, train, false); math.Abs(ref-f.Primal) > 1e-9*math.Max(1, ref) {
			t.Errorf("%s: reported primal %v, enumerated %v", set.Name(), f.Primal, ref)
		}
		t.Logf("%-12s primal %.6f dual %.6f hard %d", set.Name(), f.Primal, f.Dual, tr.HardIntroduced)
		if set == ConstraintSet(thr) {
			wThr = m.W
		}
	}
	chain := []string{"none", thr.Name(), "C4", "C4+attractive"}
	for k := 0; k+1 < len(chain); k++ {
		large, small := fin[chain[k]], fin[chain[k+1]]
		if large.Primal > small.Dual+2*tol*small.Primal+1e-12 {
			t.Errorf("opt(%s) ≥ %v but opt(%s) ≤ %v: a larger set is worse", chain[k], large.Dual, chain[k+1], small.Primal)
		}
	}
	// The sets differ on this data: the ladder is strict at both ends of
	// the threshold set.
	if !(fin["none"].Primal < fin[thr.Name()].Dual && fin[thr.Name()].Primal < fin["C4"].Dual) {
		t.Errorf("threshold set not strictly between none and C4: %v, %v, %v", fin["none"], fin[thr.Name()], fin["C4"])
	}
	l := Layout{Labels: 2, UnaryDim: 2, PairwiseDim: 3}
	kept, freed := 0, 0
	for i := range train {
		for _, p := range train[i].Pairwise {
			m := l.EdgeSubmodularity(wThr, p)
			if p[0] > thr.T {
				kept++
				if m < -DefaultHardTol*2*norm(p)*norm(wThr) {
					t.Errorf("instance %d: kept edge with margin %v", i, m)
				}
			} else if m < 0 {
				freed++
			}
		}
	}
	if freed == 0 {
		t.Errorf("no edge below the threshold is non-submodular: the set did not differ from C4 (%d kept)", kept)
	}
	t.Logf("%d edges kept, %d of the others non-submodular", kept, freed)
}

// A user set that is C4 under another name, its pool built through Keep,
// trains to C4's weights bit for bit; a threshold no edge passes leaves an
// empty pool and trains to Unconstrained's. Both compute their margins in
// passes (Tuning.MarginPass): a pool built through Keep cannot have them
// read off the cut, and the margins differ from C4's by rounding then.
func TestUserSetsLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 6))
	train := smoothSet(rng, 5, 10, 3, 2)
	for _, tc := range []struct{ user, paper ConstraintSet }{
		{renamedC4{}, C4{}},
		{shuffledC4{}, C4{}},
		{thresholdC4{T: math.Inf(1)}, Unconstrained{}},
	} {
		for _, delayed := range []bool{false, true} {
			s := Settings{C: 10, Tol: 1e-4, Delayed: delayed, Tuning: Tuning{MarginPass: true}}
			s.Set = tc.user
			mu, tu := trainSet(t, train, s)
			s.Set = tc.paper
			mp, tp := trainSet(t, train, s)
			if !slices.Equal(mu.W, mp.W) || tu.Iters != tp.Iters || tu.Margins != tp.Margins {
				t.Errorf("%s vs %s (delayed %v): weights differ or %d/%d iterations, %d/%d margins",
					tc.user.Name(), tc.paper.Name(), delayed, tu.Iters, tp.Iters, tu.Margins, tp.Margins)
			}
		}
	}
}

// A warm start from a threshold set's working set, on the same instances
// in reverse order, takes over every hard constraint (rows are named by
// instance and rank among its kept edges) and ends at the same optimum
// with the same rows.
func TestUserSetWarm(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 7))
	train := repulsiveSet(rng, 12, 10)
	set := thresholdC4{T: 0.5}
	bf := inference.BruteForce{}
	s := Settings{C: 10, Tol: 1e-5, Set: set, Tuning: Tuning{SubmodularInference: bf, UnconstrainedInference: bf}}
	_, cold := trainSet(t, train, s)
	ws := cold.Working
	if len(ws.Hard) < 2 {
		t.Fatalf("%d hard constraints in the working set: the test needs several", len(ws.Hard))
	}
	n := len(train)
	rev := slices.Clone(train)
	slices.Reverse(rev)
	s.Warm, s.WarmInstances = ws, make([]int, n)
	for k := range s.WarmInstances {
		s.WarmInstances[k] = n - 1 - k
	}
	_, warm := trainSet(t, rev, s)
	if warm.Warm.Hard != len(ws.Hard) || warm.Warm.HardDropped != 0 {
		t.Errorf("warm start took %d of %d hard constraints (%d dropped)", warm.Warm.Hard, len(ws.Hard), warm.Warm.HardDropped)
	}
	// The carried rows are the ones that bound the cold run: none to add,
	// none left over.
	if warm.HardIntroduced != len(ws.Hard) {
		t.Errorf("warm start introduced %d hard constraints, %d of them carried", warm.HardIntroduced, len(ws.Hard))
	}
	var a, b [][3]int
	for _, r := range ws.Hard {
		a = append(a, [3]int{n - 1 - r.Instance, r.Edge, r.Column})
	}
	for _, r := range warm.Working.Hard {
		b = append(b, [3]int{r.Instance, r.Edge, r.Column})
	}
	cmp := func(x, y [3]int) int { return slices.Compare(x[:], y[:]) }
	slices.SortFunc(a, cmp)
	slices.SortFunc(b, cmp)
	if !slices.Equal(a, b) {
		t.Errorf("cold run ended with rows %v (renumbered), warm %v", a, b)
	}
	if pc, pw := cold.Final().Primal, warm.Final().Primal; math.Abs(pc-pw) > 2e-5*pc {
		t.Errorf("cold primal %v, warm %v", pc, pw)
	}
}

// A malformed description gets an error naming the set and the entry.
func TestUserSetErrors(t *testing.T) {
	train := propositionToy() // 2 labels, unary dim 1, pairwise dim 2: 10 weights, 4 blocks
	c4 := []PoolRow{{{0, 1}, {1, -1}, {2, -1}, {3, 1}}}
	bad := Instance{Unary: [][]float64{{1, 2}}}
	for _, tc := range []struct {
		set  ConstraintSet
		want string
	}{
		{fixedSpec{"mine", SetSpec{Fixed: []int{2, 10}}}, "constraint set mine: Fixed[1] = 10 is out of range [0,10)"},
		{fixedSpec{"mine", SetSpec{Fixed: []int{-1}}}, "constraint set mine: Fixed[0] = -1 is out of range"},
		{fixedSpec{"mine", SetSpec{Bounds: []Bound{{3, 1}, {11, -1}}}}, "constraint set mine: Bounds[1]: index 11 is out of range [0,10)"},
		{fixedSpec{"mine", SetSpec{Bounds: []Bound{{3, 0}}}}, "constraint set mine: Bounds[0] (index 3): sign 0, want +1 or −1"},
		{fixedSpec{"mine", SetSpec{Pool: &ConstraintPool{}}}, "constraint set mine: pool without rows B"},
		{fixedSpec{"mine", SetSpec{Pool: &ConstraintPool{B: []PoolRow{c4[0], {}}}}}, "constraint set mine: pool row B[1] has no terms"},
		{fixedSpec{"mine", SetSpec{Pool: &ConstraintPool{B: []PoolRow{c4[0], {{0, 1}, {4, -1}}}}}}, "constraint set mine: pool row B[1]: term 1 names block 4, out of range [0,4)"},
		{fixedSpec{"mine", SetSpec{Pool: &ConstraintPool{B: []PoolRow{{{-1, 1}}}}}}, "constraint set mine: pool row B[0]: term 0 names block -1, out of range"},
		{fixedSpec{"mine", SetSpec{Pool: &ConstraintPool{B: []PoolRow{{{0, 1}, {1, math.NaN()}}}}}}, "constraint set mine: pool row B[0]: term 1 (block 1) is NaN"},
		{fixedSpec{"mine", SetSpec{Pool: &ConstraintPool{B: []PoolRow{{{0, 1}, {2, math.Inf(-1)}}}}}}, "constraint set mine: pool row B[0]: term 1 (block 2) is -Inf"},
		{fixedSpec{"mine", SetSpec{Pool: &ConstraintPool{B: c4, Identity: true, Extra: train}}}, "constraint set mine: an identity pool has no edges"},
		{fixedSpec{"mine", SetSpec{Pool: &ConstraintPool{B: c4, Extra: []Instance{train[0], bad}}}}, "constraint set mine: pool Extra: instance 1: node 0: unary feature dimension 2, expected 1"},
		{fixedSpec{"", SetSpec{}}, "constraint set of type psub.fixedSpec has an empty name"},
		{fixedSpec{"C4", SetSpec{}}, `constraint set of type psub.fixedSpec is named "C4", as the paper's set`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, _, err := Train(propositionToy(), 2, Settings{Set: tc.set})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// The paper's sets keep their names, through pointers too.
	if _, _, err := Train(train, 2, Settings{Set: &C4{}}); err != nil {
		t.Errorf("*C4: %v", err)
	}
}

// countingMethod is brute force that counts its calls.
type countingMethod struct{ calls atomic.Int64 }

func (m *countingMethod) Name() string { return "counting" }

func (m *countingMethod) Minimize(e *inference.Energy) (inference.Result, error) {
	m.calls.Add(1)
	return inference.BruteForce{}.Minimize(e)
}

// SetSpec.Submodular chooses the training-time inference once the whole
// pool is enforced: Tuning.SubmodularInference for a set that promises
// submodular training edges, Tuning.UnconstrainedInference otherwise.
func TestUserSetSubmodularPromise(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 8))
	train := repulsiveSet(rng, 4, 8)
	for _, tc := range []struct {
		set     ConstraintSet
		promise bool
	}{{renamedC4{}, true}, {thresholdC4{T: 0.5}, false}} {
		sub, unc := &countingMethod{}, &countingMethod{}
		trainSet(t, train, Settings{C: 10, Tol: 1e-4, Set: tc.set, Tuning: Tuning{SubmodularInference: sub, UnconstrainedInference: unc}})
		if got := sub.calls.Load() > 0 && unc.calls.Load() == 0; got != tc.promise {
			t.Errorf("%s: %d submodular and %d unconstrained inference calls, want only the %v ones",
				tc.set.Name(), sub.calls.Load(), unc.calls.Load(), map[bool]string{true: "submodular", false: "unconstrained"}[tc.promise])
		}
		if !tc.promise && sub.calls.Load() > 0 {
			t.Errorf("%s: %d submodular inference calls for a set that promises nothing", tc.set.Name(), sub.calls.Load())
		}
	}
}

// A set with Keep trains the same weights on sparse instances as on dense
// ones: Keep sees every edge's features densely either way, and the kept
// rows stay in the instance's own form.
func TestUserSetSparseInstances(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 8))
	dense := smoothSet(rng, 5, 10, 3, 2)
	sparse := make([]Instance, len(dense))
	for i := range dense {
		sparse[i] = dense[i]
		sparse[i].Sparsify()
		if sparse[i].PairwiseSparse == nil || sparse[i].Pairwise != nil {
			t.Fatalf("instance %d was not made sparse", i)
		}
	}
	for _, set := range []ConstraintSet{thresholdC4{T: 0.5}, renamedC4{}} {
		s := Settings{C: 10, Tol: 1e-4, Set: set}
		md, td := trainSet(t, dense, s)
		ms, ts := trainSet(t, sparse, s)
		if !slices.Equal(md.W, ms.W) || td.Iters != ts.Iters || td.Margins != ts.Margins {
			t.Errorf("%s: sparse instances train other weights (%d/%d iterations, %d/%d margins)", set.Name(), td.Iters, ts.Iters, td.Margins, ts.Margins)
		}
	}
}
