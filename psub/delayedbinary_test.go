package psub

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDelayedBinary checks the two-label fast path of computeDelayed
// against the general one (bounds lowered by ‖Δw_p‖·N, then recompute)
// along a random walk of w with steps of several sizes: the same bounds and
// margins bit for bit, the same count of margins computed, and every entry
// at or below 0 equal to its exact margin (computeFull). Its three pools:
// sparse P (cows-shaped features), dense P (planar graphs' 3 edge
// features) and the identity (C2*).
func TestDelayedBinary(t *testing.T) {
	for _, c := range binaryPools() {
		t.Run(c.name, func(t *testing.T) { testDelayedBinary(t, c.train, c.l, c.set, c.sparse) })
	}
}

// binaryPool is a two-label pool the fast paths' tests walk.
type binaryPool struct {
	name   string
	train  []Instance
	l      Layout
	set    ConstraintSet
	sparse bool
}

// binaryPools are sparse P (cows-shaped features), dense P (planar graphs'
// 3 edge features) and the identity (C2*).
func binaryPools() []binaryPool {
	cows := Layout{Labels: 2, UnaryDim: 125, PairwiseDim: 125}
	planar := Layout{Labels: 2, UnaryDim: 3, PairwiseDim: 3}
	return []binaryPool{
		{"sparse", synthCows(4, 6), cows, C4{}, true},
		{"dense", planarSet(4, 3), planar, C4{}, false},
		{"identity", planarSet(4, 3), planar, C2Star{}, false},
	}
}

func testDelayedBinary(t *testing.T, train []Instance, l Layout, set ConstraintSet, sparse bool) {
	mk := func() *pool {
		spec, err := buildSpec(set, l, train)
		if err != nil {
			t.Fatal(err)
		}
		return spec.pool
	}
	fast, ref, exact := mk(), mk(), mk()
	if (fast.sp != nil) != sparse || len(fast.B) != 1 {
		t.Fatalf("want a two-label pool, sparse %v (sparse %v, %d columns)", sparse, fast.sp != nil, len(fast.B))
	}
	rng := rand.New(rand.NewPCG(7, 7))
	w := randomW(rng, l.Dim())
	recomputed := 0
	for round := range 60 {
		step := []float64{1e-4, 1e-2, 1}[round%3]
		for i := range w {
			w[i] += step * rng.NormFloat64()
		}
		fast.computeDelayed(w)
		// The general path, as computeDelayed runs it for other pools.
		W := ref.wMatrix(w)
		if ref.wLast != nil {
			d := 0.0
			for i := l.PairwiseOffset(); i < len(w); i++ {
				d += (w[i] - ref.wLast[i]) * (w[i] - ref.wLast[i])
			}
			s := math.Sqrt(d) * ref.bnorm[0]
			for i := 0; i < ref.active; i++ {
				ref.lower[i] -= s * ref.pnorm[i]
			}
		}
		before := ref.computed
		ref.recompute(W, nil, 0)
		ref.wLast = append(ref.wLast[:0], w...)
		recomputed += int(ref.computed - before)
		exact.computeFull(w)
		for i := range ref.lower {
			if math.Float64bits(fast.lower[i]) != math.Float64bits(ref.lower[i]) {
				t.Fatalf("round %d, entry %d: fast path %v, general path %v", round, i, fast.lower[i], ref.lower[i])
			}
			checkBound(t, round, i, ref.lower[i], exact.lower[i], sparse)
		}
		if fast.computed != ref.computed {
			t.Fatalf("round %d: fast path computed %d margins, general path %d", round, fast.computed, ref.computed)
		}
	}
	if recomputed == 0 || recomputed == 60*ref.rows {
		t.Errorf("%d margins recomputed over 60 rounds of %d rows: the test exercises no bound or no recomputation", recomputed, ref.rows)
	}
}

// checkBound fails t unless bound is at most the exact margin and equal to
// it where ≤ 0. computeFull sums dense rows in gonum's order, the margin
// passes in dot's: equal up to rounding unless the pool is sparse.
func checkBound(t *testing.T, round, i int, bound, exact float64, sparse bool) {
	t.Helper()
	r := 0.0
	if !sparse {
		r = 1e-12 * (1 + math.Abs(exact))
	}
	if bound <= 0 && math.Abs(bound-exact) > r {
		t.Fatalf("round %d, entry %d: bound %v ≤ 0 but the margin is %v", round, i, bound, exact)
	}
	if bound > exact+r {
		t.Fatalf("round %d, entry %d: bound %v above the margin %v", round, i, bound, exact)
	}
}
