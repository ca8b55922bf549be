package retina

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
)

// randomBinary is a binary energy on n nodes with a random spanning tree
// plus extra edges and costs in [-2, 2]: many edges are non-submodular,
// so roof duality leaves nodes unlabelled.
func randomBinary(rng *rand.Rand, n, extra int) *inference.Energy {
	var edges [][2]int
	for i := 1; i < n; i++ {
		edges = append(edges, [2]int{rng.IntN(i), i})
	}
	for range extra {
		a, b := rng.IntN(n), rng.IntN(n)
		if a != b {
			edges = append(edges, [2]int{min(a, b), max(a, b)})
		}
	}
	e := inference.NewEnergy(n, 2, edges)
	for i := range e.Unary {
		e.Unary[i] = 4*rng.Float64() - 2
	}
	for i := range e.Pairwise {
		e.Pairwise[i] = 4*rng.Float64() - 2
	}
	return e
}

// TestQPBOCompletionAgainstBruteForce checks the three rules on random
// energies against exhaustive search: every labelling is complete and its
// Energy is E(Labels); no rule goes below the minimum; "zero" is roof
// duality's labels with 0 elsewhere; "pystruct" never ends above "zero"
// (its first move is that labelling, and its moves never raise E) and finds
// the minimum of a submodular energy. Some energies must leave nodes
// unlabelled and some must be improved by the "pystruct" rule, or the test
// checks nothing.
func TestQPBOCompletionAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 44))
	unlabelled, improved := 0, 0
	for c := range 300 {
		n := 2 + rng.IntN(10)
		e := randomBinary(rng, n, rng.IntN(2*n))
		if c%4 == 0 { // submodular: roof duality is exact
			for k := range e.Edges {
				p := e.Pairwise[4*k : 4*k+4]
				if d := p[0] + p[3] - p[1] - p[2]; d > 0 {
					p[1] += d
				}
			}
		}
		best, err := inference.BruteForce{}.Minimize(e)
		if err != nil {
			t.Fatal(err)
		}
		x, err := inference.QPBOPartial(e)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]inference.Result{}
		for _, rule := range CompletionRules {
			r, err := QPBOCompletion{Rule: rule, Seed: 1}.Minimize(e)
			if err != nil {
				t.Fatalf("case %d %s: %v", c, rule, err)
			}
			if len(r.Labels) != n || math.Abs(r.Energy-e.Eval(r.Labels)) > 1e-9 {
				t.Fatalf("case %d %s: %d labels, energy %v vs E(labels) %v", c, rule, len(r.Labels), r.Energy, e.Eval(r.Labels))
			}
			if r.Energy < best.Energy-1e-9 {
				t.Fatalf("case %d %s: energy %v below the minimum %v", c, rule, r.Energy, best.Energy)
			}
			got[rule] = r
		}
		for i, v := range x {
			if want := max(v, 0); got[CompleteZero].Labels[i] != want {
				t.Fatalf("case %d: zero rule gives node %d label %d, want %d (partial %v)", c, i, got[CompleteZero].Labels[i], want, x)
			}
		}
		z, p := got[CompleteZero].Energy, got[CompletePyStruct].Energy
		if p > z+1e-9 {
			t.Fatalf("case %d: pystruct rule ends at %v above the zero rule's %v", c, p, z)
		}
		if c%4 == 0 && math.Abs(p-best.Energy) > 1e-9 {
			t.Fatalf("case %d: submodular energy, pystruct rule %v, minimum %v", c, p, best.Energy)
		}
		if got[CompleteZero].Unlabelled > 0 {
			unlabelled++
		}
		if p < z-1e-9 {
			improved++
		}
	}
	if unlabelled < 20 || improved < 5 {
		t.Fatalf("%d energies left nodes unlabelled, %d improved by the pystruct rule: the test is too easy", unlabelled, improved)
	}
}

// TestImproveNeverRaisesEnergy runs single QPBO-I passes from random
// labellings with random pins: E never rises, pins hold, every node ends
// labelled.
func TestImproveNeverRaisesEnergy(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 44))
	for c := range 200 {
		n := 2 + rng.IntN(12)
		e := randomBinary(rng, n, rng.IntN(2*n))
		y, pin := make([]int, n), make([]int, n)
		for i := range y {
			y[i], pin[i] = rng.IntN(2), -1
			if rng.IntN(4) == 0 {
				pin[i] = y[i]
			}
		}
		held := append([]int(nil), pin...)
		before := e.Eval(y)
		if _, err := improve(e, y, pin, rng); err != nil {
			t.Fatal(err)
		}
		if after := e.Eval(y); after > before+1e-9 {
			t.Fatalf("case %d: energy rose from %v to %v", c, before, after)
		}
		for i, l := range held {
			if l >= 0 && y[i] != l {
				t.Fatalf("case %d: pinned node %d moved from %d to %d", c, i, l, y[i])
			}
		}
	}
}

func TestQPBOCompletionErrors(t *testing.T) {
	e := inference.NewEnergy(2, 2, [][2]int{{0, 1}})
	if _, err := (QPBOCompletion{Rule: "median"}).Minimize(e); err == nil || !strings.Contains(err.Error(), "median") {
		t.Errorf("unknown rule: %v", err)
	}
	e3 := inference.NewEnergy(2, 3, [][2]int{{0, 1}})
	if _, err := (QPBOCompletion{Rule: CompleteZero}).Minimize(e3); err == nil || !strings.Contains(err.Error(), "3 labels") {
		t.Errorf("three labels: %v", err)
	}
}
