package psub

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAnchoredBinary checks the two-label pass of the tight bounds
// (anchoredBinary) against the general path (recompute with the anchors'
// distances) along a random walk of w with steps of several sizes, more
// rounds than anchor slots: the same bounds, anchors and reference margins
// bit for bit, the same count of margins computed, every bound at most the
// exact margin (computeFull) and every entry at or below 0 exact. Pools:
// binaryPools.
func TestAnchoredBinary(t *testing.T) {
	for _, c := range binaryPools() {
		t.Run(c.name, func(t *testing.T) { testAnchoredBinary(t, c.train, c.l, c.set, c.sparse) })
	}
}

func testAnchoredBinary(t *testing.T, train []Instance, l Layout, set ConstraintSet, sparse bool) {
	mk := func() *pool {
		spec, err := buildSpec(set, l, train)
		if err != nil {
			t.Fatal(err)
		}
		spec.pool.tight = true
		spec.pool.anchorSlots = 4
		return spec.pool
	}
	fast, ref, exact := mk(), mk(), mk()
	if (fast.sp != nil) != sparse || len(fast.B) != 1 {
		t.Fatalf("want a two-label pool, sparse %v (sparse %v, %d columns)", sparse, fast.sp != nil, len(fast.B))
	}
	rng := rand.New(rand.NewPCG(11, 43))
	w := randomW(rng, l.Dim())
	skipped := 0
	for round := range 60 {
		step := []float64{1e-4, 1e-2, 1}[round%3]
		for i := range w {
			w[i] += step * rng.NormFloat64()
		}
		fast.computeDelayed(w)
		before := ref.computed
		ref.anchored(ref.wMatrix(w), false)
		skipped += ref.rows - int(ref.computed-before)
		exact.computeFull(w)
		for i := range ref.lower {
			if math.Float64bits(fast.lower[i]) != math.Float64bits(ref.lower[i]) || math.Float64bits(fast.ref[i]) != math.Float64bits(ref.ref[i]) || fast.slot[i] != ref.slot[i] {
				t.Fatalf("round %d, entry %d: two-label pass (bound %v, anchor %d, ref %v), general path (%v, %d, %v)", round, i, fast.lower[i], fast.slot[i], fast.ref[i], ref.lower[i], ref.slot[i], ref.ref[i])
			}
			checkBound(t, round, i, ref.lower[i], exact.lower[i], sparse)
		}
		if fast.computed != ref.computed {
			t.Fatalf("round %d: two-label pass computed %d margins, general path %d", round, fast.computed, ref.computed)
		}
	}
	if skipped == 0 || skipped == 60*ref.rows {
		t.Errorf("%d margins skipped over 60 rounds of %d rows: the test exercises no bound or no recomputation", skipped, ref.rows)
	}
}
