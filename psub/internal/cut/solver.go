package cut

import "fmt"

// Solver minimises a binary energy given directly in normal form (GraphCut
// and TruncatedGraphCut of psub/inference without the table energy, its
// validation and its evaluation). With truncate a negative W[e] is
// truncated as TruncatedGraphCut does (θ01 and θ10 raised by −W[e]/2 each)
// and counted; without it, it is an error naming the edge. Use AtMost to
// decide which tiny negative sums are rounding. With dynamic the solver
// keeps its flow and search trees between calls on the same graph. The
// minimiser returned is the one with the fewest 1s, as GraphCut's.
type Solver struct {
	truncate bool
	b        Binary
	// fixed: the caller passes the same, unchanged edge slice to every
	// Solve (NewFixedSolver), so the graph is kept when the slice is the
	// one it was built for, without comparing the edges one by one.
	fixed bool
	built [][2]int // the caller's slice the graph was built for (fixed)
}

// NewSolver returns a solver for energies in normal form.
func NewSolver(truncate, dynamic bool) *Solver {
	return &Solver{truncate: truncate, b: Binary{Dynamic: dynamic}}
}

// NewFixedSolver is NewSolver for a caller that passes the same edge slice,
// never modified, to every Solve (the learner's training instances): the
// check that the kept graph still fits compares the slices, not the edges.
// A different slice is compared edge by edge as NewSolver's solver does.
func NewFixedSolver(truncate, dynamic bool) *Solver {
	s := NewSolver(truncate, dynamic)
	s.fixed = true
	return s
}

// Solve minimises the energy of the graph with the given edges and writes
// the labels into y (len(lin) nodes). lin and pair (W) are overwritten with
// the truncated form. It returns the number of truncated edges.
func (s *Solver) Solve(edges [][2]int, lin, pair []float64, y []int) (int, error) {
	n := len(lin)
	if len(pair) != len(edges) || len(y) != n {
		return 0, fmt.Errorf("normal-form cut: %d pairwise sums for %d edges, %d labels for %d nodes", len(pair), len(edges), len(y), n)
	}
	var reused bool
	if s.fixed && s.b.g != nil && s.b.n == n && len(edges) == len(s.built) && (len(edges) == 0 || &edges[0] == &s.built[0]) {
		reused = true
	} else {
		reused = s.b.holds(n, edges)
	}
	if s.fixed {
		s.built = edges
	}
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
	if err := FiniteCaps(lin, pair, edges); err != nil {
		return 0, err
	}
	s.b.Lin, s.b.W, s.b.Konst = lin, pair, 0
	s.b.reused = reused
	s.b.loadCaps(n, edges)
	s.b.Solve(y)
	return truncated, nil
}
