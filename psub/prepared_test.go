package psub

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
)

// sameFit fails unless two trainings gave the same model and trace bit
// for bit: weights, every iteration's bounds, counters and working set.
func sameFit(t *testing.T, what string, am *Model, at *Trace, bm *Model, bt *Trace, minIters int) {
	t.Helper()
	if !reflect.DeepEqual(am.W, bm.W) {
		t.Fatalf("%s: weights differ", what)
	}
	if at.Iters != bt.Iters || at.HardIntroduced != bt.HardIntroduced || at.Margins != bt.Margins || at.Converged != bt.Converged || at.Stop != bt.Stop {
		t.Fatalf("%s: traces differ: %d iterations, %d hard, %d margins, %v; against %d, %d, %d, %v",
			what, at.Iters, at.HardIntroduced, at.Margins, at.Stop, bt.Iters, bt.HardIntroduced, bt.Margins, bt.Stop)
	}
	for k := range at.Iterations {
		a, b := at.Iterations[k], bt.Iterations[k]
		if a.Primal != b.Primal || a.Dual != b.Dual || a.Loss != b.Loss || a.CacheHit != b.CacheHit {
			t.Fatalf("%s: iteration %d: primal %v dual %v loss %v, against %v %v %v", what, k, a.Primal, a.Dual, a.Loss, b.Primal, b.Dual, b.Loss)
		}
	}
	if !reflect.DeepEqual(at.Working, bt.Working) || !reflect.DeepEqual(at.Warm, bt.Warm) {
		t.Fatalf("%s: working sets or warm starts differ", what)
	}
	if at.Iters < minIters {
		t.Fatalf("%s: only %d iterations: the test needs a real fit", what, at.Iters)
	}
}

// TestTrainPreparedSameModel: training on a prepared set, or a subset of
// one, gives what Train gives on the same instances, bit for bit, for
// dense and sparse input, every kind of pool and a warm-started chain
// along C (whose working sets are matched by the prepared digests).
func TestTrainPreparedSameModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 1))
	binary := smoothSet(rng, 8, 14, 7, 2)
	zeroOut(rng, binary, 0.6) // compacted: Prepare keeps the sparse form
	dense := smoothSet(rng, 6, 12, 5, 2)
	three := smoothSet(rng, 4, 10, 5, 3)
	zeroOut(rng, three, 0.3)
	multi := multiLabelSet(rng, 20, 5, 6, 3)
	sub := []int{5, 0, 3, 1, 6}
	cases := []struct {
		name   string
		set    []Instance
		idx    []int // nil: the whole set
		labels int
		s      Settings
	}{
		{"C4 delayed", binary, nil, 2, Settings{C: 3, Delayed: true}},
		{"C4 dense", dense, nil, 2, Settings{C: 3}},
		{"C4 sparse input", sparsified(binary), nil, 2, Settings{C: 3, Delayed: true, Tuning: Tuning{TightBounds: true}}},
		{"C3 subset", binary, sub, 2, Settings{C: 3, Set: C3{}, Delayed: true}},
		{"C2 cache subset", binary, sub, 2, Settings{C: 3, Set: C2{}, Tuning: Tuning{Cache: 3}}},
		{"C0", binary, nil, 2, Settings{C: 1, Set: C0{}}},
		{"C4 3 labels", three, nil, 3, Settings{C: 2, MaxIter: 30}},
		{"C4 multi-label", multi, nil, 2, Settings{C: 0.5, Delayed: true, Tuning: Tuning{AddK: 20}}},
		{"C4bar multi-label", multi, []int{0, 2, 4, 6, 8, 10, 12}, 2, Settings{C: 0.5, Set: C4Bar{Test: multi[14:]}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.Workers = 2
			p, err := Prepare(c.set, c.labels)
			if err != nil {
				t.Fatal(err)
			}
			plain := c.set
			if c.idx != nil {
				if p, err = p.Subset(c.idx); err != nil {
					t.Fatal(err)
				}
				plain = make([]Instance, len(c.idx))
				for k, i := range c.idx {
					plain[k] = c.set[i]
				}
			}
			am, at, err := Train(plain, c.labels, c.s)
			if err != nil {
				t.Fatal(err)
			}
			bm, bt, err := TrainPrepared(p, c.s)
			if err != nil {
				t.Fatal(err)
			}
			sameFit(t, c.name, am, at, bm, bt, 2)
			// The checkpoint names the same problem.
			ta, err := newTrainer(plain, c.labels, c.s)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := newTrainerOf(p.set, p.labels, p, c.s)
			if err != nil {
				t.Fatal(err)
			}
			if ta.fingerprint() != tb.fingerprint() {
				t.Fatal("checkpoint fingerprints differ")
			}
		})
	}
	t.Run("warm chain", func(t *testing.T) {
		p, err := Prepare(binary, 2)
		if err != nil {
			t.Fatal(err)
		}
		var wa, wb *WorkingSet
		iters, recosted := 0, 0
		for _, c := range []float64{0.3, 1, 3, 10} {
			for _, loss := range []Loss{Hamming{}, ClassAveraged{}} { // re-costed planes: Plane digests
				s := Settings{Set: C4{}, C: c, Delayed: true, Workers: 1, Loss: loss}
				s.Warm = wa
				am, at, err := Train(binary, 2, s)
				if err != nil {
					t.Fatal(err)
				}
				s.Warm = wb
				bm, bt, err := TrainPrepared(p, s)
				if err != nil {
					t.Fatal(err)
				}
				sameFit(t, "warm chain", am, at, bm, bt, 1)
				iters += at.Iters
				if wb != nil {
					if bt.Warm == nil || bt.Warm.Planes == 0 {
						t.Fatalf("C = %g %s: no plane carried over", c, loss.Name())
					}
					recosted += bt.Warm.Recosted
				}
				wa, wb = at.Working, bt.Working
			}
		}
		if iters < 10 || recosted == 0 {
			t.Fatalf("the chain took %d iterations and re-costed %d planes: the test needs real fits and re-costed planes", iters, recosted)
		}
	})
}

// TestEvaluatePreparedSame: a prepared set scores as EvaluateWith does,
// with Predict's inference and another.
func TestEvaluatePreparedSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(48, 1))
	set := smoothSet(rng, 8, 14, 7, 2)
	zeroOut(rng, set, 0.6)
	m, _, err := Train(set[:5], 2, Settings{C: 3, Set: C3{}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(set, 2)
	if err != nil {
		t.Fatal(err)
	}
	test, err := p.Subset([]int{7, 5, 6})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []inference.Method{nil, inference.QPBO{}} {
		want, err := m.EvaluateWith([]Instance{set[7], set[5], set[6]}, method)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.EvaluatePrepared(test, method)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%v: evaluations differ:\n%+v\n%+v", method, want, got)
		}
	}
}

// TestPrepareRefusesAsTrain: a bad instance is refused by Prepare with
// the error Train and ValidateSet give (naming the instance, node or
// edge), and TrainPrepared refuses what Train refuses beyond that.
func TestPrepareRefusesAsTrain(t *testing.T) {
	good := func() []Instance { return smoothSet(rand.New(rand.NewPCG(49, 2)), 4, 8, 3, 2) }
	cases := []struct {
		name  string
		spoil func(set []Instance)
	}{
		{"NaN unary", func(set []Instance) { set[2].Unary[3][1] = math.NaN() }},
		{"Inf pairwise", func(set []Instance) { set[1].Pairwise[4][0] = math.Inf(1) }},
		{"edge out of range", func(set []Instance) { set[3].Edges[2] = [2]int{0, 99} }},
		{"self-loop", func(set []Instance) { set[0].Edges[1] = [2]int{5, 5} }},
		{"repeated edge", func(set []Instance) { set[2].Edges[3] = set[2].Edges[0] }},
		{"unary dimension", func(set []Instance) { set[1].Unary[2] = set[1].Unary[2][:2] }},
		{"pairwise dimension of a later instance", func(set []Instance) {
			for e := range set[3].Pairwise {
				set[3].Pairwise[e] = append(set[3].Pairwise[e], 1)
			}
		}},
		{"label out of range", func(set []Instance) { set[2].Labels[4] = 2 }},
		{"negative label", func(set []Instance) { set[0].Labels[0] = -1 }},
		{"labels count", func(set []Instance) { set[1].Labels = set[1].Labels[:3] }},
		{"empty graph", func(set []Instance) { set[3] = Instance{Name: "empty"} }},
		{"bad sparse rows", func(set []Instance) {
			set[1].Sparsify()
			set[1].UnarySparse.Idx[0] = 7
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := good()
			set[2].Name = "named"
			c.spoil(set)
			_, _, want := Train(set, 2, Settings{C: 1, Workers: 1})
			if want == nil {
				t.Fatal("Train accepted the spoiled set")
			}
			_, _, vErr := ValidateSet(set, 2)
			p, err := Prepare(set, 2)
			if err == nil || err.Error() != want.Error() || vErr == nil || vErr.Error() != want.Error() {
				t.Fatalf("Prepare: %v (%v); Train: %v; ValidateSet: %v", err, p, want, vErr)
			}
		})
	}
	t.Run("trainings Prepare cannot check", func(t *testing.T) {
		unlabelled := good()
		unlabelled[1].Labels = nil
		huge := good()
		for _, row := range huge[2].Unary {
			row[0] = 1e160
		}
		for _, c := range []struct {
			name   string
			set    []Instance
			labels int
			s      Settings
		}{
			{"no labels", unlabelled, 2, Settings{C: 1}},
			{"one label", good(), -1, Settings{C: 1}},
			{"scale", huge, 2, Settings{C: 1e10}},
		} {
			c.s.Workers = 1
			_, _, want := Train(c.set, c.labels, c.s)
			p, err := Prepare(c.set, c.labels)
			if err != nil {
				t.Fatalf("%s: Prepare: %v", c.name, err)
			}
			_, _, got := TrainPrepared(p, c.s)
			if want == nil || got == nil || got.Error() != want.Error() {
				t.Fatalf("%s: TrainPrepared: %v; Train: %v", c.name, got, want)
			}
		}
	})
	t.Run("subsets", func(t *testing.T) {
		p, err := Prepare(good(), 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, idx := range [][]int{{0, 4}, {-1}, {}} {
			if _, err := p.Subset(idx); err == nil {
				t.Errorf("Subset(%v) accepted", idx)
			}
		}
		if _, _, err := TrainPrepared(nil, Settings{}); err == nil {
			t.Error("TrainPrepared(nil) accepted")
		}
	})
}

// TestPreparedOwnsItsInstances: what the caller does to its instances
// after Prepare changes nothing the prepared set trains or scores, and the
// caller's own Train and Evaluate see (and refuse) the change.
func TestPreparedOwnsItsInstances(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 1))
	set := smoothSet(rng, 6, 12, 5, 2)
	zeroOut(rng, set[:3], 0.6) // some mostly zero, some dense
	s := Settings{C: 2, Set: C4{}, Workers: 1}
	p, err := Prepare(set, 2)
	if err != nil {
		t.Fatal(err)
	}
	am, at, err := TrainPrepared(p, s)
	if err != nil {
		t.Fatal(err)
	}
	aev, err := am.EvaluatePrepared(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Another problem in the caller's slices: new features, labels, edges.
	for i := range set {
		for _, row := range set[i].Unary {
			for j := range row {
				row[j] = -row[j]
			}
		}
		for k := range set[i].Labels {
			set[i].Labels[k] = 1 - set[i].Labels[k]
		}
		set[i].Edges[0][0], set[i].Edges[0][1] = set[i].Edges[0][1], set[i].Edges[0][0]
	}
	bm, bt, err := TrainPrepared(p, s)
	if err != nil {
		t.Fatal(err)
	}
	sameFit(t, "after the caller's change", am, at, bm, bt, 2)
	bev, err := bm.EvaluatePrepared(p, nil)
	if err != nil || !reflect.DeepEqual(aev, bev) {
		t.Fatalf("evaluation changed with the caller's instances (%v)", err)
	}
	cm, _, err := Train(set, 2, s)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(cm.W, am.W) {
		t.Fatal("the changed problem trained the same weights: the test changes nothing")
	}
	// Written NaN into the caller's instance: Train refuses it, the
	// prepared set (copied before) still trains.
	set[4].Unary[2][1] = math.NaN()
	if _, _, err := Train(set, 2, s); err == nil {
		t.Fatal("Train accepted a NaN feature")
	}
	if _, err := am.EvaluateWith(set, nil); err == nil {
		t.Fatal("EvaluateWith accepted a NaN feature")
	}
	if _, _, err := TrainPrepared(p, s); err != nil {
		t.Fatal(err)
	}
}

// TestEvaluatePreparedChecksModel: a prepared set that does not fit the
// model (other dimensions, labels beyond the model's) is refused with
// EvaluateWith's error, never scored on the strength of Prepare's check.
func TestEvaluatePreparedChecksModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 1))
	set := smoothSet(rng, 4, 10, 4, 2)
	m, _, err := Train(set, 2, Settings{C: 1, Set: C4{}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	wider := smoothSet(rng, 3, 10, 5, 2)
	three := smoothSet(rng, 3, 10, 4, 3)
	noEdges := []Instance{{Name: "lone", Unary: [][]float64{{1, 0, 0, 1}, {0, 1, 1, 0}}, Edges: [][2]int{}, Pairwise: [][]float64{}, Labels: []int{0, 1}}}
	for _, c := range []struct {
		name   string
		set    []Instance
		labels int
		ok     bool
	}{
		{"other dimensions", wider, 2, false},
		{"three labels for a binary model", three, 3, false},
		{"three labels, prepared unchecked", three, -1, false},
		{"same problem, prepared unchecked", set, -1, true},
		{"no edges", noEdges, 2, true},
	} {
		p, err := Prepare(c.set, c.labels)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want, wErr := m.EvaluateWith(c.set, nil)
		got, gErr := m.EvaluatePrepared(p, nil)
		if (wErr == nil) != c.ok || (gErr == nil) != c.ok {
			t.Fatalf("%s: EvaluateWith: %v, EvaluatePrepared: %v, want ok = %v", c.name, wErr, gErr, c.ok)
		}
		if c.ok && !reflect.DeepEqual(want, got) || !c.ok && wErr.Error() != gErr.Error() {
			t.Fatalf("%s: EvaluatePrepared %v (%v), EvaluateWith %v (%v)", c.name, got.Accuracy, gErr, want.Accuracy, wErr)
		}
	}
}
