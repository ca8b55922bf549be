package inference

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/psub/internal/cut"
)

// AlphaExpansion is α-expansion (Boykov, Veksler & Zabih 2001): for each
// label α in turn, one max-flow finds the best labelling in which every node
// either keeps its label or switches to α; cycles over all labels repeat
// until a full cycle improves nothing (or MaxIter cycles).
//
// When every pairwise table is a metric (θ(α,α)=0, symmetric, triangle
// inequality) each move is submodular and the result y satisfies
// E(y) <= E_unary(y*) + 2c·E_pairwise(y*) for any y*, with
// c = max_{α≠β} θ(α,β)/min_{α≠β} θ(α,β) (c = 1 for Potts). Otherwise
// non-submodular move terms are truncated as in TruncatedGraphCut (counted in
// Result.Truncated) and a move is only accepted if it lowers the original
// energy, so the energy never increases.
type AlphaExpansion struct {
	// MaxIter bounds the cycles over all labels; 0 means 100.
	MaxIter int
	// Init is the starting labelling; nil means the unary argmin.
	Init []int
}

// Name implements Method.
func (AlphaExpansion) Name() string { return "expansion" }

// Minimize implements Method.
func (m AlphaExpansion) Minimize(e *Energy) (Result, error) { return m.NewSolver().Minimize(e) }

// NewSolver implements SolverFactory.
func (m AlphaExpansion) NewSolver() Solver {
	return &moveSolver{name: "expansion", maxIter: m.MaxIter, init: m.Init}
}

// AlphaBetaSwap is αβ-swap (Boykov, Veksler & Zabih 2001): for each label
// pair α < β, one max-flow finds the best labelling in which the nodes
// labelled α or β may exchange those two labels; cycles over all pairs repeat
// until a full cycle improves nothing (or MaxIter cycles). Each move is
// submodular when the tables are semi-metric (θ(α,α)+θ(β,β) <=
// θ(α,β)+θ(β,α)); otherwise terms are truncated and counted, and only
// improving moves are accepted.
type AlphaBetaSwap struct {
	// MaxIter bounds the cycles over all label pairs; 0 means 100.
	MaxIter int
	// Init is the starting labelling; nil means the unary argmin.
	Init []int
}

// Name implements Method.
func (AlphaBetaSwap) Name() string { return "swap" }

// Minimize implements Method.
func (m AlphaBetaSwap) Minimize(e *Energy) (Result, error) { return m.NewSolver().Minimize(e) }

// NewSolver implements SolverFactory.
func (m AlphaBetaSwap) NewSolver() Solver {
	return &moveSolver{name: "swap", swap: true, maxIter: m.MaxIter, init: m.Init}
}

type moveSolver struct {
	name    string
	swap    bool
	maxIter int
	init    []int
	bc      cut.Binary
}

func (s *moveSolver) Minimize(e *Energy) (Result, error) {
	if err := e.Validate(); err != nil {
		return Result{}, fmt.Errorf("%s: %w", s.name, err)
	}
	n, L := e.Nodes(), e.Labels
	y := make([]int, n)
	if s.init != nil {
		if err := e.CheckLabels(s.init); err != nil {
			return Result{}, fmt.Errorf("%s: Init: %w", s.name, err)
		}
		copy(y, s.init)
	} else {
		unaryArgmin(e, y)
	}
	maxIter := s.maxIter
	if maxIter <= 0 {
		maxIter = 100
	}
	c0, c1, sw := make([]int, n), make([]int, n), make([]int, n)
	cand := make([]int, n)
	cur := e.Eval(y)
	r := Result{}
	for it := 1; it <= maxIter; it++ {
		r.Iterations = it
		improved := false
		var err error
		try := func() {
			if err != nil {
				return
			}
			var tr int
			if tr, _, err = build(&s.bc, e, c0, c1, true); err != nil {
				return
			}
			r.Truncated += tr
			s.bc.Solve(sw)
			for i := range cand {
				cand[i] = c0[i]
				if sw[i] == 1 {
					cand[i] = c1[i]
				}
			}
			// Accept strict improvements only, so cycling is impossible.
			if v := e.Eval(cand); v < cur-1e-12*(1+math.Abs(cur)) {
				copy(y, cand)
				cur = v
				improved = true
			}
		}
		if s.swap {
			for a := 0; a < L; a++ {
				for b := a + 1; b < L; b++ {
					for i, k := range y {
						c0[i], c1[i] = k, k
						if k == a || k == b {
							c0[i], c1[i] = a, b
						}
					}
					try()
				}
			}
		} else {
			for a := 0; a < L; a++ {
				for i, k := range y {
					c0[i], c1[i] = k, a
				}
				try()
			}
		}
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", s.name, err)
		}
		if !improved {
			break
		}
	}
	r.Labels = y
	r.Energy = e.Eval(y)
	r.LowerBound = math.Inf(-1)
	return r, nil
}
