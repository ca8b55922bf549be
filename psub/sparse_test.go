package psub

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// sparsified returns copies of set with both feature matrices sparse
// (the dense rows are left untouched).
func sparsified(set []Instance) []Instance {
	out := make([]Instance, len(set))
	for i := range set {
		out[i] = set[i]
		out[i].Sparsify()
	}
	return out
}

// zeroOut sets about frac of the features of set to zero, some rows
// entirely, so that sparse rows have empty rows, tails past the last
// multiple of 4 and runs of zeros.
func zeroOut(rng *rand.Rand, set []Instance, frac float64) {
	for i := range set {
		for _, rows := range [][][]float64{set[i].Unary, set[i].Pairwise} {
			for r, row := range rows {
				all := rng.IntN(10) == 0
				for j := range row {
					if all || rng.Float64() < frac {
						rows[r][j] = 0
					}
				}
			}
		}
	}
}

// TestSparseTrainsSameWeights trains random problems from dense and from
// sparse features and wants the same weights, objectives and trace bit for
// bit: the learner's products skip zeros in both forms and the sparse
// form adds its non-zeros into the same partial sums as dense dot.
func TestSparseTrainsSameWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	binary := smoothSet(rng, 6, 14, 7, 2)
	zeroOut(rng, binary, 0.6)
	three := smoothSet(rng, 4, 10, 5, 3)
	zeroOut(rng, three, 0.5)
	multi := multiLabelSet(rng, 20, 5, 6, 3) // Kronecker rows, sparse pool
	cases := []struct {
		name   string
		set    []Instance
		labels int
		s      Settings
	}{
		{"C4", binary, 2, Settings{C: 3}},
		{"C4 delayed tight", binary, 2, Settings{C: 3, Delayed: true, Tuning: Tuning{TightBounds: true}}},
		{"C2 cache", binary, 2, Settings{C: 3, Set: C2{}, Tuning: Tuning{Cache: 3}}},
		{"unconstrained", binary, 2, Settings{C: 1, Set: Unconstrained{}}},
		{"C4 3 labels", three, 3, Settings{C: 2, MaxIter: 30}},
		{"C4 tied", three, 3, Settings{C: 2, Tied: true, MaxIter: 30}},
		{"C4 multi-label", multi, 2, Settings{C: 0.5, Delayed: true, Tuning: Tuning{AddK: 20}}},
		{"C4bar multi-label", multi[:10], 2, Settings{C: 0.5, Set: C4Bar{Test: multi[10:]}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.s.Workers = 2
			dm, dt, err := Train(c.set, c.labels, c.s)
			if err != nil {
				t.Fatal(err)
			}
			sp := c.s
			if cb, ok := sp.Set.(C4Bar); ok {
				sp.Set = C4Bar{Test: sparsified(cb.Test)}
			}
			sm, st, err := Train(sparsified(c.set), c.labels, sp)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(dm.W, sm.W) {
				t.Fatalf("weights differ: dense %v\nsparse %v", dm.W[:8], sm.W[:8])
			}
			if dt.Iters != st.Iters || dt.HardIntroduced != st.HardIntroduced || dt.Margins != st.Margins {
				t.Fatalf("traces differ: dense %d iterations, %d hard, %d margins; sparse %d, %d, %d",
					dt.Iters, dt.HardIntroduced, dt.Margins, st.Iters, st.HardIntroduced, st.Margins)
			}
			for k := range dt.Iterations {
				a, b := dt.Iterations[k], st.Iterations[k]
				if a.Primal != b.Primal || a.Dual != b.Dual || a.Loss != b.Loss {
					t.Fatalf("iteration %d: dense primal %v dual %v loss %v, sparse %v %v %v", k, a.Primal, a.Dual, a.Loss, b.Primal, b.Dual, b.Loss)
				}
			}
			if dt.Iters < 2 {
				t.Fatalf("only %d iterations: the test needs a real fit", dt.Iters)
			}
		})
	}
}

// TestSparseModelFunctions checks the model's functions of an instance on
// both forms against each other and against sums written out here.
func TestSparseModelFunctions(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 2))
	for trial := range 20 {
		labels := 2 + trial%3
		du, dp := 1+rng.IntN(11), 1+rng.IntN(9) // tails of 0–3 past a multiple of 4
		in := randomInstance(rng, 2+rng.IntN(8), rng.IntN(6), du, dp, labels)
		set := []Instance{in}
		zeroOut(rng, set, 0.5)
		sp := sparsified(set)[0]
		l := Layout{Labels: labels, UnaryDim: du, PairwiseDim: dp, Tied: trial%2 == 1}
		w := randomW(rng, l.Dim())
		if a, b := l.Compatibility(w, &in, in.Labels), l.Compatibility(w, &sp, in.Labels); a != b {
			t.Fatalf("trial %d: compatibility dense %v sparse %v", trial, a, b)
		}
		ref := 0.0
		for k, row := range in.Unary {
			for j, v := range row {
				ref += w[l.UnaryIndex(in.Labels[k], j)] * v
			}
		}
		for e, ed := range in.Edges {
			for j, v := range in.Pairwise[e] {
				ref += w[l.PairwiseIndex(in.Labels[ed[0]], in.Labels[ed[1]], j)] * v
			}
		}
		if c := l.Compatibility(w, &sp, in.Labels); math.Abs(c-ref) > 1e-12*math.Max(1, math.Abs(ref)) {
			t.Fatalf("trial %d: compatibility %v, written out %v", trial, c, ref)
		}
		da, sa := make([]float64, l.Dim()), make([]float64, l.Dim())
		l.JointFeature(da, &in, in.Labels, 0.5)
		l.JointFeature(sa, &sp, in.Labels, 0.5)
		if !reflect.DeepEqual(da, sa) {
			t.Fatalf("trial %d: joint features differ", trial)
		}
		L := labels
		du1, dp1 := make([]float64, in.Nodes()*L), make([]float64, len(in.Edges)*L*L)
		su1, sp1 := make([]float64, in.Nodes()*L), make([]float64, len(in.Edges)*L*L)
		l.Potentials(w, &in, du1, dp1)
		l.Potentials(w, &sp, su1, sp1)
		if !reflect.DeepEqual(du1, su1) || !reflect.DeepEqual(dp1, sp1) {
			t.Fatalf("trial %d: potentials differ", trial)
		}
		b1, t1 := l.NonSubmodularEdges(w, set, 1e-7)
		b2, t2 := l.NonSubmodularEdges(w, []Instance{sp}, 1e-7)
		if b1 != b2 || t1 != t2 || t1 != len(in.Edges) {
			t.Fatalf("trial %d: non-submodular edges dense %d/%d, sparse %d/%d", trial, b1, t1, b2, t2)
		}
		m := &Model{Layout: l, W: w}
		dy, err := m.Predict(&in)
		if err != nil {
			t.Fatal(err)
		}
		sy, err := m.Predict(&sp)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(dy, sy) {
			t.Fatalf("trial %d: predictions differ", trial)
		}
		if !reflect.DeepEqual(sp.DenseUnary(), in.Unary) || !reflect.DeepEqual(sp.DensePairwise(), in.Pairwise) {
			t.Fatalf("trial %d: DenseUnary, DensePairwise differ from the rows", trial)
		}
		back := sp
		back.Densify()
		if !reflect.DeepEqual(back.Unary, in.Unary) || !reflect.DeepEqual(back.Pairwise, in.Pairwise) {
			t.Fatalf("trial %d: Densify does not give the rows back", trial)
		}
	}
}

// TestSparseValidate: malformed sparse matrices are errors naming the
// instance, node or edge; valid ones give the dense form's dimensions.
func TestSparseValidate(t *testing.T) {
	good := func() Instance {
		in := Instance{Name: "g", Unary: [][]float64{{1, 0, 0}, {0, 0, 2}}, Edges: [][2]int{{0, 1}}, Pairwise: [][]float64{{0, 0, 0, 0, 3}}, Labels: []int{0, 1}}
		in.Sparsify()
		return in
	}
	in := good()
	if err := in.Validate(0, -1, -1, 2); err != nil {
		t.Fatal(err)
	}
	if in.Nodes() != 2 || in.UnaryDim() != 3 || in.PairwiseDim() != 5 {
		t.Fatalf("nodes %d, dims %d/%d", in.Nodes(), in.UnaryDim(), in.PairwiseDim())
	}
	cases := []struct {
		name  string
		spoil func(*Instance)
		want  string
	}{
		{"index out of range", func(in *Instance) { in.UnarySparse.Idx[1] = 3 }, "node 1: unary feature index 3 outside [0,3)"},
		{"indices not increasing", func(in *Instance) {
			in.PairwiseSparse = &SparseRows{Dim: 5, Start: []int{0, 2}, Idx: []int32{4, 1}, Val: []float64{1, 1}}
		}, "edge 0: pairwise feature index 1 after 4"},
		{"NaN", func(in *Instance) { in.PairwiseSparse.Val[0] = math.NaN() }, "edge 0: pairwise feature 4 is NaN"},
		{"offsets", func(in *Instance) { in.UnarySparse.Start[2] = 7 }, "not a valid sparse matrix"},
		{"both forms", func(in *Instance) { in.Unary = [][]float64{{1, 0, 0}, {0, 0, 2}} }, "both Unary and UnarySparse"},
		{"rows vs edges", func(in *Instance) { in.PairwiseSparse.AppendRow(nil, nil) }, "1 edges but 2 pairwise feature rows"},
		{"dimension", func(in *Instance) { in.UnarySparse.Dim = 4 }, "unary feature dimension 4, expected 3"},
	}
	for _, c := range cases {
		in := good()
		c.spoil(&in)
		err := in.Validate(7, 3, 5, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "instance 7 (g)") {
			t.Errorf("%s: error %v, want one naming instance 7 (g) with %q", c.name, err, c.want)
		}
	}
}

// TestCompact: mostly-zero matrices become sparse, dense ones stay dense.
func TestCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 3))
	set := multiLabelSet(rng, 1, 6, 5, 3)
	in := set[0]
	in.Compact()
	if in.UnarySparse == nil || in.PairwiseSparse == nil || in.Unary != nil || in.Pairwise != nil {
		t.Fatal("Kronecker rows stayed dense")
	}
	d := randomInstance(rng, 5, 3, 4, 4, 2)
	d.Compact()
	if d.UnarySparse != nil || d.PairwiseSparse != nil {
		t.Fatal("dense rows became sparse")
	}
	in.Compact() // and back only when denser
	if in.UnarySparse == nil {
		t.Fatal("a sparse matrix became dense")
	}
}
