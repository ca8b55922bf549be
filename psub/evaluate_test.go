package psub

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
)

// evalProblem is a random model and a few small random graphs for it, the
// last one without labels.
func evalProblem(rng *rand.Rand, labels int) (*Model, []Instance) {
	l := Layout{Labels: labels, UnaryDim: 2, PairwiseDim: 2}
	m := &Model{Layout: l, W: randomW(rng, l.Dim())}
	var set []Instance
	for i := range 6 {
		set = append(set, randomInstance(rng, 3+rng.IntN(4), 3, 2, 2, labels))
		if i == 5 {
			set[i].Labels = nil
		}
	}
	return m, set
}

// Evaluate with exact inference against a recount by enumeration: every
// labelling's w·ψ from the joint feature vector, the best one per graph,
// and accuracy, class-averaged accuracy, confusion and totals counted here.
func TestEvaluateBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 31))
	for trial := range 20 {
		labels := 2 + trial%2
		m, set := evalProblem(rng, labels)
		ev, err := m.EvaluateWith(set, inference.BruteForce{})
		if err != nil {
			t.Fatal(err)
		}
		conf := map[[2]int]int64{}
		right, total, nodes, edges := 0, 0, 0, 0
		for i := range set {
			in := &set[i]
			best, bestY := math.Inf(-1), []int(nil)
			psi := make([]float64, m.Dim())
			allLabellings(in.Nodes(), labels, func(y []int) {
				clear(psi)
				m.JointFeature(psi, in, y, 1)
				s := 0.0
				for j := range psi {
					s += m.W[j] * psi[j]
				}
				if s > best {
					best, bestY = s, slices.Clone(y)
				}
			})
			if !slices.Equal(ev.Predictions[i].Labels, bestY) {
				t.Fatalf("trial %d, instance %d: predicted %v, enumeration %v", trial, i, ev.Predictions[i].Labels, bestY)
			}
			nodes += in.Nodes()
			edges += len(in.Edges)
			for k, y := range in.Labels {
				conf[[2]int{y, bestY[k]}]++
				total++
				if y == bestY[k] {
					right++
				}
			}
		}
		recall, present := 0.0, 0
		for c := range labels {
			var n int64
			for p := range labels {
				n += conf[[2]int{c, p}]
				if got := ev.Confusion[c][p]; got != conf[[2]int{c, p}] {
					t.Errorf("trial %d: confusion[%d][%d] = %d, recount %d", trial, c, p, got, conf[[2]int{c, p}])
				}
			}
			if n > 0 {
				recall += float64(conf[[2]int{c, c}]) / float64(n)
				present++
			}
		}
		acc, avg := float64(right)/float64(total), recall/float64(present)
		if math.Abs(ev.Accuracy-acc) > 1e-15 || math.Abs(ev.ClassAveraged-avg) > 1e-15 {
			t.Errorf("trial %d: accuracy %v, class-averaged %v; recount %v, %v", trial, ev.Accuracy, ev.ClassAveraged, acc, avg)
		}
		if ev.Nodes != nodes || ev.Edges != edges || ev.Labelled != len(set)-1 || len(ev.Predictions) != len(set) {
			t.Errorf("trial %d: %d nodes, %d edges, %d labelled, %d predictions; want %d, %d, %d, %d",
				trial, ev.Nodes, ev.Edges, ev.Labelled, len(ev.Predictions), nodes, edges, len(set)-1, len(set))
		}
	}
}

// Evaluate uses Predict's inference (TGC for two labels, αβ-swap for more)
// and counts, for two labels, exactly the edges whose energy is not
// submodular as truncated; random weights make some.
func TestEvaluateDefault(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	truncated := 0
	for trial := range 10 {
		m, set := evalProblem(rng, 2+trial%2)
		ev, err := m.Evaluate(set)
		if err != nil {
			t.Fatal(err)
		}
		nonSub := 0
		for i := range set {
			p, err := m.Predict(&set[i])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Labels, ev.Predictions[i].Labels) || p.Truncated != ev.Predictions[i].Truncated {
				t.Fatalf("trial %d, instance %d: Evaluate %v, Predict %v", trial, i, ev.Predictions[i], p)
			}
			e, _ := m.Energy(&set[i])
			nonSub += len(e.NonSubmodularEdges())
		}
		if m.Labels == 2 {
			if ev.Truncated != nonSub {
				t.Errorf("trial %d: %d truncated edges, %d non-submodular", trial, ev.Truncated, nonSub)
			}
			truncated += ev.Truncated
		}
	}
	if truncated == 0 {
		t.Error("no edge truncated: the test does not exercise Truncated")
	}
}

// A set without labels is predicted, not scored; an instance that does not
// fit the model is an error naming it.
func TestEvaluateUnlabelledAndErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 33))
	m, set := evalProblem(rng, 2)
	for i := range set {
		set[i].Labels = nil
	}
	ev, err := m.Evaluate(set)
	if err != nil || ev.Labelled != 0 || !math.IsNaN(ev.Accuracy) || !math.IsNaN(ev.ClassAveraged) || len(ev.Predictions) != len(set) {
		t.Errorf("unlabelled: err %v, labelled %d, accuracy %v, class-averaged %v", err, ev.Labelled, ev.Accuracy, ev.ClassAveraged)
	}
	set[2].Name = "odd"
	set[2].Unary[0] = []float64{1}
	if _, err := m.Evaluate(set); err == nil || !strings.Contains(err.Error(), "instance 2 (odd)") {
		t.Errorf("bad instance: %v, want an error naming instance 2 (odd)", err)
	}
	set[2].Unary[0] = []float64{1, 2}
	set[2].Labels = make([]int, set[2].Nodes())
	set[2].Labels[1] = 2
	if _, err := m.Evaluate(set); err == nil || !strings.Contains(err.Error(), "instance 2 (odd): node 1: label 2") {
		t.Errorf("label out of range: %v", err)
	}
}
