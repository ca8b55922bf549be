package psub

import (
	"fmt"
	"math"
	"strings"
)

// A Loss is a decomposable loss Δ(y_i, y) = Σ_k c_k·[y_k ≠ y_i^k]: each node
// has a cost paid when it is mislabelled. Because it decomposes over nodes,
// loss-augmented inference argmax_y w·ψ(x_i,y) + Δ(y_i,y) is MAP inference
// with the costs subtracted from the unary energies of the wrong labels.
//
// NodeCosts returns c_k for every node of every instance (costs[i][k] for
// node k of set[i]); set carries the labels the costs may depend on.
type Loss interface {
	Name() string
	NodeCosts(set []Instance, labels int) ([][]float64, error)
}

// Hamming is the global loss: the fraction of mislabelled nodes of an
// instance, c_k = 1/N_i.
type Hamming struct{}

// Name implements Loss.
func (Hamming) Name() string { return "hamming" }

// NodeCosts implements Loss.
func (Hamming) NodeCosts(set []Instance, labels int) ([][]float64, error) {
	costs := make([][]float64, len(set))
	for i := range set {
		n := set[i].Nodes()
		if n == 0 {
			return nil, fmt.Errorf("%s: empty graph", set[i].label(i))
		}
		c := make([]float64, n)
		for k := range c {
			c[k] = 1 / float64(n)
		}
		costs[i] = c
	}
	return costs, nil
}

// ClassAveraged is the class-averaged loss Δ_avg: a node of class c costs
// 1/(L_present·f_c·N_i), where f_c is the fraction of nodes of class c in
// the set the costs are computed for (the training set) unless Frequencies
// fixes it, and L_present the number of classes with f_c > 0. On a
// data set with the training class frequencies, the mean loss is one minus
// the class-averaged accuracy. Classes absent from the reference set cost 0.
type ClassAveraged struct {
	// Frequencies, when non-nil, fixes f_c instead of counting (a model
	// applied to a test set uses the training frequencies).
	Frequencies []float64
}

// Name implements Loss.
func (ClassAveraged) Name() string { return "class-averaged" }

// ClassFrequencies counts f_c, the fraction of labelled nodes of each class.
func ClassFrequencies(set []Instance, labels int) ([]float64, error) {
	f := make([]float64, labels)
	total := 0
	for i := range set {
		for k, y := range set[i].Labels {
			if y < 0 || y >= labels {
				return nil, fmt.Errorf("%s: node %d: label %d outside [0,%d)", set[i].label(i), k, y, labels)
			}
			f[y]++
			total++
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("no labelled nodes to count class frequencies")
	}
	for c := range f {
		f[c] /= float64(total)
	}
	return f, nil
}

// NodeCosts implements Loss.
func (l ClassAveraged) NodeCosts(set []Instance, labels int) ([][]float64, error) {
	f := l.Frequencies
	if f == nil {
		var err error
		if f, err = ClassFrequencies(set, labels); err != nil {
			return nil, err
		}
	} else if len(f) != labels {
		return nil, fmt.Errorf("class-averaged loss: %d class frequencies for %d labels", len(f), labels)
	}
	present := 0
	for _, v := range f {
		if v > 0 {
			present++
		}
	}
	costs := make([][]float64, len(set))
	for i := range set {
		n := set[i].Nodes()
		if len(set[i].Labels) != n {
			return nil, fmt.Errorf("%s: class-averaged loss needs labels", set[i].label(i))
		}
		c := make([]float64, n)
		for k, y := range set[i].Labels {
			if f[y] > 0 {
				c[k] = 1 / (float64(present) * f[y] * float64(n))
			}
		}
		costs[i] = c
	}
	return costs, nil
}

// NodeCosts is a user-supplied loss: Costs[i][k] ≥ 0 is paid when node k of
// instance i is mislabelled. Names are what Name reports.
type NodeCosts struct {
	Label string
	Costs [][]float64
}

// Name implements Loss.
func (l NodeCosts) Name() string {
	if l.Label == "" {
		return "node-costs"
	}
	return l.Label
}

// NodeCosts implements Loss: it checks the costs against the set.
func (l NodeCosts) NodeCosts(set []Instance, labels int) ([][]float64, error) {
	if len(l.Costs) != len(set) {
		return nil, fmt.Errorf("node costs given for %d instances, data set has %d", len(l.Costs), len(set))
	}
	for i := range set {
		if len(l.Costs[i]) != set[i].Nodes() {
			return nil, fmt.Errorf("%s: %d node costs for %d nodes", set[i].label(i), len(l.Costs[i]), set[i].Nodes())
		}
		for k, c := range l.Costs[i] {
			if c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
				return nil, fmt.Errorf("%s: node %d: cost %v, expected a finite value ≥ 0", set[i].label(i), k, c)
			}
		}
	}
	return l.Costs, nil
}

// LossValue is Δ(y, z) = Σ_k costs[k]·[y_k ≠ z_k].
func LossValue(costs []float64, y, z []int) float64 {
	s := 0.0
	for k := range y {
		if y[k] != z[k] {
			s += costs[k]
		}
	}
	return s
}

// augmentUnary folds the loss into the unary energies: every wrong label of
// node k gets its energy lowered by c_k (energy = −(score + Δ)).
func augmentUnary(unary []float64, labels int, costs []float64, y []int) {
	for k, c := range costs {
		for a := 0; a < labels; a++ {
			if a != y[k] {
				unary[k*labels+a] -= c
			}
		}
	}
}

// lossNames is the registry of LossByName: each name with the loss it
// gives. The first name of each loss is what its Name reports.
var lossNames = []struct {
	name string
	loss Loss
}{
	{"hamming", Hamming{}},
	{"global", Hamming{}}, // the paper's "global" loss
	{"class-averaged", ClassAveraged{}},
	{"avg", ClassAveraged{}}, // results files and the command line
}

// LossNames lists the names LossByName accepts: "hamming" (alias
// "global") for Hamming, "class-averaged" (alias "avg", the name results
// files use) for ClassAveraged with the training set's class frequencies.
func LossNames() []string {
	out := make([]string, len(lossNames))
	for i, n := range lossNames {
		out[i] = n.name
	}
	return out
}

// LossByName returns the loss of a name of LossNames, in any case (the
// command line's -loss, a results file's loss column). The empty name is
// Hamming, the default of Settings.Loss.
func LossByName(name string) (Loss, error) {
	if name == "" {
		return Hamming{}, nil
	}
	for _, n := range lossNames {
		if strings.EqualFold(name, n.name) {
			return n.loss, nil
		}
	}
	return nil, fmt.Errorf("unknown loss %q (want one of %s)", Brief(name, 40), strings.Join(LossNames(), ", "))
}
