package psub

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Along a walk of w whose pairwise blocks move by different amounts,
// computeDelayed's bounds with each column's step ‖W_j − W_last,j‖ stay
// lower bounds of the exact margins (computeFull), exact where ≤ 0, are
// never below the whole pairwise step's bound from the same previous
// bounds, and recompute fewer margins over the walk than that bound
// (stepDelayed from the pairwise offset). Pools of C3 with two labels (four single-block rows b)
// and of C4 with three labels (rows b over several blocks).
func TestDelayedBoundColumnStep(t *testing.T) {
	for _, c := range []struct {
		name   string
		set    ConstraintSet
		labels int
	}{{"C3 two labels", C3{}, 2}, {"C4 three labels", C4{}, 3}} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(38, uint64(c.labels)))
			train := smoothSet(rng, 5, 14, 4, c.labels)
			l := Layout{Labels: c.labels, UnaryDim: 4, PairwiseDim: 4}
			mk := func() *pool { s, err := buildSpec(c.set, l, train); must(t, err); return s.pool }
			full, ours, whole := mk(), mk(), mk()
			if len(ours.B) < 2 {
				t.Fatalf("%d rows b: want several", len(ours.B))
			}
			w := randomW(rng, l.Dim())
			off, dp := l.PairwiseOffset(), l.PairwiseDim
			var nOurs, nWhole int64
			for step := 0; step < 60; step++ {
				prev := append([]float64(nil), ours.lower...)
				var d float64 // ‖w_p − w_last,p‖
				if ours.wLast != nil {
					for i := off; i < len(w); i++ {
						d += (w[i] - ours.wLast[i]) * (w[i] - ours.wLast[i])
					}
					d = math.Sqrt(d)
				}
				full.computeFull(w)
				m0 := ours.computed
				ours.computeDelayed(w)
				nOurs += ours.computed - m0
				nWhole += stepDelayed(whole, w, l.PairwiseOffset())
				for idx := 0; idx < full.size(); idx++ {
					exact, b := full.lower[idx], ours.lower[idx]
					tol := 1e-9 * (1 + math.Abs(exact))
					if b > exact+tol || (b <= 0 && math.Abs(b-exact) > tol) {
						t.Fatalf("step %d: L[%d] = %v, margin %v", step, idx, b, exact)
					}
					if lo := prev[idx] - d*ours.normOf(idx); step > 0 && b < lo-1e-12*(1+math.Abs(lo)) {
						t.Fatalf("step %d: L[%d] = %v below the whole pairwise step's bound %v", step, idx, b, lo)
					}
				}
				// One block moves most: the columns' steps differ.
				blk := rng.IntN(c.labels * c.labels)
				for i := off; i < len(w); i++ {
					s := 0.002
					if (i-off)/dp == blk {
						s = 0.02
					}
					w[i] += s * rng.NormFloat64()
				}
			}
			if nOurs >= nWhole {
				t.Fatalf("margins computed: %d with each column's step, %d with the whole pairwise step: want fewer", nOurs, nWhole)
			}
			t.Logf("margins over 60 steps: %d (each column's step), %d (whole pairwise step), pool %d", nOurs, nWhole, full.size())
		})
	}
}
