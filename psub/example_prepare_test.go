package psub_test

import (
	"fmt"

	"github.com/probably-submodular/crf/psub"
)

// A grid of C over two folds of one data set: the set is checked and laid
// out once, each fit trains on a subset and is scored on another, as
// Train and EvaluateWith would on the same instances.
func ExamplePrepare() {
	set := []psub.Instance{
		{Unary: [][]float64{{1, 0}, {0.6, 0.4}, {0, 1}}, Edges: [][2]int{{0, 1}, {1, 2}}, Pairwise: [][]float64{{0.1}, {0.9}}, Labels: []int{0, 0, 1}},
		{Unary: [][]float64{{0, 1}, {0.45, 0.55}, {1, 0}}, Edges: [][2]int{{0, 1}, {1, 2}}, Pairwise: [][]float64{{0.1}, {0.9}}, Labels: []int{1, 1, 0}},
		{Unary: [][]float64{{0.9, 0.1}, {0.7, 0.3}, {0.2, 0.8}}, Edges: [][2]int{{0, 1}, {1, 2}}, Pairwise: [][]float64{{0.2}, {0.8}}, Labels: []int{0, 0, 1}},
		{Unary: [][]float64{{0.1, 0.9}, {0.4, 0.6}, {0.8, 0.2}}, Edges: [][2]int{{0, 1}, {1, 2}}, Pairwise: [][]float64{{0.1}, {0.7}}, Labels: []int{1, 1, 0}},
	}
	all, err := psub.Prepare(set, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, fold := range []struct{ train, test []int }{{[]int{0, 1}, []int{2, 3}}, {[]int{2, 3}, []int{0, 1}}} {
		train, _ := all.Subset(fold.train) // indices in range: no error
		test, _ := all.Subset(fold.test)
		for _, c := range []float64{0.1, 10} {
			model, trace, err := psub.TrainPrepared(train, psub.Settings{C: c, Set: psub.C4{}})
			if err != nil {
				fmt.Println(err)
				return
			}
			ev, err := model.EvaluatePrepared(test, nil)
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("train %v, C = %g: converged %v, test accuracy %.2f\n", fold.train, c, trace.Converged, ev.Accuracy)
		}
	}
	// A bad instance is refused by Prepare as Train refuses it.
	set[1].Labels[2] = 2
	_, err = psub.Prepare(set, 2)
	fmt.Println(err)
	// Output:
	// train [0 1], C = 0.1: converged true, test accuracy 1.00
	// train [0 1], C = 10: converged true, test accuracy 1.00
	// train [2 3], C = 0.1: converged true, test accuracy 1.00
	// train [2 3], C = 10: converged true, test accuracy 1.00
	// instance 1: node 2: label 2 outside [0,2)
}
