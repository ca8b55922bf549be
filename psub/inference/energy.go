package inference

import (
	"errors"
	"fmt"
	"math"

	"github.com/probably-submodular/crf/psub/internal/cut"
)

// Energy is a pairwise energy over Nodes() discrete variables with Labels
// labels each:
//
//	E(y) = Σ_i Unary[i*L+y_i] + Σ_e Pairwise[e*L*L + y_a*L + y_b],  e = (a,b) = Edges[e].
//
// It is minimised. The learner builds it as the negated score −w·ψ(x,y) of
// the paper; loss-augmented inference folds the loss into Unary. The slices
// are used as given (not copied), so a caller may refill them in place and
// solve again.
type Energy struct {
	Labels   int
	Unary    []float64 // Nodes()*Labels, node-major
	Edges    [][2]int
	Pairwise []float64 // len(Edges)*Labels*Labels, table of edge e row y_a, column y_b
}

// NewEnergy returns a zero energy over nodes variables with the given labels
// and edges. The edges slice is kept, not copied.
func NewEnergy(nodes, labels int, edges [][2]int) *Energy {
	if nodes < 0 || labels < 1 {
		panic(fmt.Sprintf("inference.NewEnergy: nodes=%d labels=%d", nodes, labels))
	}
	return &Energy{
		Labels:   labels,
		Unary:    make([]float64, nodes*labels),
		Edges:    edges,
		Pairwise: make([]float64, len(edges)*labels*labels),
	}
}

// Nodes is the number of variables, len(Unary)/Labels.
func (e *Energy) Nodes() int {
	if e.Labels <= 0 {
		return 0
	}
	return len(e.Unary) / e.Labels
}

// Validate reports the first structural or numerical problem: a label count
// below 1, sizes that do not match, an edge end out of range, a self-loop, or
// a NaN/Inf cost. Every method calls it before solving.
func (e *Energy) Validate() error {
	if e == nil {
		return errors.New("energy: nil")
	}
	L := e.Labels
	if L < 1 {
		return fmt.Errorf("energy: Labels = %d, want >= 1", L)
	}
	if len(e.Unary)%L != 0 {
		return fmt.Errorf("energy: len(Unary) = %d is not a multiple of Labels = %d", len(e.Unary), L)
	}
	n := len(e.Unary) / L
	if want := len(e.Edges) * L * L; len(e.Pairwise) != want {
		return fmt.Errorf("energy: len(Pairwise) = %d, want len(Edges)*Labels² = %d*%d = %d",
			len(e.Pairwise), len(e.Edges), L*L, want)
	}
	// v − v is 0 for finite v and NaN for ±Inf and NaN: one cheap pass in
	// the common case, the detailed search only when something is off.
	finite := 0.0
	for _, v := range e.Unary {
		finite += v - v
	}
	for i := 0; i < n && finite != 0; i++ {
		for k := 0; k < L; k++ {
			if v := e.Unary[i*L+k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("energy: node %d label %d: unary cost is %v", i, k, v)
			}
		}
	}
	for j, ed := range e.Edges {
		a, b := ed[0], ed[1]
		if a < 0 || a >= n || b < 0 || b >= n {
			return fmt.Errorf("energy: edge %d (%d,%d): node out of range [0,%d)", j, a, b, n)
		}
		if a == b {
			return fmt.Errorf("energy: edge %d (%d,%d): self-loop", j, a, b)
		}
	}
	for _, v := range e.Pairwise {
		finite += v - v
	}
	for j := 0; j < len(e.Edges) && finite != 0; j++ {
		a, b := e.Edges[j][0], e.Edges[j][1]
		t := e.Pairwise[j*L*L : (j+1)*L*L]
		for k, v := range t {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("energy: edge %d (%d,%d) labels (%d,%d): pairwise cost is %v", j, a, b, k/L, k%L, v)
			}
		}
	}
	return nil
}

// Eval returns E(y). It panics if len(y) != Nodes() or a label is out of
// range (programmer error; check with CheckLabels for user data).
func (e *Energy) Eval(y []int) float64 {
	L := e.Labels
	if len(y) != e.Nodes() {
		panic(fmt.Sprintf("inference.Energy.Eval: len(y) = %d, want %d", len(y), e.Nodes()))
	}
	s := 0.0
	for i, k := range y {
		s += e.Unary[i*L+k]
	}
	for j, ed := range e.Edges {
		s += e.Pairwise[j*L*L+y[ed[0]]*L+y[ed[1]]]
	}
	return s
}

// CheckLabels reports whether y is a labelling of e: right length, labels in
// [0,Labels).
func (e *Energy) CheckLabels(y []int) error {
	if len(y) != e.Nodes() {
		return fmt.Errorf("labelling has %d nodes, energy has %d", len(y), e.Nodes())
	}
	for i, k := range y {
		if k < 0 || k >= e.Labels {
			return fmt.Errorf("node %d: label %d out of range [0,%d)", i, k, e.Labels)
		}
	}
	return nil
}

// Table returns the L×L pairwise table of edge j (a view, not a copy).
func (e *Energy) Table(j int) []float64 {
	L := e.Labels
	return e.Pairwise[j*L*L : (j+1)*L*L]
}

// Submodular reports whether edge j satisfies
// θ(α,α)+θ(β,β) <= θ(α,β)+θ(β,α) for all α < β; for two labels this is the
// usual θ(0,0)+θ(1,1) <= θ(0,1)+θ(1,0). A difference below a relative
// rounding tolerance counts as submodular.
func (e *Energy) Submodular(j int) bool {
	L := e.Labels
	t := e.Table(j)
	for a := 0; a < L; a++ {
		for b := a + 1; b < L; b++ {
			if !leq(t[a*L+a]+t[b*L+b], t[a*L+b]+t[b*L+a]) {
				return false
			}
		}
	}
	return true
}

// NonSubmodularEdges lists the edges for which Submodular is false.
func (e *Energy) NonSubmodularEdges() []int {
	var out []int
	for j := range e.Edges {
		if !e.Submodular(j) {
			out = append(out, j)
		}
	}
	return out
}

// leq is x <= y up to rounding of sums of a few float64 terms.
func leq(x, y float64) bool { return cut.AtMost(x, y) }

// adjacency lists, for each node, the incident edges (CSR layout).
type adjacency struct {
	start []int // len n+1
	edge  []int // edge ids
}

func newAdjacency(n int, edges [][2]int) adjacency {
	start := make([]int, n+1)
	for _, ed := range edges {
		start[ed[0]+1]++
		start[ed[1]+1]++
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	fill := append([]int(nil), start[:n]...)
	edge := make([]int, 2*len(edges))
	for j, ed := range edges {
		edge[fill[ed[0]]] = j
		fill[ed[0]]++
		edge[fill[ed[1]]] = j
		fill[ed[1]]++
	}
	return adjacency{start: start, edge: edge}
}

// localCost is the part of E that depends on y_i with label k, others fixed.
func (e *Energy) localCost(adj adjacency, y []int, i, k int) float64 {
	L := e.Labels
	c := e.Unary[i*L+k]
	for _, j := range adj.edge[adj.start[i]:adj.start[i+1]] {
		a, b := e.Edges[j][0], e.Edges[j][1]
		if a == i {
			c += e.Pairwise[j*L*L+k*L+y[b]]
		} else {
			c += e.Pairwise[j*L*L+y[a]*L+k]
		}
	}
	return c
}

// sameEdges reports whether two edge lists are identical.
func sameEdges(a, b [][2]int) bool { return cut.SameEdges(a, b) }
