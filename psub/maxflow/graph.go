package maxflow

import (
	"fmt"
	"math"
	"slices"
)

// Special values of node.parent. A non-negative parent is the index of the
// arc from the node to its parent in its search tree.
const (
	noParent int32 = -1 // free node: in neither search tree
	terminal int32 = -2 // root: attached directly to its tree's terminal
	orphan   int32 = -3 // lost its parent arc; waiting for adoption
)

// notActive is node.next for a node outside the active queue. The last node
// of the queue points to itself, so "next != notActive" means "active".
const notActive int32 = -1

// node is the hot per-node state of the Boykov–Kolmogorov search: 32 bytes.
type node struct {
	first  int32 // first outgoing arc, -1 if none; arcs form a linked list
	parent int32 // arc to the parent, or noParent / terminal / orphan
	next   int32 // next node in the active queue, or notActive
	ts     int32 // time stamp of the last check that dist is exact
	dist   int32 // distance to the terminal along the tree (heuristic)
	sink   bool  // in the sink tree (meaningful only when parent != noParent)
	marked bool  // in the changed list for MaxFlowReuse
	// rCap is the residual terminal capacity: > 0 is residual capacity of
	// source->node, < 0 is minus the residual capacity of node->sink. One
	// number suffices because capacity present on both terminal arcs can
	// always be cancelled against the flow constant.
	rCap float64
}

// arc is one direction of an edge: 16 bytes. Arcs 2e and 2e+1 are the two
// directions of edge e, so the reverse ("sister") of arc a is a^1.
type arc struct {
	head int32 // node the arc points to
	next int32 // next arc leaving the same tail, -1 at the end
	rCap float64
}

// pair is a pair of original (user-given) capacities, kept outside the hot
// arrays so that capacities can be overwritten while a flow is kept valid.
type pair struct{ a, b float64 }

// Graph is a directed graph with a source s and a sink t, float64
// capacities, and the state of the Boykov–Kolmogorov max-flow algorithm.
// Nodes are numbered 0..Nodes()-1 and edges 0..Edges()-1 in creation order.
//
// The zero value is not usable; call New. A Graph is not safe for concurrent
// use.
type Graph struct {
	nodes []node
	arcs  []arc
	term  []pair // per node: user capacities (s->i, i->t) as accumulated
	edge  []pair // per edge: user capacities (i->j, j->i)

	// flow is the current flow value plus the constants folded in by
	// AddTerminal and by capacity updates: after a solve it is the min-cut
	// value.
	flow float64

	// Search state.
	qFirst, qLast int32   // active queue (FIFO linked through node.next)
	orphans       []int32 // orphan FIFO; orphans[oHead:] are pending
	oHead         int
	time          int32   // incremented once per growth step
	changed       []int32 // nodes marked by Update* since the last solve

	solved     bool // trees are those left by the last solve
	treesDirty bool // capacities changed without marking: trees unusable
}

// New returns an empty graph with room for nodeHint nodes and edgeHint edges
// (hints only; the graph grows as needed).
func New(nodeHint, edgeHint int) *Graph {
	nodeHint = max(nodeHint, 0)
	edgeHint = max(edgeHint, 0)
	return &Graph{
		nodes:  make([]node, 0, nodeHint),
		arcs:   make([]arc, 0, 2*edgeHint),
		term:   make([]pair, 0, nodeHint),
		edge:   make([]pair, 0, edgeHint),
		qFirst: -1,
		qLast:  -1,
	}
}

// AddNodes adds n nodes with no terminal capacity and returns the index of
// the first one.
func (g *Graph) AddNodes(n int) int {
	first := len(g.nodes)
	if n < 0 || first+n > math.MaxInt32 {
		panic(fmt.Sprintf("maxflow: AddNodes(%d) with %d nodes: count out of range", n, first))
	}
	g.nodes = slices.Grow(g.nodes, n)
	for range n {
		g.nodes = append(g.nodes, node{first: -1, parent: noParent, next: notActive})
	}
	g.term = append(g.term, make([]pair, n)...)
	g.treesDirty = true
	return first
}

// Nodes returns the number of nodes (s and t excluded).
func (g *Graph) Nodes() int { return len(g.nodes) }

// Edges returns the number of edges added by AddEdge.
func (g *Graph) Edges() int { return len(g.edge) }

// AddTerminal adds source to the capacity of s->i and sink to that of i->t,
// like add_tweights in Kolmogorov's library.
//
// Only the difference source-sink is kept as a residual capacity: when both
// capacities are positive, min(source, sink) is cut whichever side i ends on,
// so it is added to the flow value at once. The same shift makes negative
// values legal here: the terminal term of node i in the cut is
// sink·[i in S] + source·[i in T], which stays well defined for any reals,
// and MaxFlow returns the minimum of that energy (possibly negative).
// NaN or infinite values are a programmer error and panic.
//
// AddTerminal may be called at any time; after a solve it keeps the current
// flow valid, and the next MaxFlow (not MaxFlowReuse) gives the new min cut.
func (g *Graph) AddTerminal(i int, source, sink float64) {
	checkFinite("AddTerminal", source, sink)
	t := &g.term[i]
	g.shiftTerminal(i, source, sink)
	t.a += source
	t.b += sink
	g.treesDirty = true
}

// SetTerminal overwrites the capacities of s->i and i->t (see AddTerminal
// for negative values). Like AddTerminal it keeps any current flow valid; it
// does not mark i for MaxFlowReuse (use UpdateTerminal for that).
func (g *Graph) SetTerminal(i int, source, sink float64) {
	checkFinite("SetTerminal", source, sink)
	t := &g.term[i]
	g.shiftTerminal(i, source-t.a, sink-t.b)
	t.a, t.b = source, sink
	g.treesDirty = true
}

// UpdateTerminal is SetTerminal for dynamic graph cuts: it also marks i, so
// that MaxFlowReuse repairs the search trees around it.
func (g *Graph) UpdateTerminal(i int, source, sink float64) {
	checkFinite("UpdateTerminal", source, sink)
	t := &g.term[i]
	g.shiftTerminal(i, source-t.a, sink-t.b)
	t.a, t.b = source, sink
	g.mark(int32(i))
}

// shiftTerminal adds ds to the capacity of s->i and dt to that of i->t in
// the residual graph, keeping the current flow valid. With r the residual
// terminal capacity, the terminal part of the residual cut is
// max(r,0)·[i in T] + max(-r,0)·[i in S]; the new residual r+ds-dt gives the
// same function up to the constant returned to the flow value, which is
// min(ds + max(r,0), dt + max(-r,0)).
func (g *Graph) shiftTerminal(i int, ds, dt float64) {
	n := &g.nodes[i]
	r := n.rCap
	cs, ct := ds+max(r, 0), dt+max(-r, 0)
	g.flow += min(cs, ct)
	n.rCap = cs - ct
}

// AddEdge adds the arc pair i->j with capacity cap and j->i with capacity
// revCap, and returns the edge's id (0, 1, 2, ... in call order).
// Capacities must be finite and >= 0 and i != j; anything else is a
// programmer error and panics (validate user data before, as the DIMACS
// reader does).
func (g *Graph) AddEdge(i, j int, cap, revCap float64) int {
	n := len(g.nodes)
	if i < 0 || i >= n || j < 0 || j >= n || i == j {
		panic(fmt.Sprintf("maxflow: AddEdge(%d, %d) with %d nodes: need distinct nodes in [0, %d)", i, j, n, n))
	}
	checkEdgeCaps("AddEdge", cap, revCap)
	return g.addEdge(i, j, cap, revCap)
}

// addEdge is AddEdge without the checks, for validated input.
func (g *Graph) addEdge(i, j int, cap, revCap float64) int {
	e := len(g.edge)
	if 2*e+1 > math.MaxInt32 {
		panic("maxflow: AddEdge: too many edges for int32 arc indices")
	}
	a := int32(2 * e)
	g.arcs = append(g.arcs,
		arc{head: int32(j), next: g.nodes[i].first, rCap: cap},
		arc{head: int32(i), next: g.nodes[j].first, rCap: revCap})
	g.nodes[i].first = a
	g.nodes[j].first = a + 1
	g.edge = append(g.edge, pair{cap, revCap})
	g.treesDirty = true
	return e
}

// EdgeNodes returns the endpoints (i, j) of edge e as given to AddEdge.
func (g *Graph) EdgeNodes(e int) (i, j int) {
	return int(g.arcs[2*e+1].head), int(g.arcs[2*e].head)
}

// SetEdge overwrites the capacities of edge e (i->j gets cap, j->i gets
// revCap). It keeps any current flow valid (see UpdateEdge) but does not
// mark the endpoints for MaxFlowReuse.
func (g *Graph) SetEdge(e int, cap, revCap float64) {
	checkEdgeCaps("SetEdge", cap, revCap)
	g.setEdge(e, cap, revCap)
	g.treesDirty = true
}

// UpdateEdge is SetEdge for dynamic graph cuts: it also marks both
// endpoints for MaxFlowReuse.
//
// When a new capacity is below the flow the edge carries, the flow on the
// edge is cut back to the capacity and the surplus at the tail and deficit
// at the head are moved to the terminal arcs (Kohli & Torr's
// reparameterisation), so the residual graph stays valid and still encodes
// the same cut function up to a constant, which goes into the flow value.
func (g *Graph) UpdateEdge(e int, cap, revCap float64) {
	checkEdgeCaps("UpdateEdge", cap, revCap)
	g.setEdge(e, cap, revCap)
	i, j := g.EdgeNodes(e)
	g.mark(int32(i))
	g.mark(int32(j))
}

func (g *Graph) setEdge(e int, cap, revCap float64) {
	old := &g.edge[e]
	a, b := &g.arcs[2*e], &g.arcs[2*e+1]
	ra := a.rCap + (cap - old.a)
	rb := b.rCap + (revCap - old.b)
	old.a, old.b = cap, revCap
	// ra+rb = cap+revCap >= 0, so at most one of them is negative. A
	// negative residual x on i->j is rewritten with
	// x[i∈S][j∈T] = x[i∈S] - x[j∈S] + x[i∈T][j∈S]: the arc pair becomes
	// (0, x+rb) and the unary terms go to the terminals.
	i, j := int(b.head), int(a.head)
	switch {
	case ra < 0:
		// cap+revCap is ra+rb without the rounding of ra and rb.
		a.rCap, b.rCap = 0, cap+revCap
		g.shiftTerminal(i, 0, ra)  // adds ra·[i in S] (a deficit)
		g.shiftTerminal(j, 0, -ra) // adds -ra·[j in S]
	case rb < 0:
		a.rCap, b.rCap = cap+revCap, 0
		g.shiftTerminal(j, 0, rb)
		g.shiftTerminal(i, 0, -rb)
	default:
		a.rCap, b.rCap = ra, rb
	}
}

// ResetCapacities sets every capacity and the flow to zero and forgets the
// search trees, keeping nodes, edges and all storage (nothing is
// reallocated). Set the new capacities with SetTerminal/AddTerminal and
// SetEdge, then call MaxFlow.
func (g *Graph) ResetCapacities() {
	for k := range g.nodes {
		n := &g.nodes[k]
		n.parent, n.next, n.ts, n.dist, n.sink, n.marked, n.rCap = noParent, notActive, 0, 0, false, false, 0
	}
	for k := range g.arcs {
		g.arcs[k].rCap = 0
	}
	clear(g.term)
	clear(g.edge)
	g.flow = 0
	g.qFirst, g.qLast = -1, -1
	g.orphans, g.oHead = g.orphans[:0], 0
	g.changed = g.changed[:0]
	g.time = 0
	g.solved = false
	g.treesDirty = true
}

// Flow returns the current flow value (the min-cut value after a solve),
// including the constants from AddTerminal.
func (g *Graph) Flow() float64 { return g.flow }

// EdgeFlow returns the flow on edge e from i to j (negative: from j to i).
func (g *Graph) EdgeFlow(e int) float64 {
	return g.edge[e].a - g.arcs[2*e].rCap
}

// Capacities returns the capacities of edge e as last set by the user.
func (g *Graph) Capacities(e int) (cap, revCap float64) {
	return g.edge[e].a, g.edge[e].b
}

// Terminal returns the terminal capacities of node i as accumulated by
// AddTerminal or last set by SetTerminal/UpdateTerminal.
func (g *Graph) Terminal(i int) (source, sink float64) {
	return g.term[i].a, g.term[i].b
}

// InSourceSide reports whether node i is on the source side S of the
// minimum cut found by the last solve. S is the complement of the sink
// search tree: nodes that can still reach t in the residual graph are in T,
// all others (including free nodes, like Kolmogorov's default) are in S.
// Before any solve every node is reported in S.
func (g *Graph) InSourceSide(i int) bool {
	n := &g.nodes[i]
	return !(n.sink && n.parent != noParent)
}

// ReachesSink reports whether node i can send flow to t in the residual
// graph of the last solve (it is in the sink search tree). Such nodes are in
// T in every minimum cut.
func (g *Graph) ReachesSink(i int) bool {
	n := &g.nodes[i]
	return n.sink && n.parent != noParent
}

// ReachableFromSource reports whether node i can get flow from s in the
// residual graph of the last solve (it is in the source search tree). Such
// nodes are in S in every minimum cut; nodes for which neither this nor
// ReachesSink holds may lie on either side of a minimum cut.
func (g *Graph) ReachableFromSource(i int) bool {
	n := &g.nodes[i]
	return !n.sink && n.parent != noParent
}

func (g *Graph) mark(i int32) {
	n := &g.nodes[i]
	if !n.marked {
		n.marked = true
		g.changed = append(g.changed, i)
	}
}

func checkFinite(op string, a, b float64) {
	if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
		panic(fmt.Sprintf("maxflow: %s(%g, %g): capacities must be finite", op, a, b))
	}
}

func checkEdgeCaps(op string, a, b float64) {
	if !(a >= 0 && b >= 0 && a <= math.MaxFloat64 && b <= math.MaxFloat64) {
		panic(fmt.Sprintf("maxflow: %s capacities (%g, %g): must be finite and >= 0", op, a, b))
	}
}
