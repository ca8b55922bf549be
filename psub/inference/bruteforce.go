package inference

import (
	"fmt"
	"math"
)

// DefaultMaxStates is BruteForce's default limit on Labels^Nodes (2^22).
const DefaultMaxStates = 1 << 22

// BruteForce minimises by enumerating every labelling. It is exact and is the
// oracle of this package's tests. Enumeration is in mixed-radix counter order
// with incremental energy updates, so each state costs O(degree) on average.
// Among equal energies the first labelling in that order (lexicographic with
// node 0 the fastest digit) wins.
type BruteForce struct {
	// MaxStates bounds Labels^Nodes; 0 means DefaultMaxStates.
	MaxStates int
}

// Name implements Method.
func (BruteForce) Name() string { return "bruteforce" }

// Minimize implements Method. It returns an error if Labels^Nodes exceeds
// MaxStates.
func (m BruteForce) Minimize(e *Energy) (Result, error) {
	if err := e.Validate(); err != nil {
		return Result{}, fmt.Errorf("bruteforce: %w", err)
	}
	best := make([]int, e.Nodes())
	r := Result{Labels: best}
	err := m.Enumerate(e, func(y []int, v float64) {
		if r.Iterations == 0 || v < r.Energy {
			r.Energy = v
			copy(best, y)
		}
		r.Iterations++
	})
	if err != nil {
		return Result{}, err
	}
	r.Energy = e.Eval(best)
	r.LowerBound = r.Energy
	r.Exact = true
	return r, nil
}

// Enumerate calls visit(y, E(y)) for every labelling y of e (y is reused
// between calls; copy it to keep it). The energy passed is updated
// incrementally and may differ from e.Eval(y) by rounding.
func (m BruteForce) Enumerate(e *Energy, visit func(y []int, energy float64)) error {
	if err := e.Validate(); err != nil {
		return fmt.Errorf("bruteforce: %w", err)
	}
	n, L := e.Nodes(), e.Labels
	limit := m.MaxStates
	if limit <= 0 {
		limit = DefaultMaxStates
	}
	if states := math.Pow(float64(L), float64(n)); states > float64(limit) {
		return fmt.Errorf("bruteforce: %d nodes with %d labels give %.3g labellings, more than MaxStates = %d",
			n, L, states, limit)
	}
	y := make([]int, n)
	adj := newAdjacency(n, e.Edges)
	v := e.Eval(y)
	for {
		visit(y, v)
		// Increment the mixed-radix counter, updating v one digit at a time.
		i := 0
		for ; i < n; i++ {
			old := y[i]
			next := old + 1
			if next == L {
				next = 0
			}
			v += e.localCost(adj, y, i, next) - e.localCost(adj, y, i, old)
			y[i] = next
			if next != 0 {
				break
			}
		}
		if i == n {
			return nil
		}
	}
}
