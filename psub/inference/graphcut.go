package inference

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/psub/internal/cut"
)

// GraphCut is exact binary MAP for submodular energies by one max-flow
// (Kolmogorov & Zabih 2004). Each table is reparametrised as
//
//	θ(y_a,y_b) = θ00 + (θ10−θ00)·y_a + (θ11−θ10)·y_b + (θ01+θ10−θ00−θ11)·(1−y_a)·y_b,
//
// the linear parts become terminal arcs, the last term the arc a→b; label 1
// is the sink side. The constants are carried, so the min-cut value plus the
// constant is min E, reported as Result.LowerBound. A non-submodular edge is
// an error naming the edge (use TruncatedGraphCut or QPBO for those). Among
// several minimisers the one with the fewest 1s (in the sense of set
// inclusion) is returned: the sink side is the set of nodes that can reach
// the sink in the residual graph, i.e. the nodes labelled 1 by every
// minimiser.
//
// With Dynamic, a reused Solver keeps the flow and search trees of its last
// solve and only updates the capacities that changed (dynamic graph cuts,
// Kohli & Torr 2005): much faster when successive energies differ in a few
// terms, no gain (or a small loss) when every term changes.
type GraphCut struct {
	Dynamic bool
}

// Name implements Method.
func (GraphCut) Name() string { return "graphcut" }

// Minimize implements Method.
func (m GraphCut) Minimize(e *Energy) (Result, error) { return m.NewSolver().Minimize(e) }

// NewSolver implements SolverFactory.
func (m GraphCut) NewSolver() Solver {
	return &cutSolver{name: "graphcut", bc: cut.Binary{Dynamic: m.Dynamic}}
}

// TruncatedGraphCut (TGC) makes every non-submodular edge submodular and
// then cuts, as in Rother, Kumar, Kolmogorov & Blake 2005 ("Digital
// tapestry"), the test-time inference of the paper. The rule used here: for
// a table with excess Δ = θ00+θ11−θ01−θ10 > 0, raise θ01 and θ10 by Δ/2 each.
// That is the same as lowering θ00 and θ11 by Δ/2 each up to the constant
// Δ/2, so both variants give the same cut; the lowered one lies below E
// everywhere, which makes min-cut − ΣΔ/2 a valid Result.LowerBound.
// Result.Truncated counts the truncated edges and Result.Energy is the
// energy of the labelling under the ORIGINAL energy. Exact (and equal to
// GraphCut) when nothing is truncated. Dynamic is as for GraphCut.
type TruncatedGraphCut struct {
	Dynamic bool
}

// Name implements Method.
func (TruncatedGraphCut) Name() string { return "tgc" }

// Minimize implements Method.
func (m TruncatedGraphCut) Minimize(e *Energy) (Result, error) { return m.NewSolver().Minimize(e) }

// NewSolver implements SolverFactory.
func (m TruncatedGraphCut) NewSolver() Solver {
	return &cutSolver{name: "tgc", truncate: true, bc: cut.Binary{Dynamic: m.Dynamic}}
}

type cutSolver struct {
	name     string
	truncate bool
	bc       cut.Binary
	c0, c1   []int
}

func (s *cutSolver) Minimize(e *Energy) (Result, error) {
	if err := needBinary(s.name, e); err != nil {
		return Result{}, err
	}
	n := e.Nodes()
	if len(s.c0) != n {
		s.c0, s.c1 = make([]int, n), make([]int, n)
		for i := range s.c1 {
			s.c1[i] = 1
		}
	}
	trunc, slack, err := build(&s.bc, e, s.c0, s.c1, s.truncate)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w (use TruncatedGraphCut or QPBO for non-submodular energies)", s.name, err)
	}
	y := make([]int, n)
	lb := s.bc.Solve(y)
	r := finish(e, y)
	r.Truncated = trunc
	r.Iterations = 1
	r.LowerBound = math.Min(lb-slack, r.Energy)
	r.Exact = trunc == 0
	return r, nil
}

// build computes the reparametrisation of the binary energy of a move into
// b's normal form and loads it: node i chooses between label c0[i]
// (binary 0, source side) and c1[i] (binary 1, sink side); with c0 = 0,
// c1 = 1 it is the energy itself. With truncate, non-submodular tables are
// truncated (see TruncatedGraphCut) and counted; the returned slack is
// Σ Δ/2, the gap between the raised and the lowered truncations. Without
// truncate a non-submodular table is an error.
func build(b *cut.Binary, e *Energy, c0, c1 []int, truncate bool) (truncated int, slack float64, err error) {
	n, L := e.Nodes(), e.Labels
	if cap(b.Lin) < n {
		b.Lin = make([]float64, n)
	}
	b.Lin = b.Lin[:n]
	if cap(b.W) < len(e.Edges) {
		b.W = make([]float64, len(e.Edges))
	}
	b.W = b.W[:len(e.Edges)]
	k := 0.0
	for i := 0; i < n; i++ {
		u0, u1 := e.Unary[i*L+c0[i]], e.Unary[i*L+c1[i]]
		b.Lin[i] = u1 - u0
		k += u0
	}
	for j, ed := range e.Edges {
		a, c := ed[0], ed[1]
		t := e.Pairwise[j*L*L : (j+1)*L*L]
		A, B := t[c0[a]*L+c0[c]], t[c0[a]*L+c1[c]]
		C, D := t[c1[a]*L+c0[c]], t[c1[a]*L+c1[c]]
		d := B + C - A - D
		if d < 0 {
			if !leq(A+D, B+C) {
				if !truncate {
					return 0, 0, fmt.Errorf("edge %d (%d,%d) is not submodular: θ00+θ11 = %g > θ01+θ10 = %g",
						j, a, c, A+D, B+C)
				}
				truncated++
				slack -= d / 2
				// Raise θ01 and θ10 by −d/2 each.
				B -= d / 2
				C -= d / 2
			}
			d = 0
		}
		k += A
		b.Lin[a] += C - A
		b.Lin[c] += D - C
		b.W[j] = d
	}
	if err := cut.FiniteCaps(b.Lin, b.W, e.Edges); err != nil {
		return 0, 0, err
	}
	b.Konst = k
	for i := 0; i < n; i++ {
		if b.Lin[i] < 0 {
			b.Konst += b.Lin[i]
		}
	}
	b.Load(n, e.Edges)
	return truncated, slack, nil
}
