package psub_test

import (
	"bytes"
	"fmt"

	"github.com/probably-submodular/crf/psub"
)

// The paper's proposition, with non-negative features: two samples whose
// single edge has feature (1,0) or (0,1), labelled all-a and all-b, and no
// unary information. C2 may use same-label weights and separates them; C1
// (w_αα = 0) cannot.
func ExampleTrain() {
	train := []psub.Instance{
		{Unary: [][]float64{{0}, {0}}, Edges: [][2]int{{0, 1}}, Pairwise: [][]float64{{1, 0}}, Labels: []int{0, 0}},
		{Unary: [][]float64{{0}, {0}}, Edges: [][2]int{{0, 1}}, Pairwise: [][]float64{{0, 1}}, Labels: []int{1, 1}},
	}
	for _, set := range []psub.ConstraintSet{psub.C1{}, psub.C2{}} {
		model, trace, err := psub.Train(train, 2, psub.Settings{C: 10, Set: set, Tol: 1e-6})
		if err != nil {
			fmt.Println(err)
			return
		}
		s0, _ := model.Compatibility(&train[0], []int{0, 0})
		s1, _ := model.Compatibility(&train[0], []int{1, 1})
		fmt.Printf("%s: converged %v, sample 0 scores all-a %.2f, all-b %.2f\n", set.Name(), trace.Converged, s0, s1)
	}
	// Output:
	// C1: converged true, sample 0 scores all-a 0.00, all-b 0.00
	// C2: converged true, sample 0 scores all-a 1.00, all-b 0.00
}

// Predict labels a graph and reports how many non-submodular edges the
// truncated graph cut had to truncate; models round-trip through JSON.
// Evaluate predicts a whole data set and scores it.
func ExampleModel_Predict() {
	train := []psub.Instance{
		{Unary: [][]float64{{1, 0}, {0.6, 0.4}, {0, 1}}, Edges: [][2]int{{0, 1}, {1, 2}},
			Pairwise: [][]float64{{0.1}, {0.9}}, Labels: []int{0, 0, 1}},
		{Unary: [][]float64{{0, 1}, {0.45, 0.55}, {1, 0}}, Edges: [][2]int{{0, 1}, {1, 2}},
			Pairwise: [][]float64{{0.1}, {0.9}}, Labels: []int{1, 1, 0}},
	}
	model, _, err := psub.Train(train, 2, psub.Settings{C: 10, Set: psub.C4{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer
	if err := model.Save(&buf); err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := psub.Load(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range train {
		p, err := loaded.Predict(&train[i])
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(p.Labels, p.Truncated)
	}
	ev, err := loaded.Evaluate(train)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("accuracy %.2f, class-averaged %.2f, confusion %v, %d of %d edges truncated\n",
		ev.Accuracy, ev.ClassAveraged, ev.Confusion, ev.Truncated, ev.Edges)
	// Output:
	// [0 0 1] 0
	// [1 1 0] 0
	// accuracy 1.00, class-averaged 1.00, confusion [[3 0] [0 3]], 0 of 4 edges truncated
}
