package feature_test

import (
	"fmt"

	"github.com/probably-submodular/crf/psub/feature"
)

// Training pairwise features span a triangle; a test feature inside it is
// covered by both the hull and the cone, a scaled copy only by the cone
// (C4's constraints still hold there), and a feature in a new direction by
// neither (a C4 model may be non-submodular on it).
func ExampleHull() {
	train := [][]float64{{1, 0, 0}, {0, 1, 0}, {0.5, 0.5, 1}}
	h, _ := feature.NewHull(train)
	for _, q := range [][]float64{{0.45, 0.55, 0.3}, {2, 2, 1}, {0, 0, 1}} {
		inHull, _ := h.InHull(q)
		inCone, _ := h.InCone(q)
		fmt.Printf("%v: hull %v, cone %v\n", q, inHull, inCone)
	}
	// Output:
	// [0.45 0.55 0.3]: hull true, cone true
	// [2 2 1]: hull false, cone true
	// [0 0 1]: hull false, cone false
}
