package qp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRowScaleInvariance checks that the solution does not depend on the
// norms of the hard rows. Rows are homogeneous (g·w ≥ 0), so scaling one
// changes neither the feasible set nor the optimum, only the conditioning
// of the Gram matrix. The problems mimic segmentation C4 on a large image:
// each plane sums ψ over many nodes (norm ~10⁴), each row is one edge's
// non-negative feature through the submodularity combination
// (w_aa + w_bb − w_ab − w_ba), of norm ~1 or smaller. A proximal term
// relative to the largest diagonal swamped such rows: the polish stopped at
// points that violated them and the sweeps ran to MaxIter.
func TestRowScaleInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const d = 12 // pairwise features; dim = 4d (four label-pair blocks)
	for trial := range 6 {
		pr := &problem{dim: 4 * d, c: 0.05 + 0.1*rng.Float64(), state: make([]int8, 4*d)}
		for range 8 + rng.IntN(8) {
			a := make([]float64, 4*d)
			for i := range a {
				a[i] = 1e4 * rng.NormFloat64()
			}
			pr.planes = append(pr.planes, a)
			pr.b = append(pr.b, 0.5+rng.Float64())
		}
		sign := []float64{1, -1, -1, 1} // aa, ab, ba, bb
		for range 30 + rng.IntN(30) {
			g := make([]float64, 4*d)
			for k := range d {
				if rng.Float64() < 0.5 {
					p := rng.ExpFloat64()
					for blk, sg := range sign {
						g[blk*d+k] = sg * p
					}
				}
			}
			pr.rows = append(pr.rows, g)
		}
		t.Run(fmt.Sprintf("trial%d_planes%d_rows%d", trial, len(pr.planes), len(pr.rows)), func(t *testing.T) {
			ref, err := pr.solver().Solve(tight)
			if err != nil {
				t.Fatalf("rows of norm ~1: %v", err)
			}
			for _, scale := range []float64{1e-3, 1e-6, 1e-9} {
				sc := *pr
				sc.rows = nil
				for k, g := range pr.rows {
					h := make([]float64, len(g))
					f := scale * math.Pow(10, float64(k%3)) // norms spread over 3 decades
					for i, x := range g {
						h[i] = f * x
					}
					sc.rows = append(sc.rows, h)
				}
				sol, err := sc.solver().Solve(tight)
				if err != nil {
					t.Fatalf("rows scaled by %g: %v", scale, err)
				}
				// The polish (at sweeps 1, 2, 4, …) must finish the scaled
				// problem as soon as the unscaled one: it took 32–233 sweeps
				// with the proximal term relative to the largest diagonal.
				if sol.Iterations > ref.Iterations+1 {
					t.Errorf("rows scaled by %g: %d sweeps, unscaled %d", scale, sol.Iterations, ref.Iterations)
				}
				if math.Abs(sol.Primal-ref.Primal) > 1e-7*ref.Primal {
					t.Errorf("rows scaled by %g: primal %.10g, unscaled %.10g", scale, sol.Primal, ref.Primal)
				}
				wn := 0.0
				for _, x := range ref.W {
					wn = math.Max(wn, math.Abs(x))
				}
				for i := range sol.W {
					if math.Abs(sol.W[i]-ref.W[i]) > 1e-4*wn {
						t.Errorf("rows scaled by %g: w[%d] = %g, unscaled %g", scale, i, sol.W[i], ref.W[i])
						break
					}
				}
			}
		})
	}
}
