package inference

import (
	"math/rand/v2"
	"testing"
)

// Persistency: every node QPBO labels takes that label in some minimiser
// (here, strong persistency: in every minimiser, as the minimal cut gives).
func TestQPBOPersistency(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 20))
	labelled, total := 0, 0
	for c := 0; c < cases(300, 3000); c++ {
		n := 1 + rng.IntN(10)
		e := randomEnergy(rng, n, 2, randomGraph(rng, n, rng.IntN(2*n)))
		if c%3 == 0 { // integer costs: ties and several minimisers
			for i := range e.Unary {
				e.Unary[i] = float64(rng.IntN(5) - 2)
			}
			for i := range e.Pairwise {
				e.Pairwise[i] = float64(rng.IntN(5) - 2)
			}
		}
		opt, opts := optimum(e, 1e-9)
		x, err := QPBOPartial(e)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range x {
			total++
			if v < 0 {
				continue
			}
			labelled++
			for _, o := range opts {
				if o[i] != v {
					t.Fatalf("case %d: node %d labelled %d, minimiser %v has %d", c, i, v, o, o[i])
				}
			}
		}
		r, err := QPBO{}.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, "qpbo", e, r)
		unl := 0
		for i, v := range x {
			if v < 0 {
				unl++
			} else if r.Labels[i] != v {
				t.Fatalf("case %d: completion changed labelled node %d", c, i)
			}
		}
		if r.Unlabelled != unl {
			t.Fatalf("case %d: Unlabelled = %d, partial has %d", c, r.Unlabelled, unl)
		}
		if r.LowerBound > opt+1e-9 || r.Energy < opt-1e-9 {
			t.Fatalf("case %d: bound %v, optimum %v, energy %v", c, r.LowerBound, opt, r.Energy)
		}
		if r.Exact && !near(r.Energy, opt) {
			t.Fatalf("case %d: Exact but energy %v != optimum %v", c, r.Energy, opt)
		}
	}
	if labelled == 0 || labelled == total {
		t.Fatalf("labelled %d of %d nodes: the test does not exercise partial labellings", labelled, total)
	}
	t.Logf("QPBO labelled %d of %d nodes", labelled, total)
}

// On submodular energies with a unique minimiser roof duality is tight:
// everything is labelled and optimal.
func TestQPBOSubmodularLabelsAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	s := QPBO{}.NewSolver()
	for c := 0; c < cases(300, 3000); c++ {
		n := 1 + rng.IntN(10)
		e := randomEnergy(rng, n, 2, randomGraph(rng, n, rng.IntN(2*n)))
		makeSubmodular(e)
		opt, opts := optimum(e, 1e-9)
		if len(opts) != 1 {
			continue
		}
		r, err := s.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		if r.Unlabelled != 0 || !r.Exact || !near(r.Energy, opt) || !near(r.LowerBound, opt) {
			t.Fatalf("case %d: unlabelled %d, energy %v, bound %v, optimum %v", c, r.Unlabelled, r.Energy, r.LowerBound, opt)
		}
	}
}

// A frustrated triangle of repulsive edges with zero unaries: roof duality
// labels nothing (x = ½ everywhere is LP-optimal).
func TestQPBOFrustratedCycle(t *testing.T) {
	e := NewEnergy(3, 2, [][2]int{{0, 1}, {1, 2}, {2, 0}})
	for j := range e.Edges {
		copy(e.Table(j), []float64{1, 0, 0, 1})
	}
	x, err := QPBOPartial(e)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range x {
		if v != -1 {
			t.Fatalf("node %d labelled %d, want unlabelled", i, v)
		}
	}
	r, _ := QPBO{}.Minimize(e)
	if r.Unlabelled != 3 || r.Energy != 1 || r.LowerBound != 0 {
		t.Fatalf("got %+v, want 3 unlabelled, energy 1 (the optimum), bound 0", r)
	}
}

// A reused QPBO Solver keeps its graph while every edge keeps its class
// (submodular / crossing / empty); its partial labelling, which does not
// depend on the flow found, must equal a fresh solve's, and it must stay
// persistent.
func TestQPBOReuseSamePattern(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	n := 10
	edges := randomGraph(rng, n, 15)
	base := randomEnergy(rng, n, 2, edges)
	s := QPBO{}.NewSolver()
	for c := 0; c < cases(100, 500); c++ {
		e := randomEnergy(rng, n, 2, edges)
		for j := range edges {
			f := 0.2 + rng.Float64() // same sign of θ01+θ10−θ00−θ11 as base
			if j == c%len(edges) {
				f = 0 // an empty edge: fits any class
			}
			for k := range e.Table(j) {
				e.Table(j)[k] = f * base.Table(j)[k]
			}
		}
		r, err := s.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := QPBO{}.Minimize(e)
		if r.Unlabelled != fresh.Unlabelled || !near(r.Energy, fresh.Energy) || !near(r.LowerBound, fresh.LowerBound) {
			t.Fatalf("case %d: reused %+v, fresh %+v", c, r, fresh)
		}
		_, opts := optimum(e, 1e-9)
		x, _ := QPBOPartial(e)
		for i, v := range x {
			if v >= 0 && (r.Labels[i] != v || opts[0][i] != v) {
				t.Fatalf("case %d: node %d: partial %d, reused %d, a minimiser %d", c, i, v, r.Labels[i], opts[0][i])
			}
		}
	}
}

// For binary energies the roof-dual bound is the value of the standard LP
// relaxation, and TRW-S converges to that value too (Kolmogorov &
// Wainwright 2005): two independent algorithms must agree.
func TestQPBOBoundEqualsTRWSBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	for c := 0; c < cases(30, 200); c++ {
		n := 2 + rng.IntN(25)
		e := randomEnergy(rng, n, 2, randomGraph(rng, n, rng.IntN(2*n)))
		q, err := QPBO{}.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := TRWS{MaxIter: 5000, Tol: 1e-13}.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		if tr.LowerBound > q.LowerBound+1e-9 || q.LowerBound-tr.LowerBound > 1e-6*(1+abs(q.LowerBound)) {
			t.Fatalf("case %d (n=%d): roof dual %v, TRW-S bound %v after %d iterations", c, n, q.LowerBound, tr.LowerBound, tr.Iterations)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
