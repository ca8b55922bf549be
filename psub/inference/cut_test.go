package inference

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestGraphCutMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	gc := GraphCut{}
	solver := gc.NewSolver()
	for c := 0; c < cases(300, 3000); c++ {
		n := 1 + rng.IntN(10)
		e := randomEnergy(rng, n, 2, randomGraph(rng, n, rng.IntN(2*n)))
		makeSubmodular(e)
		opt, opts := optimum(e, 1e-9)
		for _, s := range []struct {
			name string
			m    Solver
		}{{"fresh", gc}, {"reused", solver}} {
			r, err := s.m.Minimize(e)
			if err != nil {
				t.Fatalf("case %d %s: %v", c, s.name, err)
			}
			checkResult(t, "graphcut", e, r)
			if !near(r.Energy, opt) || !near(r.LowerBound, opt) || !r.Exact {
				t.Fatalf("case %d %s: graph cut %v (bound %v), optimum %v", c, s.name, r.Energy, r.LowerBound, opt)
			}
			// The returned minimiser is the one with the fewest 1s: its
			// 1s are contained in those of every minimiser.
			for _, o := range opts {
				for i := range o {
					if r.Labels[i] == 1 && o[i] == 0 {
						t.Fatalf("case %d %s: node %d is 1 but minimiser %v has 0", c, s.name, i, o)
					}
				}
			}
		}
	}
}

// Solving energies with the same edges on one Solver must not leak state
// from one solve into the next, also with ties and zero costs.
func TestGraphCutSolverReuseSameEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	n := 9
	edges := randomGraph(rng, n, 12)
	s := GraphCut{}.NewSolver()
	ties := 0
	for c := 0; c < cases(200, 1000); c++ {
		e := randomEnergy(rng, n, 2, edges)
		if c%3 == 0 { // integer costs: many ties
			for i := range e.Unary {
				e.Unary[i] = float64(rng.IntN(3))
			}
			for i := range e.Pairwise {
				e.Pairwise[i] = float64(rng.IntN(3))
			}
		}
		makeSubmodular(e)
		r, err := s.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		opt, opts := optimum(e, 1e-9)
		if len(opts) > 1 {
			ties++
		}
		if !near(r.Energy, opt) {
			t.Fatalf("case %d: reused solver %v, optimum %v", c, r.Energy, opt)
		}
		for _, o := range opts { // fewest 1s, also with ties
			for i := range o {
				if r.Labels[i] == 1 && o[i] == 0 {
					t.Fatalf("case %d: node %d is 1 but minimiser %v has 0", c, i, o)
				}
			}
		}
	}
	if ties == 0 {
		t.Fatal("no case with several minimisers")
	}
}

func TestGraphCutRejectsNonSubmodular(t *testing.T) {
	e := NewEnergy(3, 2, [][2]int{{0, 1}, {1, 2}})
	copy(e.Table(1), []float64{1, 0, 0, 1})
	_, err := GraphCut{}.Minimize(e)
	if err == nil || !strings.Contains(err.Error(), "edge 1 (1,2) is not submodular") {
		t.Fatalf("err = %v", err)
	}
	e3 := NewEnergy(2, 3, [][2]int{{0, 1}})
	if _, err := (GraphCut{}).Minimize(e3); err == nil || !strings.Contains(err.Error(), "3 labels") {
		t.Fatalf("3-label energy: err = %v", err)
	}
}

func TestTGC(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	sawTruncation := 0
	for c := 0; c < cases(300, 3000); c++ {
		n := 1 + rng.IntN(10)
		e := randomEnergy(rng, n, 2, randomGraph(rng, n, rng.IntN(2*n)))
		if c%2 == 0 {
			makeSubmodular(e)
		}
		opt, _ := optimum(e, 0)
		r, err := TruncatedGraphCut{}.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, "tgc", e, r)
		if want := len(e.NonSubmodularEdges()); r.Truncated != want {
			t.Fatalf("case %d: Truncated = %d, non-submodular edges = %d", c, r.Truncated, want)
		}
		if r.Energy < opt-1e-9 || r.LowerBound > opt+1e-9 {
			t.Fatalf("case %d: bound %v, optimum %v, energy %v", c, r.LowerBound, opt, r.Energy)
		}
		if r.Truncated == 0 {
			if !near(r.Energy, opt) || !r.Exact {
				t.Fatalf("case %d: nothing truncated but energy %v != optimum %v", c, r.Energy, opt)
			}
		} else {
			sawTruncation++
			if r.Exact {
				t.Fatalf("case %d: Exact with %d truncated edges", c, r.Truncated)
			}
		}
	}
	if sawTruncation == 0 {
		t.Fatal("no case exercised truncation")
	}
}

// Dynamic graph cuts: a reused Solver on a sequence of energies that differ
// in a few terms (sometimes all) must still be exact.
func TestGraphCutDynamic(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	n := 10
	edges := randomGraph(rng, n, 15)
	for _, m := range []Method{GraphCut{Dynamic: true}, TruncatedGraphCut{Dynamic: true}} {
		t.Run(m.Name(), func(t *testing.T) {
			s := NewSolver(m)
			e := randomEnergy(rng, n, 2, edges)
			for c := 0; c < cases(200, 1000); c++ {
				switch c % 4 {
				case 0: // everything changes
					e = randomEnergy(rng, n, 2, edges)
				case 1: // one unary
					e.Unary[rng.IntN(len(e.Unary))] += rng.NormFloat64()
				case 2: // one table
					j := rng.IntN(len(edges))
					for k := range e.Table(j) {
						e.Table(j)[k] = rng.NormFloat64()
					}
				case 3: // nothing
				}
				if m.Name() == "graphcut" {
					makeSubmodular(e)
				}
				r, err := s.Minimize(e)
				if err != nil {
					t.Fatal(err)
				}
				fresh, _ := m.Minimize(e)
				if !near(r.Energy, fresh.Energy) || r.Truncated != fresh.Truncated || !near(r.LowerBound, fresh.LowerBound) {
					t.Fatalf("case %d: dynamic %+v, fresh %+v", c, r, fresh)
				}
				if r.Truncated == 0 {
					opt, _ := optimum(e, 0)
					if !near(r.Energy, opt) {
						t.Fatalf("case %d: dynamic %v, optimum %v", c, r.Energy, opt)
					}
				}
			}
		})
	}
}
