package inference

import "fmt"

// CutSolver minimises a binary energy given directly in the normal form
// that GraphCut reparametrises every binary energy into,
//
//	E(y) = const + Σ_i Lin[i]·y_i + Σ_e Pair[e]·(1−y_a)·y_b,   edge e = (a,b),
//
// where, for a table θ, Lin collects θ(1)−θ(0) of the unaries plus
// θ10−θ00 at a and θ11−θ10 at b, and Pair[e] = θ01+θ10−θ00−θ11 ≥ 0 for a
// submodular edge. A caller that can produce these sums directly (the
// learner's loss-augmented inference builds them from features in one pass)
// skips the table energy, its validation and its evaluation. With Truncate
// a negative Pair[e] is truncated as TruncatedGraphCut does (θ01 and θ10
// raised by −Pair[e]/2 each) and counted; without it, it is an error naming
// the edge. Use AtMost to decide which tiny negative sums are rounding.
// With Dynamic the solver keeps its flow and search trees between calls on
// the same graph (see GraphCut). The minimiser returned is the one with the
// fewest 1s, as GraphCut's.
type CutSolver struct {
	truncate bool
	bc       binCut
}

// NewCutSolver returns a solver for energies in normal form.
func NewCutSolver(truncate, dynamic bool) *CutSolver {
	return &CutSolver{truncate: truncate, bc: binCut{dynamic: dynamic}}
}

// Solve minimises the energy of the graph with the given edges and writes
// the labels into y (len(lin) nodes). lin and pair are overwritten with the
// truncated form. It returns the number of truncated edges.
func (s *CutSolver) Solve(edges [][2]int, lin, pair []float64, y []int) (int, error) {
	n := len(lin)
	if len(pair) != len(edges) || len(y) != n {
		return 0, fmt.Errorf("normal-form cut: %d pairwise sums for %d edges, %d labels for %d nodes", len(pair), len(edges), len(y), n)
	}
	reused := s.bc.holds(n, edges)
	if !reused {
		// A new graph: check the edges once (the max-flow graph refuses
		// bad ones by panicking).
		for j, ed := range edges {
			if a, b := ed[0], ed[1]; a < 0 || a >= n || b < 0 || b >= n || a == b {
				return 0, fmt.Errorf("normal-form cut: edge %d (%d,%d): want two distinct nodes in [0,%d)", j, a, b, n)
			}
		}
	}
	truncated := 0
	for j, d := range pair {
		if d < 0 {
			a, b := edges[j][0], edges[j][1]
			if !s.truncate {
				return 0, fmt.Errorf("edge %d (%d,%d) is not submodular: θ01+θ10−θ00−θ11 = %g < 0", j, a, b, d)
			}
			truncated++
			lin[a] -= d / 2
			lin[b] += d / 2
			pair[j] = 0
		}
	}
	if err := finiteCaps(lin, pair, edges); err != nil {
		return 0, err
	}
	s.bc.lin, s.bc.w = lin, pair
	s.bc.konst = 0
	s.bc.reused = reused
	s.bc.loadCaps(n, edges)
	s.bc.solve(y)
	return truncated, nil
}

// AtMost reports x ≤ y up to the rounding of sums of a few float64 terms:
// the test every binary method applies to θ00+θ11 ≤ θ01+θ10 before it calls
// an edge non-submodular.
func AtMost(x, y float64) bool { return leq(x, y) }
