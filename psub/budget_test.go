package psub

import (
	"math"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/membudget"
)

// chain is an n-node chain with du = dp = 1 and labels k mod labels.
func chain(n, labels int) Instance {
	in := Instance{}
	for k := range n {
		in.Unary = append(in.Unary, []float64{float64(k%3) + 1})
		in.Labels = append(in.Labels, k%labels)
		if k > 0 {
			in.Edges = append(in.Edges, [2]int{k - 1, k})
			in.Pairwise = append(in.Pairwise, []float64{1})
		}
	}
	return in
}

// TestTrainBudget: label counts and constraint pools whose memory cannot
// be real are refused before allocating, with what was asked, the limit
// and how to raise it; the same problems at a sane size train.
func TestTrainBudget(t *testing.T) {
	for _, c := range []struct {
		name   string
		set    ConstraintSet
		n      int // chain nodes
		labels int
		limit  string
		want   string // "" = trains
	}{
		{"label 10^5", C0{}, 3, 100000, "", "memory budget"},
		{"label 10^9", Unconstrained{}, 3, 1000000000, "", "training with 1000000000 labels"},
		{"label 2^40: the weight vector overflows", Unconstrained{}, 3, 1 << 40, "", "overflows"},
		{"C4, 300 labels, 40 nodes: B is sparse", C4{}, 40, 300, "", ""},
		// With one worker, training's vectors and energy tables for 300
		// labels on the 40-node chain take 32.4 MiB, the pool of C4 37.1 MiB
		// (39 edges x 44850 label pairs), C3's and C4bar's more.
		{"C4, 300 labels under 35 MiB", C4{}, 40, 300, "35MiB", "the pool of constraint set C4 with 300 labels (39 edges x 44850 label pairs"},
		{"C3, 300 labels under 35 MiB", C3{}, 40, 300, "35MiB", "the pool of constraint set C3 with 300 labels (39 edges x 90000"},
		{"C4bar, 300 labels under 35 MiB", C4Bar{Test: []Instance{chain(5, 2)}}, 40, 300, "35MiB", "constraint set C4bar with 300 labels (43 edges"},
		{"C4, 3000 labels, 4000 nodes", C4{}, 4000, 3000, "", "training with 3000 labels"},
		{"C4, 3 labels under 1 MB", C4{}, 40, 3, "1MB", ""},
		{"C4, 12 labels, default budget", C4{}, 10, 12, "", ""},
		{"none, 3 labels under 2 KB", Unconstrained{}, 40, 3, "2KB", "memory budget of 2.0 KiB"},
		{"none, 300 labels under 35 MiB", Unconstrained{}, 40, 300, "35MiB", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.want == "" && c.labels >= 300 {
				t.Skip("-short: 300-label trainings take seconds")
			}
			t.Setenv(membudget.Env, c.limit)
			s := Settings{C: 1}
			s.Set, s.MaxIter, s.Workers = c.set, 2, 1
			_, _, err := Train([]Instance{chain(c.n, min(c.labels, 4))}, c.labels, s)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one that says %q", err, c.want)
			}
		})
	}
}

// TestNoPairwiseFeatures: edges whose pairwise rows are [] (dp = 0) train
// and predict under every constraint set; the pool used to build a dense
// P whose rows gonum refused with a panic.
func TestNoPairwiseFeatures(t *testing.T) {
	mk := func(labels int) Instance {
		in := chain(4, labels)
		for e := range in.Pairwise {
			in.Pairwise[e] = []float64{}
		}
		return in
	}
	for _, labels := range []int{2, 3} {
		for _, tied := range []bool{false, true} {
			for _, set := range []ConstraintSet{Unconstrained{}, C0{}, C1{}, C2{}, C2Star{}, C3{}, C4{}, C4Bar{Test: []Instance{mk(labels)}}} {
				in := mk(labels)
				s := Settings{C: 1}
				s.Set, s.Tied, s.MaxIter = set, tied, 5
				m, _, err := Train([]Instance{in, chain(3, labels)}, labels, s)
				if err != nil {
					// chain(3) has pairwise features: a second set of
					// dimension 1 is refused cleanly.
					if !strings.Contains(err.Error(), "pairwise feature dimension") {
						t.Fatalf("%s labels %d tied %v: %v", set.Name(), labels, tied, err)
					}
				}
				m, _, err = Train([]Instance{in, mk(labels)}, labels, s)
				if err != nil {
					t.Fatalf("%s labels %d tied %v: %v", set.Name(), labels, tied, err)
				}
				if _, err := m.Predict(&in); err != nil {
					t.Fatalf("%s: predict: %v", set.Name(), err)
				}
				if _, err := m.NonSubmodularFraction([]Instance{in}, 0); err != nil {
					t.Fatalf("%s: %v", set.Name(), err)
				}
			}
		}
	}
}

// TestLoadCraftedModels: a model file is checked field by field before
// anything of the sizes it declares is allocated or indexed.
func TestLoadCraftedModels(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"2^62 labels", `{"version":1,"labels":4611686018427387904,"unary_dim":1,"pairwise_dim":1,"tied":false,"w":[],"set":"C4","c":1,"loss":"hamming"}`, "overflows"},
		{"2^31 labels, no features", `{"version":1,"labels":2147483648,"unary_dim":0,"pairwise_dim":0,"tied":false,"w":[],"set":"C4","c":1,"loss":"hamming"}`, "2147483648 labels"},
		{"10^5 labels, no features", `{"version":1,"labels":100000,"unary_dim":0,"pairwise_dim":0,"tied":true,"w":[],"set":"C4","c":1,"loss":"hamming"}`, "memory budget"},
		{"2^32 unary dim", `{"version":1,"labels":2,"unary_dim":4294967296,"pairwise_dim":4294967296,"tied":false,"w":[],"set":"C4","c":1,"loss":"hamming"}`, "needs"},
		{"negative unary dim", `{"version":1,"labels":2,"unary_dim":-1,"pairwise_dim":0,"tied":false,"w":[],"set":"C4","c":1,"loss":"hamming"}`, "negative"},
		{"dim 2^62 overflowing to 0", `{"version":1,"labels":2,"unary_dim":4611686018427387904,"pairwise_dim":0,"tied":false,"w":[],"set":"C4","c":1,"loss":"hamming"}`, "overflows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(c.file))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one that says %q", err, c.want)
			}
		})
	}
	// The prediction on a model that loads checks its energy table too.
	t.Setenv(membudget.Env, "1KB")
	m := &Model{Layout: Layout{Labels: 2, UnaryDim: 1, PairwiseDim: 1}, W: make([]float64, 6)}
	in := chain(200, 2)
	if _, err := m.Predict(&in); err == nil || !strings.Contains(err.Error(), "instance 0: the energy of a graph of 200 nodes") {
		t.Fatalf("predict under 1 KB: %v", err)
	}
}

// TestSparseB: the sparse rows of B are the paper's dense ones,
// 1(α)⊗1(α) + 1(β)⊗1(β) − 1(α)⊗1(β) − 1(β)⊗1(α) for C4 and ±1(α)⊗1(β)
// for C3, tied or not, their terms in increasing block order.
func TestSparseB(t *testing.T) {
	for L := 2; L <= 6; L++ {
		for _, tied := range []bool{false, true} {
			l := Layout{Labels: L, UnaryDim: 1, PairwiseDim: 1, Tied: tied}
			dense := func(b bRow) []float64 {
				d := make([]float64, l.Blocks())
				for k, e := range b {
					if k > 0 && e.Block <= b[k-1].Block {
						t.Fatalf("L=%d tied=%v: terms out of order: %v", L, tied, b)
					}
					d[e.Block] = e.C
				}
				return d
			}
			j := 0
			B := submodularRows(l)
			for a := 0; a < L; a++ {
				for b := a + 1; b < L; b++ {
					want := make([]float64, l.Blocks())
					want[l.Block(a, a)]++
					want[l.Block(b, b)]++
					want[l.Block(a, b)]--
					want[l.Block(b, a)]--
					if got := dense(B[j]); !slicesEqual(got, want) {
						t.Fatalf("L=%d tied=%v row (%d,%d): %v, want %v", L, tied, a, b, got, want)
					}
					if math.Abs(B[j].norm()-norm(want)) > 0 {
						t.Fatalf("norm %v, want %v", B[j].norm(), norm(want))
					}
					j++
				}
			}
			if j != len(B) {
				t.Fatalf("%d rows, want %d", len(B), j)
			}
			for k, blk := range blocks(l) {
				want := make([]float64, l.Blocks())
				want[l.Block(blk[0], blk[1])] = -1
				if blk[0] == blk[1] {
					want[l.Block(blk[0], blk[1])] = 1
				}
				if got := dense(signRows(l)[k]); !slicesEqual(got, want) {
					t.Fatalf("C3 row %v: %v, want %v", blk, got, want)
				}
			}
		}
	}
}

func slicesEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
