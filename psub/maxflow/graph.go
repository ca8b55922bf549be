package maxflow

import (
	"fmt"
	"math"
	"sync"
)

// Indices are uint32: they load without sign extension, which shortens
// the dependent chains of loads (node to parent node, arc to node) that the
// search consists of.
const (
	// none marks an absent node.
	none uint32 = math.MaxUint32
	// Special values of node.parent; the values between are arcs. Arc 0 is
	// never used, so that a zero node is a free one.
	noParent uint32 = 0        // free node: in neither search tree
	terminal        = none - 1 // root: attached directly to its tree's terminal
	orphan          = none - 2 // lost its parent arc; waiting for adoption
	// maxEdges keeps arc indices below the special values.
	maxEdges = (orphan - 2) / 2
	maxNodes = math.MaxInt32
)

// orphanRoom is the room the orphan lists get at first (a variable so that
// a test can make them grow).
var orphanRoom = 1 << 16

// node is the per-node state of the Boykov–Kolmogorov search: 32 bytes.
type node struct {
	// parent is the residual arc of the node's tree edge: parent->node in
	// the source tree, node->parent in the sink tree (the arc an
	// augmentation sends flow through), or noParent / terminal / orphan.
	// The zero node is free and has no terminal capacity.
	parent uint32
	// pnode is the parent node, so that walking up a tree costs one load
	// per step.
	pnode  uint32
	ts     uint32 // time stamp of the last check that dist is exact
	dist   uint32 // distance to the terminal along the tree (heuristic)
	sink   bool   // in the sink tree (meaningful only when parent != noParent)
	active bool   // in the active queue, or being grown
	marked bool   // in the changed list for MaxFlowReuse
	deg    uint32 // number of arcs leaving the node (edges at it)
	// rCap is the residual terminal capacity: > 0 is residual capacity of
	// source->node, < 0 is minus the residual capacity of node->sink. One
	// number suffices because capacity present on both terminal arcs can
	// always be cancelled against the flow constant.
	rCap float64
}

// arc is one direction of an edge: 16 bytes. The arcs leaving node i are
// arcs[start[i]:start[i+1]] (arc 0 is a placeholder), in the order
// Kolmogorov's linked lists visit them (last added first), so that the
// search makes the same choices and computes the same flow, to the last
// bit, as his implementation. Keeping a node's arcs together, instead of in
// a linked list, lets a scan run ahead of its loads.
type arc struct {
	head   uint32 // node the arc points to
	sister uint32 // the reverse arc
	rCap   float64
}

// edgeRec is an edge as added: where its arcs are, or its ends, and its
// user-given capacities, kept so that capacities can be overwritten while
// a flow is kept valid. 24 bytes.
//
// x and y are the arcs i->j and j->i once the edge is laid out (its index
// below Graph.laid, or every edge while Graph.spec holds; see laidRec);
// the ends are then the arcs' heads (i = arcs[y].head, j = arcs[x].head),
// so that the record need not hold them: building writes a quarter less.
// Before, x and y are the ends i and j.
type edgeRec struct {
	x, y     uint32
	cap, rev float64
}

// pair is a node's user-given terminal capacities.
type pair struct{ a, b float64 }

// Graph is a directed graph with a source s and a sink t, float64
// capacities, and the state of the Boykov–Kolmogorov max-flow algorithm.
// Nodes are numbered 0..Nodes()-1 and edges 0..Edges()-1 in creation order.
//
// The zero value is an empty graph, as New(0, 0) returns it (Release leaves
// one). A Graph is not safe for concurrent use.
type Graph struct {
	nodes []node
	term  []pair    // per node: user capacities (s->i, i->t) as accumulated
	edge  []edgeRec // per edge, in creation order

	// The arcs, laid out from the edges when a solve first needs them
	// (layoutArcs): the edges edge[:laid] have their arcs at arcOf(e)
	// (i->j) and its sister (j->i); later edges have no flow yet.
	arcs []arc
	laid int

	// flow is the current flow value plus the constants folded in by
	// AddTerminal and by capacity updates: after a solve it is the min-cut
	// value.
	flow float64

	// Solver storage, sized by layoutArcs in one allocation (block) so
	// that a solve allocates nothing: start (len(nodes)+1) and the search
	// state. queue is the active FIFO, a ring of len(nodes) slots (a node is
	// in it at most once, flagged by node.active). Orphans are taken in
	// Kolmogorov's order: those of an augmentation last-made first (front,
	// a stack), each one's adoption, with all the orphans it makes
	// (orphans, a FIFO), finished before the next.
	block        []uint32
	start        []uint32
	queue        []uint32
	qHead, qSize int
	front        []uint32
	orphans      []uint32
	time         uint32   // incremented once per growth step
	changed      []uint32 // nodes marked by Update* since the last solve

	solved     bool // trees are those left by the last solve
	treesDirty bool // capacities changed without marking: trees unusable

	// After Clear, prev is the start array of the layout from before (in
	// block, where the next layout of as many nodes carves its start), and
	// while spec holds, every edge added since is the one its position held
	// before (AddEdges compares it with the old record, which the storage
	// still holds) and AddEdges has written its capacities into the arcs
	// kept from before. If the graph ends with as many nodes and edges as
	// before, it is the same graph, prev is its layout and its arcs are in
	// place: layoutArcs has nothing to do. A graph of one shape built again
	// with new capacities (a segmentation's grid, a learner's superpixel
	// graph) so skips the layout pass. AddEdges given a graph's first
	// edges leaves the same state when it lays their arcs out itself
	// (addEdgesLaidOut): prev is then that layout.
	prev []uint32
	spec bool
	// degStale: the nodes' deg fields may not count the edges (AddEdges
	// does not count those it writes in place or lays out itself);
	// countDegrees makes them right before anything reads them.
	degStale bool
	// edgeHint is New's edgeHint: AddEdges lays the arcs of a graph's
	// first edges out at once only when they are more than half of it
	// (see addEdgesLaidOut).
	edgeHint int
	// terms: terminal capacities were given since the graph was made,
	// cleared or reset, so that AddEdges looks for terminal capacity (see
	// addEdgesLaidOut) and MaxFlow for it only then, not through all
	// nodes of a graph that has none. Every change to a node's rCap
	// (shiftTerminal's callers) sets it.
	terms bool
}

// New returns an empty graph with room for nodeHint nodes and edgeHint edges
// (hints only; the graph grows as needed). It takes the storage of a graph
// given up with Release when one of about that size is there, and with it
// that graph's arc layout, as Clear keeps it: when the new graph turns out
// to have the released graph's edges, in the same order, AddEdges writes
// them into it and the solve skips laying them out.
func New(nodeHint, edgeHint int) *Graph {
	nodeHint = min(max(nodeHint, 0), maxNodes)
	edgeHint = min(max(edgeHint, 0), int(maxEdges))
	if s, _ := released.Get().(*storage); s != nil {
		if s.fits(nodeHint, edgeHint) {
			g := &Graph{nodes: s.nodes, term: s.term, edge: s.edge, arcs: s.arcs, block: s.block, changed: s.changed, edgeHint: edgeHint}
			if s.prev != nil {
				g.prev, g.spec, g.degStale = s.prev, true, true
			}
			return g
		}
		released.Put(s)
	}
	return &Graph{
		nodes:    make([]node, 0, nodeHint),
		term:     make([]pair, 0, nodeHint),
		edge:     make([]edgeRec, 0, edgeHint),
		edgeHint: edgeHint,
	}
}

// storage is the arrays of a graph given up with Release, kept for a later
// New, and its layout's start array (in block) when it was laid out.
type storage struct {
	nodes   []node
	term    []pair
	edge    []edgeRec
	arcs    []arc
	block   []uint32
	changed []uint32
	prev    []uint32
}

// released holds the storage of released graphs. A sync.Pool drops what
// is not taken again within a garbage collection or two, so storage given
// up and never asked for again does not stay.
var released sync.Pool

// fits reports whether s has room for the hints without being much larger
// (storage far too large for a graph would stay allocated while it lives).
func (s *storage) fits(nodes, edges int) bool {
	return cap(s.nodes) >= nodes && cap(s.term) >= nodes && cap(s.edge) >= edges &&
		cap(s.nodes) <= 4*nodes+1024 && cap(s.edge) <= 4*edges+1024
}

// Release empties g and gives its storage to a later New, as a C++
// program deletes a graph it is done with and gets the memory back from
// malloc for the next one: building graph after graph, of different
// shapes or in different places of a program, then allocates, zeroes and
// collects nothing. g itself stays usable as an empty graph (with no
// storage) and shares nothing with the storage given up.
func (g *Graph) Release() {
	s := &storage{g.nodes[:0], g.term[:0], g.edge[:0], g.arcs[:0], g.block[:0], g.changed[:0], nil}
	if g.laidOut() && len(g.nodes) > 0 {
		s.prev = g.start
	}
	*g = Graph{}
	if cap(s.nodes) > 0 || cap(s.edge) > 0 {
		released.Put(s)
	}
}

// Clear removes all nodes and edges, keeping the storage for the next
// graph built in it (like reset() in Kolmogorov's library): building many
// graphs one after the other in one Graph allocates nothing once it has
// held the largest. The arc layout is kept too: when AddEdges is given the
// same edges as before, in the same order (one shape, new capacities), it
// writes them into the arcs already laid out, and the solve skips laying
// them out.
func (g *Graph) Clear() {
	g.prev, g.spec = nil, false
	if g.laidOut() && len(g.nodes) > 0 {
		g.prev, g.spec = g.start, true
	}
	g.degStale = g.spec
	g.nodes, g.term, g.edge = g.nodes[:0], g.term[:0], g.edge[:0]
	g.arcs, g.laid = g.arcs[:0], 0
	g.start, g.queue = nil, nil
	g.flow = 0
	g.qHead, g.qSize = 0, 0
	g.front, g.orphans, g.changed = g.front[:0], g.orphans[:0], g.changed[:0]
	g.time, g.solved, g.treesDirty = 0, false, true
	g.terms = false
}

// AddNodes adds n nodes with no terminal capacity and returns the index of
// the first one.
func (g *Graph) AddNodes(n int) int {
	first := len(g.nodes)
	if n < 0 || n > maxNodes-first {
		panic(fmt.Sprintf("maxflow: AddNodes(%d) with %d nodes: count out of range", n, first))
	}
	g.nodes = append(g.nodes, make([]node, n)...)
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
	// Small enough to be inlined into a caller's loop: one test for both
	// values (x-x is NaN for NaN and ±Inf), a message without them.
	if source-source+(sink-sink) != 0 {
		panic("maxflow: AddTerminal: capacities must be finite (not NaN or infinite)")
	}
	t := &g.term[i]
	t.a += source
	t.b += sink
	g.treesDirty, g.terms = true, true
	g.shiftTerminal(&g.nodes[i], source, sink)
}

// addTerminal is AddTerminal without the checks, for validated input.
func (g *Graph) addTerminal(i int, source, sink float64) {
	t := &g.term[i]
	t.a += source
	t.b += sink
	g.shiftTerminal(&g.nodes[i], source, sink)
	g.treesDirty, g.terms = true, true
}

// SetTerminal overwrites the capacities of s->i and i->t (see AddTerminal
// for negative values). Like AddTerminal it keeps any current flow valid; it
// does not mark i for MaxFlowReuse (use UpdateTerminal for that).
func (g *Graph) SetTerminal(i int, source, sink float64) {
	if !finite(source) || !finite(sink) {
		panic(capacityError("SetTerminal", source, sink))
	}
	t := &g.term[i]
	g.shiftTerminal(&g.nodes[i], source-t.a, sink-t.b)
	t.a, t.b = source, sink
	g.treesDirty, g.terms = true, true
}

// UpdateTerminal is SetTerminal for dynamic graph cuts: it also marks i, so
// that MaxFlowReuse repairs the search trees around it.
func (g *Graph) UpdateTerminal(i int, source, sink float64) {
	if source-source+(sink-sink) != 0 { // NaN or ±Inf
		panic(capacityError("UpdateTerminal", source, sink))
	}
	n, t := &g.nodes[i], &g.term[i]
	g.shiftTerminal(n, source-t.a, sink-t.b)
	t.a, t.b = source, sink
	g.terms = true
	g.mark(n, uint32(i))
}

// shiftTerminal adds cs to the capacity of s->n and ct to that of n->t in
// the residual graph, keeping the current flow valid (Kolmogorov's
// add_tweights). With r the residual terminal capacity, the terminal part
// of the residual cut is max(r,0)·[n in T] + max(-r,0)·[n in S]; the new
// residual r+cs-ct gives the same function up to the constant returned to
// the flow value, which is min(cs + max(r,0), ct + max(-r,0)).
func (g *Graph) shiftTerminal(n *node, cs, ct float64) {
	if r := n.rCap; r > 0 {
		cs += r
	} else {
		ct -= r
	}
	// min has no branch to mispredict on random capacities; usually one
	// side is 0, and skipping the addition then keeps a run of calls from
	// waiting on one another through g.flow.
	if m := min(cs, ct); m != 0 {
		g.flow += m
	}
	n.rCap = cs - ct
}

// AddEdge adds the arc pair i->j with capacity cap and j->i with capacity
// revCap, and returns the edge's id (0, 1, 2, ... in call order).
// Capacities must be finite and >= 0 and i != j; anything else is a
// programmer error and panics (validate user data before, as the DIMACS
// reader does).
func (g *Graph) AddEdge(i, j int, cap, revCap float64) int {
	if n := uint(len(g.nodes)); uint(i) >= n || uint(j) >= n || i == j {
		panic(edgeError(i, j, len(g.nodes)))
	}
	if !edgeCapacity(cap) || !edgeCapacity(revCap) {
		panic(capacityError("AddEdge", cap, revCap))
	}
	return g.addEdge(i, j, cap, revCap)
}

// addEdge is AddEdge without the checks, for validated input. Growing the
// edge array is left to a function of its own so that this one keeps its
// arguments in registers.
func (g *Graph) addEdge(i, j int, c, revCap float64) int {
	e := len(g.edge)
	if e == cap(g.edge) {
		g.growEdges()
	}
	g.endSpec(e)
	if g.degStale {
		g.countDegrees(e)
	}
	ni, nj := &g.nodes[i], &g.nodes[j]
	g.edge = g.edge[:e+1]
	// Field by field: a composite literal would be built on the stack and
	// copied.
	ed := &g.edge[e]
	ed.x, ed.y, ed.cap, ed.rev = uint32(i), uint32(j), c, revCap
	ni.deg++
	nj.deg++
	g.treesDirty = true
	return e
}

//go:noinline
func (g *Graph) growEdges() {
	if len(g.edge) >= int(maxEdges) {
		panic("maxflow: AddEdge: too many edges for uint32 arc indices")
	}
	g.edge = append(g.edge, edgeRec{})[:len(g.edge)]
}

// laidOut reports whether the arcs and the solver storage fit the nodes
// and edges.
func (g *Graph) laidOut() bool {
	return g.laid == len(g.edge) && len(g.start) == len(g.nodes)+1
}

// layoutArcs lays the arcs out from the edges when edges or nodes were
// added since the last layout: node i's arcs go to arcs[start[i]:start[i+1]]
// in reverse order of addition, the order of Kolmogorov's linked lists.
// Residual capacities are carried over from the previous layout, so that
// any flow is kept; the search trees are not (edges or nodes were added, so
// the next solve builds them afresh).
func (g *Graph) layoutArcs() {
	if g.laidOut() {
		return
	}
	n, m := len(g.nodes), len(g.edge)
	// AddEdges put every arc where prev says (see Graph.prev): prev is
	// the layout, already in the block where it goes.
	spec := g.spec && g.laid == 0 && len(g.prev) == n+1 && int(g.prev[n]) == 2*m+1 && cap(g.arcs) >= 2*m+1
	prev := g.prev
	if !spec {
		g.endSpec(m)
	}
	g.prev, g.spec = nil, false
	// The flow on the edges laid out before, in edge order; their records
	// go back to ends (see edgeRec) for placeArcs.
	var kept []pair
	if g.laid > 0 {
		kept = make([]pair, g.laid)
		for e := range kept {
			ed := &g.edge[e]
			kept[e] = pair{g.arcs[ed.x].rCap, g.arcs[ed.y].rCap}
		}
		toEnds(g.edge[:g.laid], g.arcs)
		g.laid = 0 // the records hold ends now (laidRec)
	}
	b, room := g.solverBlock(n)
	g.queue, b = b[:n:n], b[n:]
	g.start, b = b[:n+1:n+1], b[n+1:]
	g.front, b = b[:0:room], b[room:]
	g.orphans = b[:0:room]
	g.qHead, g.qSize = 0, 0
	if cap(g.arcs) >= 2*m+1 {
		g.arcs = g.arcs[:2*m+1]
	} else {
		g.arcs = make([]arc, 2*m+1)
	}
	g.treesDirty = true
	if spec {
		// prev was carved from the same block for as many nodes, so it is
		// start already, unless the block was allocated again since.
		if &prev[0] != &g.start[0] {
			copy(g.start, prev)
		}
		g.laid = m
		return
	}
	if g.degStale {
		g.countDegrees(m)
	}
	start, nodes := g.start, g.nodes
	sum := uint32(1)
	for k := range nodes {
		start[k] = sum
		sum += nodes[k].deg
	}
	start[n] = sum
	g.placeArcs(kept)
	g.laid = m
}

// solverBlock returns the block for the node arrays of the solver for n
// nodes: the queue (n), start (n+1, from offset n) and front and orphans
// (room each). Orphans at once are at most the nodes (see adopt), but far
// fewer on large graphs: front and orphans get room for up to orphanRoom
// each and grow (once) beyond.
func (g *Graph) solverBlock(n int) (b []uint32, room int) {
	room = min(n, orphanRoom)
	size := 2*n + 1 + 2*room
	if cap(g.block) < size {
		g.block = make([]uint32, size)
	}
	return g.block[:size], room
}

// countDegrees sets every node's deg to the number of edges at it among
// the first m records (those of the graph, and those AddEdges is adding).
func (g *Graph) countDegrees(m int) {
	nodes := g.nodes
	for k := range nodes {
		nodes[k].deg = 0
	}
	for e := range m {
		i, j := g.edgeEnds(e)
		nodes[i].deg++
		nodes[j].deg++
	}
	g.degStale = false
}

// laidRec reports whether the record of edge e holds its arcs (see
// edgeRec): it is laid out, or written into the kept layout (Graph.spec;
// then g.laid is 0 and every record written holds arcs of prev's layout).
func (g *Graph) laidRec(e int) bool { return e < g.laid || g.spec }

// edgeEnds returns the ends of edge e, which AddEdges may be adding (e
// beyond the graph's edges) while its record is one of the graph's forms.
func (g *Graph) edgeEnds(e int) (i, j uint32) {
	ed := &g.edge[:cap(g.edge)][e]
	if g.laidRec(e) {
		arcs := g.arcs[:cap(g.arcs)]
		return arcs[ed.y].head, arcs[ed.x].head
	}
	return ed.x, ed.y
}

// toEnds turns the records of laid-out edges, whose arcs are in arcs, back
// into those of edges not laid out (see edgeRec).
func toEnds(recs []edgeRec, arcs []arc) {
	arcs = arcs[:cap(arcs)]
	for k := range recs {
		ed := &recs[k]
		ed.x, ed.y = arcs[ed.y].head, arcs[ed.x].head
	}
}

// endSpec ends the building in place after Clear (see Graph.prev): the
// records of the first m edges, which AddEdges wrote in place, go back to
// ends.
func (g *Graph) endSpec(m int) {
	if g.spec {
		toEnds(g.edge[:m], g.arcs)
		g.spec = false
	}
}

// arcOf returns the arc i->j of laid-out edge e.
func (g *Graph) arcOf(e int) uint32 { return g.edge[e].x }

// placeArcs writes the arcs of every edge, and the arcs into its record,
// with the residual capacities kept for the first edges and the user's for
// the others: a counting sort, node i's arcs put one below the other from
// the end of its block down, so that the block lists them last-added
// first. The queue, free until the solve, holds the blocks' moving ends.
func (g *Graph) placeArcs(kept []pair) {
	start, arcs := g.start, g.arcs
	pos := g.queue[:len(start)-1]
	copy(pos, start[1:])
	edges := g.edge
	for k := range edges {
		// Fields into locals: a range copy of the record, or a composite
		// literal stored into arcs, would go through the stack.
		ed := &edges[k]
		i, j, c, r := ed.x, ed.y, ed.cap, ed.rev
		a := pos[i] - 1
		pos[i] = a
		b := pos[j] - 1
		pos[j] = b
		ed.x, ed.y = a, b
		x, y := &arcs[a], &arcs[b]
		x.head, x.sister, x.rCap = j, b, c
		y.head, y.sister, y.rCap = i, a, r
	}
	for e, r := range kept {
		ed := &edges[e]
		arcs[ed.x].rCap = r.a
		arcs[ed.y].rCap = r.b
	}
}

// EdgeNodes returns the endpoints (i, j) of edge e as given to AddEdge.
func (g *Graph) EdgeNodes(e int) (i, j int) {
	_ = g.edge[e] // the index check
	a, b := g.edgeEnds(e)
	return int(a), int(b)
}

// SetEdge overwrites the capacities of edge e (i->j gets cap, j->i gets
// revCap). It keeps any current flow valid (see UpdateEdge) but does not
// mark the endpoints for MaxFlowReuse.
func (g *Graph) SetEdge(e int, cap, revCap float64) {
	if !edgeCapacity(cap) || !edgeCapacity(revCap) {
		panic(capacityError("SetEdge", cap, revCap))
	}
	g.setEdge(e, cap, revCap, false)
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
	if !edgeCapacity(cap) || !edgeCapacity(revCap) {
		panic(capacityError("UpdateEdge", cap, revCap))
	}
	g.setEdge(e, cap, revCap, true)
}

// setEdge sets the capacities of edge e, keeping the flow valid, and
// either marks its ends for MaxFlowReuse (update) or makes the trees
// unusable for it. One function for both, so that a call costs one call.
func (g *Graph) setEdge(e int, cap, revCap float64, update bool) {
	ed := &g.edge[e]
	var i, j uint32
	if e < g.laid { // else no arcs yet, so no flow: the capacities are all
		a, b := &g.arcs[ed.x], &g.arcs[ed.y]
		i, j = b.head, a.head
		ra := a.rCap + (cap - ed.cap)
		rb := b.rCap + (revCap - ed.rev)
		if ra >= 0 && rb >= 0 {
			a.rCap, b.rCap = ra, rb
		} else {
			g.reparameterise(i, j, a, b, ra, rb, cap+revCap)
		}
	} else {
		g.endSpec(len(g.edge)) // AddEdges may have written its arcs
		i, j = ed.x, ed.y
	}
	ed.cap, ed.rev = cap, revCap
	if !update {
		g.treesDirty = true
		return
	}
	nodes := g.nodes
	g.mark(&nodes[i], i)
	g.mark(&nodes[j], j)
}

// reparameterise handles a new capacity below the flow the edge i->j
// carries (a is the arc i->j, b the arc j->i).
// ra+rb = cap+revCap >= 0, so only one of ra, rb is negative. A negative
// residual x on i->j is rewritten with
// x[i∈S][j∈T] = x[i∈S] - x[j∈S] + x[i∈T][j∈S]: the arc pair becomes
// (0, x+rb) and the unary terms go to the terminals.
//
// sum is cap+revCap: ra+rb without the rounding of ra and rb.
func (g *Graph) reparameterise(i, j uint32, a, b *arc, ra, rb, sum float64) {
	ni, nj := &g.nodes[i], &g.nodes[j]
	g.terms = true // the nodes get terminal capacity (see MaxFlow)
	if ra < 0 {
		a.rCap, b.rCap = 0, sum
		g.shiftTerminal(ni, 0, ra)  // adds ra·[i in S] (a deficit)
		g.shiftTerminal(nj, 0, -ra) // adds -ra·[j in S]
	} else {
		a.rCap, b.rCap = sum, 0
		g.shiftTerminal(nj, 0, rb)
		g.shiftTerminal(ni, 0, -rb)
	}
}

// ResetCapacities sets every capacity and the flow to zero and forgets the
// search trees, keeping nodes, edges and all storage (nothing is
// reallocated). Set the new capacities with SetTerminal/AddTerminal and
// SetEdge, then call MaxFlow.
func (g *Graph) ResetCapacities() {
	for k := range g.nodes {
		n := &g.nodes[k]
		*n = node{deg: n.deg}
	}
	for k := range g.arcs {
		g.arcs[k].rCap = 0
	}
	clear(g.term)
	for k := range g.edge {
		g.edge[k].cap, g.edge[k].rev = 0, 0
	}
	g.flow = 0
	g.qHead, g.qSize = 0, 0
	g.front, g.orphans = g.front[:0], g.orphans[:0]
	g.changed = g.changed[:0]
	g.time = 0
	g.solved = false
	g.treesDirty, g.terms = true, false
	g.endSpec(len(g.edge))
}

// Flow returns the current flow value (the min-cut value after a solve),
// including the constants from AddTerminal.
func (g *Graph) Flow() float64 { return g.flow }

// EdgeFlow returns the flow on edge e from i to j (negative: from j to i).
func (g *Graph) EdgeFlow(e int) float64 {
	if e >= g.laid {
		_ = g.edge[e] // the index check
		return 0
	}
	return g.edge[e].cap - g.arcs[g.arcOf(e)].rCap
}

// Capacities returns the capacities of edge e as last set by the user.
func (g *Graph) Capacities(e int) (cap, revCap float64) {
	return g.edge[e].cap, g.edge[e].rev
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

// mark puts node i, which is n, in the changed list for MaxFlowReuse.
func (g *Graph) mark(n *node, i uint32) {
	if !n.marked {
		n.marked = true
		g.changed = append(g.changed, i)
	}
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return x-x == 0 }

// edgeCapacity reports whether x is a valid edge capacity: finite, >= 0.
func edgeCapacity(x float64) bool { return x >= 0 && x <= math.MaxFloat64 }

// The messages of the checks' panics are made in functions of their own,
// so that the checked functions stay short and keep their arguments in
// registers.

//go:noinline
func capacityError(op string, a, b float64) string {
	if op == "AddTerminal" || op == "SetTerminal" || op == "UpdateTerminal" {
		return fmt.Sprintf("maxflow: %s(%g, %g): capacities must be finite", op, a, b)
	}
	return fmt.Sprintf("maxflow: %s capacities (%g, %g): must be finite and >= 0", op, a, b)
}

//go:noinline
func edgeError(i, j, n int) string {
	return fmt.Sprintf("maxflow: AddEdge(%d, %d) with %d nodes: need distinct nodes in [0, %d)", i, j, n, n)
}
