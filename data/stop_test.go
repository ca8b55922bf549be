package data

import (
	"context"
	"testing"

	"github.com/probably-submodular/crf/data/grid"
	"github.com/probably-submodular/crf/psub"
)

// The experiment runners record the learner's stop reason: a TRW-S column
// cut off after 2 iterations says "iteration cap", the same column given
// room stops by its rule.
func TestMultiLabelRecordsStop(t *testing.T) {
	tr, te := SyntheticMultiLabel(SyntheticMultiLabelOptions{Seed: 5, Train: 40, Test: 20, Labels: 4, Features: 6})
	p, err := BuildMultiLabel(tr, te, MultiLabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job := grid.Job{Dataset: "syn", Set: "TRWS", Loss: "hamming", C: 10}
	for _, tc := range []struct {
		maxIter int
		capped  bool
	}{{2, true}, {200, false}} {
		e := &MultiLabelExperiment{Problems: map[string]*MultiLabelProblem{"syn": p}, Tol: 1e-2, MaxIter: tc.maxIter, Workers: 1}
		m, err := e.Run(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		stop, conv, ok := grid.StopOf(m)
		if !ok || conv == tc.capped || (stop == psub.StopMaxIter) != tc.capped || m["converged"] != b2f(!tc.capped) {
			t.Errorf("MaxIter %d: stop %v (recorded %v), converged %v, after %v iterations; want capped %v",
				tc.maxIter, stop, ok, m["converged"], m["iterations"], tc.capped)
		}
		t.Logf("MaxIter %d: %v iterations, %s", tc.maxIter, m["iterations"], grid.StopLabel(m))
	}
}
