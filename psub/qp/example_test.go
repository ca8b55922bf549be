package qp_test

import (
	"fmt"

	"github.com/probably-submodular/crf/psub/qp"
)

// A two-dimensional SSVM QP: one cutting plane asks for a margin of 1 along
// (1, 0.5); alone it gives w = (0.8, 0.4). The hard row w_1 − w_0 ≥ 0 cuts
// that off, and the optimum moves to w = (2/3, 2/3) with the row active.
func Example() {
	s, err := qp.New(2, 10)
	if err != nil {
		panic(err)
	}
	s.Bound(0, +1) // w_0 ≥ 0: inactive here
	s.AddPlane([]float64{1, 0.5}, 1)
	s.AddRow([]float64{-1, 1})
	sol, err := s.Solve(qp.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("w = (%.4f, %.4f), ξ = %.4f\n", sol.W[0], sol.W[1], sol.Xi)
	fmt.Printf("primal %.4f, dual %.4f\n", sol.Primal, sol.Dual)
	fmt.Printf("α = %.4f, μ = %.4f, active rows %v\n", sol.Alpha[0], sol.Mu[0], s.ActiveRows(1e-9))
	// Output:
	// w = (0.6667, 0.6667), ξ = 0.0000
	// primal 0.4444, dual 0.4444
	// α = 0.8889, μ = 0.2222, active rows [0]
}
