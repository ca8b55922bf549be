package inference

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	good := func() *Energy { return NewEnergy(3, 2, [][2]int{{0, 1}, {1, 2}}) }
	tests := []struct {
		name string
		mod  func(e *Energy)
		want string // substring of the error; "" means no error
	}{
		{"ok", func(e *Energy) {}, ""},
		{"nan unary", func(e *Energy) { e.Unary[3] = math.NaN() }, "node 1 label 1"},
		{"inf pairwise", func(e *Energy) { e.Pairwise[4+2] = math.Inf(1) }, "edge 1 (1,2) labels (1,0)"},
		{"edge out of range", func(e *Energy) { e.Edges[1] = [2]int{1, 3} }, "edge 1 (1,3): node out of range"},
		{"negative node", func(e *Energy) { e.Edges[0] = [2]int{-1, 0} }, "edge 0 (-1,0)"},
		{"self-loop", func(e *Energy) { e.Edges[0] = [2]int{2, 2} }, "edge 0 (2,2): self-loop"},
		{"unary size", func(e *Energy) { e.Unary = e.Unary[:5] }, "not a multiple of Labels"},
		{"pairwise size", func(e *Energy) { e.Pairwise = e.Pairwise[:7] }, "len(Pairwise) = 7"},
		{"labels mismatch", func(e *Energy) { e.Labels = 4 }, "not a multiple of Labels = 4"},
		{"pairwise for wrong label count", func(e *Energy) { e.Labels = 3 }, "len(Pairwise) = 8"},
		{"labels zero", func(e *Energy) { e.Labels = 0 }, "Labels = 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := good()
			tc.mod(e)
			err := e.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			// Every method must refuse it, not panic.
			for _, m := range allMethods() {
				if _, err := m.Minimize(e); err == nil {
					t.Errorf("%s accepted an invalid energy", m.Name())
				}
			}
		})
	}
}

func TestSubmodular(t *testing.T) {
	tests := []struct {
		name  string
		L     int
		table []float64
		want  bool
	}{
		{"binary attractive", 2, []float64{0, 1, 1, 0}, true},
		{"binary repulsive", 2, []float64{1, 0, 0, 1}, false},
		{"binary modular", 2, []float64{1, 2, 3, 4}, true},
		{"potts 3", 3, []float64{0, 1, 1, 1, 0, 1, 1, 1, 0}, true},
		{"one bad pair", 3, []float64{0, 1, 1, 1, 0, 0, 1, 0, 5}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEnergy(2, tc.L, [][2]int{{0, 1}})
			copy(e.Pairwise, tc.table)
			if got := e.Submodular(0); got != tc.want {
				t.Fatalf("Submodular = %v, want %v", got, tc.want)
			}
			if got := len(e.NonSubmodularEdges()); got != map[bool]int{true: 0, false: 1}[tc.want] {
				t.Fatalf("NonSubmodularEdges has %d", got)
			}
		})
	}
}

func TestBruteForceMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for c := 0; c < cases(100, 500); c++ {
		L := 2 + rng.IntN(3)
		n := 1 + rng.IntN(7)
		if L > 2 {
			n = 1 + rng.IntN(5)
		}
		e := randomEnergy(rng, n, L, randomGraph(rng, n, rng.IntN(2*n)))
		want, _ := optimum(e, 0)
		r, err := BruteForce{}.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, "bruteforce", e, r)
		if !near(r.Energy, want) || !r.Exact || r.LowerBound != r.Energy {
			t.Fatalf("case %d: bruteforce %v (exact %v), enumeration %v", c, r.Energy, r.Exact, want)
		}
	}
}

func TestBruteForceTooLarge(t *testing.T) {
	// 3^14 = 4782969 > 2^22 = 4194304 >= 3^13.
	_, err := BruteForce{}.Minimize(NewEnergy(14, 3, nil))
	if err == nil || !strings.Contains(err.Error(), "MaxStates") {
		t.Fatalf("err = %v, want a MaxStates error", err)
	}
	if _, err := (BruteForce{MaxStates: 1000}).Minimize(NewEnergy(7, 3, nil)); err == nil {
		t.Fatal("3^7 = 2187 states accepted with MaxStates 1000")
	}
	if _, err := (BruteForce{MaxStates: 2187}).Minimize(NewEnergy(7, 3, nil)); err != nil {
		t.Fatalf("3^7 states with MaxStates 2187: %v", err)
	}
}

func TestICMLocalMinimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for c := 0; c < cases(50, 300); c++ {
		L := 2 + rng.IntN(3)
		n := 2 + rng.IntN(20)
		e := randomEnergy(rng, n, L, randomGraph(rng, n, rng.IntN(2*n)))
		init := make([]int, n)
		for i := range init {
			init[i] = rng.IntN(L)
		}
		r, err := ICM{Init: init}.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, "icm", e, r)
		if r.Energy > e.Eval(init)+1e-12 {
			t.Fatalf("ICM raised the energy: %v > %v", r.Energy, e.Eval(init))
		}
		y := append([]int(nil), r.Labels...)
		for i := range y {
			for k := 0; k < L; k++ {
				old := y[i]
				y[i] = k
				if e.Eval(y) < r.Energy-1e-9 {
					t.Fatalf("case %d: node %d label %d improves ICM's result", c, i, k)
				}
				y[i] = old
			}
		}
	}
}

func TestTRWSBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, tc := range []struct {
		name   string
		labels int
		maxN   int
		tree   bool
	}{
		{"binary loopy", 2, 10, false},
		{"3-label loopy", 3, 7, false},
		{"binary tree", 2, 10, true},
		{"4-label tree", 4, 6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for c := 0; c < cases(50, 300); c++ {
				n := 1 + rng.IntN(tc.maxN)
				extra := rng.IntN(2 * n)
				if tc.tree {
					extra = 0
				}
				e := randomEnergy(rng, n, tc.labels, randomGraph(rng, n, extra))
				opt, _ := optimum(e, 0)
				r, err := TRWS{}.Minimize(e)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, "trws", e, r)
				if r.LowerBound > opt+1e-9 || opt > r.Energy+1e-9 {
					t.Fatalf("case %d: bound %v, optimum %v, energy %v", c, r.LowerBound, opt, r.Energy)
				}
				if r.Exact && !near(r.Energy, opt) {
					t.Fatalf("case %d: Exact but energy %v != optimum %v", c, r.Energy, opt)
				}
				// On trees TRW-S is exact: the bound reaches the optimum.
				if tc.tree && (!near(r.LowerBound, opt) || !near(r.Energy, opt)) {
					t.Fatalf("case %d (tree): bound %v, energy %v, optimum %v", c, r.LowerBound, r.Energy, opt)
				}
			}
		})
	}
}

func TestTRWSDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	e := randomEnergy(rng, 60, 3, randomGraph(rng, 60, 100))
	a, _ := TRWS{MaxIter: 20}.Minimize(e)
	b, _ := TRWS{MaxIter: 20}.Minimize(e)
	if a.Energy != b.Energy || a.LowerBound != b.LowerBound || a.Iterations != b.Iterations {
		t.Fatalf("two runs differ: %+v vs %+v", a, b)
	}
}

func TestEmptyEnergy(t *testing.T) {
	e := NewEnergy(0, 2, nil)
	for _, m := range allMethods() {
		r, err := m.Minimize(e)
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		if len(r.Labels) != 0 || r.Energy != 0 {
			t.Fatalf("%s: %+v", m.Name(), r)
		}
	}
}

func allMethods() []Method {
	return []Method{BruteForce{}, ICM{}, TRWS{}, GraphCut{}, TruncatedGraphCut{}, QPBO{}, AlphaExpansion{}, AlphaBetaSwap{}}
}

// Finite costs whose differences overflow must give an error, not a panic
// inside max-flow.
func TestOverflowingCosts(t *testing.T) {
	e := NewEnergy(2, 2, [][2]int{{0, 1}})
	e.Unary[0], e.Unary[1] = -math.MaxFloat64, math.MaxFloat64
	for _, m := range []Method{GraphCut{}, TruncatedGraphCut{}, QPBO{}, AlphaExpansion{}, AlphaBetaSwap{}} {
		if _, err := m.Minimize(e); err == nil || !strings.Contains(err.Error(), "node 0: costs too large") {
			t.Errorf("%s: err = %v", m.Name(), err)
		}
	}
	e.Unary[0], e.Unary[1] = 0, 0
	copy(e.Table(0), []float64{-math.MaxFloat64, math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64})
	for _, m := range []Method{GraphCut{}, QPBO{}} {
		if _, err := m.Minimize(e); err == nil || !strings.Contains(err.Error(), "costs too large") {
			t.Errorf("%s: err = %v", m.Name(), err)
		}
	}
}

func TestParseMethod(t *testing.T) {
	for _, name := range MethodNames() {
		m, err := ParseMethod(name)
		if err != nil || m.Name() != name {
			t.Fatalf("ParseMethod(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := ParseMethod("gc"); err == nil || !strings.Contains(err.Error(), `"gc"`) {
		t.Fatalf("err = %v", err)
	}
}

// One Method value used from several goroutines on different energies gives
// the same results as sequential use (run with -race to check for sharing).
func TestConcurrentUse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var es []*Energy
	for k := 0; k < 8; k++ {
		es = append(es, randomEnergy(rng, 30, 2, randomGraph(rng, 30, 40)))
	}
	for _, m := range []Method{TruncatedGraphCut{}, QPBO{}, TRWS{MaxIter: 30}, AlphaExpansion{}, AlphaBetaSwap{}, ICM{}} {
		want := make([]float64, len(es))
		for k, e := range es {
			r, err := m.Minimize(e)
			if err != nil {
				t.Fatal(err)
			}
			want[k] = r.Energy
		}
		got := make([]float64, len(es))
		done := make(chan struct{})
		for k, e := range es {
			go func() {
				defer func() { done <- struct{}{} }()
				r, err := m.Minimize(e)
				if err == nil {
					got[k] = r.Energy
				}
			}()
		}
		for range es {
			<-done
		}
		for k := range es {
			if got[k] != want[k] {
				t.Fatalf("%s: energy %d: concurrent %v, sequential %v", m.Name(), k, got[k], want[k])
			}
		}
	}
}
