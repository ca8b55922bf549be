package cut

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/psub/maxflow"
)

// AtMost reports x ≤ y up to the rounding of sums of a few float64 terms:
// the test every binary method applies to θ00+θ11 ≤ θ01+θ10 before it calls
// an edge non-submodular.
func AtMost(x, y float64) bool {
	return x <= y+1e-12*(1+math.Abs(x)+math.Abs(y))
}

// Binary is a binary energy in normal form and the max-flow graph it is
// loaded into: node i is labelled 1 when it ends on the sink side. The
// graph is kept across loads with the same edges; capacities are reset in
// place.
type Binary struct {
	// Dynamic updates only the changed capacities of a kept graph and
	// reuses its flow and search trees (Kohli & Torr 2005).
	Dynamic bool
	// Lin is cost(1) − cost(0) per node, W the coefficient of (1−y_a)·y_b
	// per edge (≥ 0), Konst the constant the minimum is reported with. The
	// caller fills them before Load; they are used as given, not copied.
	Lin, W []float64
	Konst  float64

	reused bool // the last load kept the graph (so MaxFlowReuse applies)
	g      *maxflow.Graph
	n      int
	edges  [][2]int
	eid    []int
	// src, snk and zero are the bulk calls' capacity buffers, kept
	// across loads.
	src, snk, zero []float64
}

// Load puts Lin and W into the graph for n nodes and these edges.
func (b *Binary) Load(n int, edges [][2]int) {
	b.reused = b.holds(n, edges)
	b.loadCaps(n, edges)
}

// holds reports whether the max-flow graph was built for these edges.
func (b *Binary) holds(n int, edges [][2]int) bool {
	return b.g != nil && b.n == n && SameEdges(b.edges, edges)
}

// loadCaps sets the capacities from Lin and W, into the kept graph when
// b.reused, else into a new one. The bulk calls of maxflow check and write
// all nodes and edges in one pass (a loop of single calls spends about half
// its time calling); UpdateTerminals and UpdateEdges touch only what
// changed, which is what lets the dynamic solve reuse its trees.
func (b *Binary) loadCaps(n int, edges [][2]int) {
	b.terminals(n)
	if len(b.zero) < len(edges) {
		b.zero = make([]float64, len(edges))
	}
	w, zero := b.W[:len(edges)], b.zero[:len(edges)]
	if b.reused && b.Dynamic {
		b.g.UpdateTerminals(b.src, b.snk)
		b.g.UpdateEdges(w, zero)
		return
	}
	if b.reused {
		b.g.ResetCapacities()
		for i := 0; i < n; i++ {
			b.g.SetTerminal(i, b.src[i], b.snk[i])
		}
		for j := range edges {
			b.g.SetEdge(b.eid[j], w[j], 0)
		}
		return
	}
	if b.g != nil {
		b.g.Release() // its storage goes to the new graph when it fits
	}
	b.g = maxflow.New(n, len(edges))
	b.n = n
	b.edges = append(b.edges[:0], edges...)
	b.g.AddTerminalNodes(b.src, b.snk)
	first := b.g.AddEdges(edges, w, zero)
	b.eid = b.eid[:0]
	for j := range edges {
		b.eid = append(b.eid, first+j)
	}
}

// terminals splits Lin into source and sink capacities for n nodes.
func (b *Binary) terminals(n int) {
	if cap(b.src) < n {
		b.src, b.snk = make([]float64, n), make([]float64, n)
	}
	b.src, b.snk = b.src[:n], b.snk[:n]
	for i, l := range b.Lin[:n] {
		b.src[i], b.snk[i] = math.Max(l, 0), math.Max(-l, 0)
	}
}

// Solve runs max-flow, sets sw[i] = 1 for sink-side nodes and returns the
// minimum of the loaded energy plus Konst. The sink side is the set of
// nodes that can reach the sink in the residual graph: among several
// minimisers, the one with the fewest 1s.
func (b *Binary) Solve(sw []int) float64 {
	var f float64
	if b.Dynamic && b.reused {
		f = b.g.MaxFlowReuse()
	} else {
		f = b.g.MaxFlow()
	}
	for i := range sw {
		sw[i] = 0
		if !b.g.InSourceSide(i) {
			sw[i] = 1
		}
	}
	return f + b.Konst
}

// FiniteCaps rejects reparametrised costs that overflowed (finite inputs
// near ±MaxFloat64 can sum to ±Inf), which max-flow cannot take.
func FiniteCaps(lin, w []float64, edges [][2]int) error {
	for i, v := range lin {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("node %d: costs too large: reparametrised unary overflows to %v", i, v)
		}
	}
	for j, v := range w {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("edge %d (%d,%d): costs too large: θ01+θ10−θ00−θ11 overflows to %v", j, edges[j][0], edges[j][1], v)
		}
	}
	return nil
}

// SameEdges reports whether two edge lists are identical.
func SameEdges(a, b [][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 0 && &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
