package psub_test

import (
	"fmt"

	"github.com/probably-submodular/crf/psub"
)

// strongC4 is C4 enforced only on the strong edges, those whose pairwise
// feature 0 exceeds Threshold: a set of one's own, outside psub.
type strongC4 struct{ Threshold float64 }

func (s strongC4) Name() string { return fmt.Sprintf("C4[p0>%g]", s.Threshold) }

// Spec takes C4's rows and keeps the strong edges only. Weak edges may end
// up non-submodular, so the set does not promise Submodular, and training
// keeps its unconstrained inference (truncated graph cuts).
func (s strongC4) Spec(l psub.Layout, train []psub.Instance) (psub.SetSpec, error) {
	spec, err := psub.C4{}.Spec(l, train)
	if err != nil {
		return spec, err
	}
	spec.Pool.Keep = func(_ *psub.Instance, _ int, p []float64) bool { return p[0] > s.Threshold }
	spec.Submodular = false
	return spec, nil
}

// A constraint set of one's own: C4 on the strong edges only. On chains
// whose labels alternate across weak edges, the weights that fit best make
// the weak edges repulsive (non-submodular); C4 forbids that everywhere,
// strongC4 only where the edges are strong, and reaches a lower objective.
func ExampleConstraintSet() {
	var train []psub.Instance
	for i := range 4 {
		in := psub.Instance{}
		y := 0
		for k := range 12 {
			if k > 0 && (k+i)%3 != 0 {
				y = 1 - y // a label change across a weak edge
				in.Pairwise = append(in.Pairwise, []float64{0.1, 1})
			} else if k > 0 {
				in.Pairwise = append(in.Pairwise, []float64{1, 1})
			}
			if k > 0 {
				in.Edges = append(in.Edges, [2]int{k - 1, k})
			}
			// A weak unary cue, absent on a third of the nodes.
			cue := 0.2 * float64(2*y-1) * float64((k*7+i)%3)
			in.Unary = append(in.Unary, []float64{cue, 1})
			in.Labels = append(in.Labels, y)
		}
		train = append(train, in)
	}
	for _, set := range []psub.ConstraintSet{psub.C4{}, strongC4{Threshold: 0.5}} {
		model, trace, err := psub.Train(train, 2, psub.Settings{C: 10, Tol: 1e-4, Set: set})
		if err != nil {
			fmt.Println(err)
			return
		}
		strong, weak := 0, 0
		for i := range train {
			for _, p := range train[i].Pairwise {
				if !model.NonSubmodularEdge(p) {
					continue
				}
				if p[0] > 0.5 {
					strong++
				} else {
					weak++
				}
			}
		}
		fmt.Printf("%s: converged %v, objective %.3f, non-submodular strong edges %d, weak edges %d\n",
			set.Name(), trace.Converged, trace.Final().Primal, strong, weak)
	}
	// Output:
	// C4: converged true, objective 0.052, non-submodular strong edges 0, weak edges 0
	// C4[p0>0.5]: converged true, objective 0.032, non-submodular strong edges 0, weak edges 30
}
