package qp

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRandomCones solves random problems of every shape, including many
// more rows and sign bounds than dimensions (thin or trivial feasible cones,
// where the optimum is degenerate and the multipliers are large and cancel),
// with default options, and checks the KKT conditions.
func TestRandomCones(t *testing.T) {
	n := uint64(80)
	if testing.Short() {
		n = 20
	}
	for seed := range n {
		rng := rand.New(rand.NewPCG(seed, 1))
		dim := 5 + rng.IntN(40)
		pr := randomProblem(rng, dim, 1+rng.IntN(40), rng.IntN(60), rng.Float64(), 0.2*rng.Float64())
		t.Run(fmt.Sprintf("seed%d_dim%d_planes%d_rows%d", seed, dim, len(pr.planes), len(pr.rows)), func(t *testing.T) {
			sol, err := pr.solver().Solve(Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkKKT(t, pr, sol, 1e-5)
		})
	}
}
