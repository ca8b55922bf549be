package grid_test

import (
	"context"
	"fmt"

	"github.com/probably-submodular/crf/notebooks/grid"
)

// Run a grid of jobs in parallel and pick C per fold on a metric of the
// experiment's metrics struct.
func ExampleRunTyped() {
	type metrics struct {
		Acc float64 `json:"acc"`
	}
	jobs := grid.Jobs([]string{"toy"}, []string{"C4"}, []string{"hamming"}, grid.LogSpace(0.1, 10, 3), 2)
	run := func(_ context.Context, j grid.Job) (metrics, error) {
		return metrics{Acc: 1 / (1 + (j.C-1)*(j.C-1))}, nil // best at C = 1
	}
	rs, err := grid.RunTyped(context.Background(), jobs, run, grid.Options{Workers: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range grid.BestByC(rs, func(m metrics) float64 { return m.Acc }) {
		fmt.Printf("fold %d: C = %g, acc %.2f\n", r.Job.Fold, r.Job.C, r.Metrics.Acc)
	}
	// Output:
	// fold 0: C = 1, acc 1.00
	// fold 1: C = 1, acc 1.00
}
