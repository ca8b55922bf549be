package inference

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomGraph returns a connected-ish random graph: a random spanning tree
// plus extra edges, no self-loops, possibly parallel edges if allowParallel.
func randomGraph(rng *rand.Rand, n, extra int) [][2]int {
	var edges [][2]int
	for i := 1; i < n; i++ {
		edges = append(edges, [2]int{rng.IntN(i), i})
	}
	for k := 0; k < extra && n > 1; k++ {
		a := rng.IntN(n)
		b := rng.IntN(n - 1)
		if b >= a {
			b++
		}
		edges = append(edges, [2]int{a, b})
	}
	return edges
}

// randomEnergy fills unaries and pairwise tables with N(0,1)·scale costs.
func randomEnergy(rng *rand.Rand, n, labels int, edges [][2]int) *Energy {
	e := NewEnergy(n, labels, edges)
	for i := range e.Unary {
		e.Unary[i] = rng.NormFloat64()
	}
	for i := range e.Pairwise {
		e.Pairwise[i] = rng.NormFloat64()
	}
	return e
}

// makeSubmodular rewrites each binary table so that it is submodular (by
// swapping the roles of agreement and disagreement when needed).
func makeSubmodular(e *Energy) {
	for j := range e.Edges {
		t := e.Table(j)
		if t[0]+t[3] > t[1]+t[2] {
			t[0], t[1] = t[1], t[0]
			t[2], t[3] = t[3], t[2]
		}
	}
}

// pottsEnergy: random nonnegative unaries and w_e·[y_a≠y_b] with w_e >= 0.
func pottsEnergy(rng *rand.Rand, n, labels int, edges [][2]int) *Energy {
	return distanceEnergy(rng, n, labels, edges, func(a, b int) float64 {
		if a != b {
			return 1
		}
		return 0
	})
}

// distanceEnergy: random nonnegative unaries in [0,3) and w_e·d(y_a,y_b)
// with w_e in [0,1) per edge.
func distanceEnergy(rng *rand.Rand, n, labels int, edges [][2]int, d func(a, b int) float64) *Energy {
	e := NewEnergy(n, labels, edges)
	for i := range e.Unary {
		e.Unary[i] = 3 * rng.Float64()
	}
	for j := range edges {
		w := rng.Float64()
		t := e.Table(j)
		for a := 0; a < labels; a++ {
			for b := 0; b < labels; b++ {
				t[a*labels+b] = w * d(a, b)
			}
		}
	}
	return e
}

// allLabellings calls f on every labelling (independent of BruteForce).
func allLabellings(n, labels int, f func(y []int)) {
	y := make([]int, n)
	total := int(math.Pow(float64(labels), float64(n)))
	for c := 0; c < total; c++ {
		x := c
		for i := range y {
			y[i] = x % labels
			x /= labels
		}
		f(y)
	}
}

// optimum returns min E and every labelling within tol of it, by Eval on
// every labelling.
func optimum(e *Energy, tol float64) (float64, [][]int) {
	best := math.Inf(1)
	var vals []float64
	allLabellings(e.Nodes(), e.Labels, func(y []int) {
		v := e.Eval(y)
		vals = append(vals, v)
		best = math.Min(best, v)
	})
	var opts [][]int
	c := 0
	allLabellings(e.Nodes(), e.Labels, func(y []int) {
		if vals[c] <= best+tol {
			opts = append(opts, append([]int(nil), y...))
		}
		c++
	})
	return best, opts
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(a)+math.Abs(b)) }

func checkResult(t *testing.T, name string, e *Energy, r Result) {
	t.Helper()
	if err := e.CheckLabels(r.Labels); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !near(r.Energy, e.Eval(r.Labels)) {
		t.Fatalf("%s: Result.Energy %v != Eval %v", name, r.Energy, e.Eval(r.Labels))
	}
}

func cases(short, long int) int {
	if testing.Short() {
		return short
	}
	return long
}
