package psub

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// featureDiffTouched visits only the edges at changed nodes and must add
// the same terms in the same order as featureDiff, which visits every
// edge: bit-equal sums, for few and for many changed labels, two and three
// labels, tied and untied, reusing one scratch across calls.
func TestFeatureDiffTouched(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 1))
	var sc diffScratch
	few, many := 0, 0
	for c := 0; c < 200; c++ {
		labels := 2 + c%2
		l := Layout{Labels: labels, UnaryDim: 3, PairwiseDim: 4, Tied: c%3 == 0}
		in := randomInstance(rng, 40+rng.IntN(40), 60, 3, 4, labels)
		f := instFeatures{unary: newCSR(in.Unary), pairwise: newCSR(in.Pairwise), adj: newEdgeAdj(in.Nodes(), in.Edges)}
		y := append([]int(nil), in.Labels...)
		z := append([]int(nil), y...)
		// A few changed nodes (the touched path) or many (featureDiff's).
		changes := 1 + rng.IntN(4)
		if c%4 == 0 {
			changes = in.Nodes() / 2
		}
		for k := 0; k < changes; k++ {
			z[rng.IntN(len(z))] = rng.IntN(labels)
		}
		if 8*countDiff(y, z) > len(y) {
			many++
		} else {
			few++
		}
		want := make([]float64, l.Dim())
		got := make([]float64, l.Dim())
		for i := range want {
			want[i] = rng.NormFloat64()
		}
		copy(got, want)
		l.featureDiff(want, &in, &f, y, z)
		l.featureDiffTouched(got, &in, &f, y, z, &sc)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d (%d of %d nodes changed): featureDiffTouched differs from featureDiff", c, countDiff(y, z), len(y))
		}
		if slices.Contains(sc.mark, true) {
			t.Fatalf("case %d: scratch marks left set", c)
		}
	}
	if few == 0 || many == 0 {
		t.Fatalf("cases with few changes %d, with many %d: both paths must be exercised", few, many)
	}
}

func countDiff(y, z []int) int {
	n := 0
	for k := range y {
		if y[k] != z[k] {
			n++
		}
	}
	return n
}

// newEdgeAdj lists every edge at both its ends, in increasing order.
func TestEdgeAdj(t *testing.T) {
	edges := [][2]int{{0, 1}, {2, 1}, {1, 3}, {3, 0}}
	a := newEdgeAdj(5, edges)
	want := [][]int32{{0, 3}, {0, 1, 2}, {1}, {2, 3}, {}}
	for k, w := range want {
		if got := a.edge[a.start[k]:a.start[k+1]]; !slices.Equal(got, w) {
			t.Errorf("node %d: edges %v, want %v", k, got, w)
		}
	}
}

// The per-iteration fast paths (one worker run inline, no goroutine hand-
// off; fillCut's products written out; the planes' edges found through the
// changed nodes; the graph kept without comparing edges) reach the optimum
// the enumeration of every labelling certifies, with one worker and with
// two, and the two fits agree within the tolerance: each one's primal is
// at most the other's dual plus its gap.
func TestFastPathsCertified(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 3
	}
	for seed := 0; seed < seeds; seed++ {
		rng := rand.New(rand.NewPCG(uint64(300+seed), 43))
		train := smoothSet(rng, 4+rng.IntN(5), 6+rng.IntN(3), 3, 2)
		for _, v := range []struct {
			name string
			s    Settings
		}{
			{"C4", Settings{Set: C4{}}},
			{"C4 delayed", Settings{Set: C4{}, Delayed: true}},
			{"C4 delayed cache", Settings{Set: C4{}, Delayed: true, Tuning: Tuning{Cache: 3}}},
			{"C1", Settings{Set: C1{}}},
		} {
			const tol = 1e-3
			var fins []Iteration
			for _, workers := range []int{1, 2} {
				s := v.s
				s.C, s.Tol, s.Workers = 10, tol, workers
				name := fmt.Sprintf("seed %d %s workers %d", seed, v.name, workers)
				m, tr, err := Train(train, 2, s)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !tr.Converged {
					t.Fatalf("%s: stopped by %v after %d iterations", name, tr.Stop, tr.Iters)
				}
				checkReturned(t, name, m, tr, tol, func(w []float64) float64 {
					return refPrimal(w, s.C, 2, train, false)
				})
				fins = append(fins, tr.Final())
			}
			for a := 0; a < 2; a++ {
				p, d := fins[a].Primal, fins[1-a].Dual
				if p-d > tol*p*(1+1e-9) {
					t.Errorf("seed %d %s: primal %.9g of one fit above the other's dual %.9g by more than Tol", seed, v.name, p, d)
				}
			}
		}
	}
}
