package grid_test

import (
	"context"
	"fmt"

	"github.com/probably-submodular/crf/notebooks/grid"
)

// Run a grid of jobs in parallel and pick C per fold on a metric.
func ExampleRun() {
	jobs := grid.Jobs([]string{"toy"}, []string{"C4"}, []string{"hamming"}, grid.LogSpace(0.1, 10, 3), 2)
	run := func(_ context.Context, j grid.Job) (map[string]float64, error) {
		return map[string]float64{"acc": 1 / (1 + (j.C-1)*(j.C-1))}, nil // best at C = 1
	}
	rs, err := grid.Run(context.Background(), jobs, run, grid.Options{Workers: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range grid.BestByC(rs, "acc") {
		fmt.Printf("fold %d: C = %g, acc %.2f\n", r.Fold, r.C, r.Metrics["acc"])
	}
	// Output:
	// fold 0: C = 1, acc 1.00
	// fold 1: C = 1, acc 1.00
}
