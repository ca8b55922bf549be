package qptest

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/probably-submodular/crf/psub/qp"
)

// Sequence solves the SSVM's sequence of warm-started QPs on a seeded
// problem of the cows model's size (dim = 2·unary + 4·pairwise): planes
// cutting planes are added one at a time, every tenth with five hard rows
// (b_j ⊗ p_i with p ≥ 0 on the pairwise block), each followed by a solve,
// as the learner does. It returns the last solution and the total number
// of solver sweeps.
func Sequence(unary, pairwise, planes int, c float64, seed uint64) (qp.Solution, int, error) {
	dim := 2*unary + 4*pairwise
	s, err := qp.New(dim, c)
	if err != nil {
		return qp.Solution{}, 0, err
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	var sol qp.Solution
	sweeps := 0
	for it := range planes {
		// A cutting plane: the mean ψ difference (small, dense) and the
		// mean loss b > 0, shrinking as the loss-augmented labelling
		// approaches the truth.
		a := make([]float64, dim)
		for i := range a {
			a[i] = 0.003 * rng.NormFloat64()
		}
		s.AddPlane(a, 0.5*(0.2+rng.Float64())/math.Sqrt(float64(it+1)))
		if it%10 == 9 {
			for range 5 {
				// b = (1,0,0,1) − (0,1,1,0) over (aa, ab, ba, bb) ⊗ p.
				g := make([]float64, dim)
				for k := range pairwise {
					p := rng.ExpFloat64()
					base := 2 * unary
					g[base+k], g[base+3*pairwise+k] = p, p
					g[base+pairwise+k], g[base+2*pairwise+k] = -p, -p
				}
				s.AddRow(g)
			}
		}
		if sol, err = s.Solve(qp.Options{Tol: 1e-6}); err != nil {
			return sol, sweeps, fmt.Errorf("QP solve %d: %w", it+1, err)
		}
		sweeps += sol.Iterations
	}
	return sol, sweeps, nil
}
