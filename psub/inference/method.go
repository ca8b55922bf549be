package inference

import (
	"fmt"
	"math"
)

// Result is the outcome of one minimisation.
type Result struct {
	Labels     []int   // the labelling returned (always complete)
	Energy     float64 // E(Labels) under the energy passed in (for TGC: the original, untruncated one)
	LowerBound float64 // a certified lower bound on min E; -Inf when the method gives none
	Exact      bool    // the method certifies that Labels is a minimiser
	Truncated  int     // TGC, expansion, swap: pairwise terms made submodular by truncation
	Unlabelled int     // QPBO: nodes roof duality left unlabelled (before completion)
	Iterations int     // method-specific: sweeps, message-passing iterations, max-flow calls
}

// Method is an inference algorithm. Minimize validates e and returns a
// complete labelling. Methods are value types holding only options, so one
// Method may be used from several goroutines on different energies.
type Method interface {
	Name() string
	Minimize(e *Energy) (Result, error)
}

// Solver is a stateful minimiser for one goroutine. It keeps buffers (and
// the max-flow graph) between calls, so repeated solves of energies with the
// SAME edge list — the SSVM pattern, where only the costs change with w —
// avoid reallocation. An energy with different edges is handled correctly but
// rebuilds the state.
type Solver interface {
	Minimize(e *Energy) (Result, error)
}

// SolverFactory is implemented by methods that benefit from reuse
// (GraphCut, TruncatedGraphCut, QPBO, AlphaExpansion, AlphaBetaSwap).
type SolverFactory interface {
	NewSolver() Solver
}

// NewSolver returns m's reusing Solver if it has one, else m itself (a
// Method is a valid Solver).
func NewSolver(m Method) Solver {
	if f, ok := m.(SolverFactory); ok {
		return f.NewSolver()
	}
	return m
}

func finish(e *Energy, y []int) Result {
	return Result{Labels: y, Energy: e.Eval(y), LowerBound: math.Inf(-1)}
}

func needBinary(name string, e *Energy) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if e.Labels != 2 {
		return fmt.Errorf("%s: energy has %d labels, this method is binary (2 labels)", name, e.Labels)
	}
	return nil
}

// MethodNames returns the names ParseMethod accepts (the methods' Name()).
func MethodNames() []string {
	return []string{"graphcut", "tgc", "qpbo", "trws", "expansion", "swap", "icm", "bruteforce"}
}

// ParseMethod returns the method with the given Name() and default options,
// for command-line flags and configuration files.
func ParseMethod(name string) (Method, error) {
	switch name {
	case "graphcut":
		return GraphCut{}, nil
	case "tgc":
		return TruncatedGraphCut{}, nil
	case "qpbo":
		return QPBO{}, nil
	case "trws":
		return TRWS{}, nil
	case "expansion":
		return AlphaExpansion{}, nil
	case "swap":
		return AlphaBetaSwap{}, nil
	case "icm":
		return ICM{}, nil
	case "bruteforce":
		return BruteForce{}, nil
	}
	return nil, fmt.Errorf("unknown inference method %q (want one of %v)", name, MethodNames())
}
