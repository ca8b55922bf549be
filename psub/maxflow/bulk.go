package maxflow

import (
	"fmt"
	"slices"
)

// The functions here do what AddTerminal, AddEdge, UpdateTerminal and
// UpdateEdge do, for many nodes or edges in one call: Go does not inline
// those, and a loop over them spends half its time calling (AddEdge from a
// loop takes about twice as long per edge as AddEdges). Each checks all
// its input before changing anything, and panics, as the single versions
// do, on a programmer error.

// AddTerminals adds source[k] to the capacity of s->(first+k) and sink[k]
// to that of (first+k)->t for every k, as AddTerminal does.
func (g *Graph) AddTerminals(first int, source, sink []float64) {
	if len(source) != len(sink) || first < 0 || first > len(g.nodes)-len(source) {
		panic(fmt.Sprintf("maxflow: AddTerminals(%d, %d sources, %d sinks) with %d nodes: lengths or range wrong",
			first, len(source), len(sink), len(g.nodes)))
	}
	nz := uint64(0) // any capacity not +0 (see Graph.terms)
	for k := range source {
		if source[k]-source[k]+(sink[k]-sink[k]) != 0 {
			panic(fmt.Sprintf("maxflow: AddTerminals: node %d: capacities (%g, %g) must be finite", first+k, source[k], sink[k]))
		}
		nz |= bits(source[k]) | bits(sink[k])
	}
	nodes, term := g.nodes[first:first+len(source)], g.term[first:first+len(source)]
	for k := range nodes {
		s, t := source[k], sink[k]
		term[k].a += s
		term[k].b += t
		g.shiftTerminal(&nodes[k], s, t)
	}
	g.treesDirty = true
	g.terms = g.terms || nz != 0
}

// AddTerminalNodes adds len(source) nodes, giving node first+k the
// capacity source[k] on s->(first+k) and sink[k] on (first+k)->t, and
// returns first: AddNodes followed by AddTerminals, in one pass over the
// new nodes instead of one that clears them and one that reads them back.
func (g *Graph) AddTerminalNodes(source, sink []float64) int {
	first, n := len(g.nodes), len(source)
	if len(sink) != n || n > maxNodes-first {
		panic(fmt.Sprintf("maxflow: AddTerminalNodes(%d sources, %d sinks) with %d nodes: lengths or count wrong", n, len(sink), first))
	}
	if first+n > cap(g.nodes) || first+n > cap(g.term) {
		g.growNodes(n)
	}
	// The new nodes are written past the graph's and become its own only
	// when all are written, so that a bad capacity leaves the graph as it
	// was; the flow is summed in the order AddTerminals adds to it.
	nodes, term := g.nodes[first:first+n], g.term[first:first+n]
	sink = sink[:n]
	flow, nz := g.flow, uint64(0)
	for k := range nodes {
		s, t := source[k], sink[k]
		if s-s+(t-t) != 0 {
			panic(fmt.Sprintf("maxflow: AddTerminalNodes: node %d: capacities (%g, %g) must be finite", first+k, s, t))
		}
		nz |= bits(s) | bits(t)
		// What AddTerminal gives a new node (rCap 0: shiftTerminal adds
		// min(s, t) to the flow and keeps s-t); 0+s as term's 0 += s.
		nd := &nodes[k]
		*nd = node{}
		nd.rCap = s - t
		if m := min(s, t); m != 0 {
			flow += m
		}
		tm := &term[k]
		tm.a, tm.b = 0+s, 0+t
	}
	g.nodes, g.term = g.nodes[:first+n], g.term[:first+n]
	g.flow = flow
	g.treesDirty = true
	g.terms = g.terms || nz != 0
	return first
}

// growNodes makes room for n more nodes.
//
//go:noinline
func (g *Graph) growNodes(n int) {
	g.nodes = slices.Grow(g.nodes, n)
	g.term = slices.Grow(g.term, n)
}

// AddEdges adds an edge ends[k][0]->ends[k][1] with capacities caps[k] and
// revCaps[k] for every k, as AddEdge does, and returns the id of the first;
// the others follow in order.
func (g *Graph) AddEdges(ends [][2]int, caps, revCaps []float64) int {
	if len(caps) != len(ends) || len(revCaps) != len(ends) {
		panic(fmt.Sprintf("maxflow: AddEdges: %d edges, %d and %d capacities", len(ends), len(caps), len(revCaps)))
	}
	first := len(g.edge)
	if len(ends) > int(maxEdges)-first {
		panic("maxflow: AddEdges: too many edges for uint32 arc indices")
	}
	if first+len(ends) > cap(g.edge) {
		g.edge = append(g.edge[:cap(g.edge)], make([]edgeRec, first+len(ends)-cap(g.edge))...)[:first]
	}
	// One pass that checks each edge and writes its record past the
	// graph's edges (growing its ends' degrees); the records become the
	// graph's only once all are checked. A bad edge undoes the degrees, so
	// that the graph is left as it was.
	recs, nodes := g.edge[first:first+len(ends)], g.nodes
	n := uint(len(nodes))
	caps, revCaps = caps[:len(recs)], revCaps[:len(recs)]
	k0 := 0
	if g.spec {
		k0 = g.addEdgesInPlace(recs, ends, caps, revCaps)
	}
	// The graph's first edges, not (all) those it had before Clear or
	// Release: laid out at once, even when some of the first were (their
	// records and arcs are written again), unless no node has terminal
	// capacity yet (a solve of such a graph lays nothing out: MaxFlow).
	if k0 < len(recs) && first == 0 && 2*len(recs) > g.edgeHint && g.terms && g.hasTerminals() {
		if g.addEdgesLaidOut(recs, ends, caps, revCaps) {
			g.edge = g.edge[:len(recs)]
			g.treesDirty = true
			return 0
		}
		k0 = 0 // a bad edge, for the loop below to report
	}
	if k0 < len(recs) {
		g.endSpec(first + k0)
		if g.degStale {
			g.countDegrees(first + k0)
		}
	}
	for k := k0; k < len(recs); k++ {
		i, j := ends[k][0], ends[k][1]
		c, r := caps[k], revCaps[k]
		if uint(i) >= n || uint(j) >= n || i == j || !edgeCapacity(c) || !edgeCapacity(r) {
			for _, ed := range recs[:k] {
				nodes[ed.x].deg--
				nodes[ed.y].deg--
			}
			panic(addEdgesError(k, i, j, int(n), c, r))
		}
		ni, nj := &nodes[i], &nodes[j]
		ed := &recs[k]
		ed.x, ed.y, ed.cap, ed.rev = uint32(i), uint32(j), c, r
		ni.deg++
		nj.deg++
	}
	g.edge = g.edge[:first+len(recs)]
	g.treesDirty = true
	return first
}

// addEdgesInPlace is AddEdges's loop while the graph is being built again
// as it was before Clear (see Graph.prev): as long as every edge is the
// one the same position held before, the edges' records beyond the
// graph's (the old ones, laid out) give its arcs, and only the capacities
// need writing: the arcs' heads and sisters are those of the layout kept.
// The nodes' degrees are left to countDegrees (see Graph.degStale): they
// are the old ones if the graph comes out the same. It stops at the first
// edge that differs from the old one or is bad, for AddEdges's loop to
// write or report (after endSpec: the arcs are then laid out from the
// edges as usual), and returns how many edges it wrote.
func (g *Graph) addEdgesInPlace(recs []edgeRec, ends [][2]int, caps, revCaps []float64) int {
	if len(g.prev) != len(g.nodes)+1 {
		return 0
	}
	// The old records are those of the edges laid out before Clear.
	old := int(g.prev[len(g.nodes)]-1)/2 - len(g.edge)
	recs = recs[:max(min(old, len(recs)), 0)]
	arcs := g.arcs[:cap(g.arcs)]
	// The same length for all, so that one bounds check serves them.
	ends, caps, revCaps = ends[:len(recs)], caps[:len(recs)], revCaps[:len(recs)]
	// Other edges than before usually differ all along: eight edges spread
	// over the batch, the last among them, are compared first, so that
	// such a graph goes to addEdgesLaidOut without a pass here.
	for s := 1; s <= 8; s++ {
		if k := len(recs)*s/8 - 1; k >= 0 && (ends[k][0] != int(arcs[recs[k].y].head) || ends[k][1] != int(arcs[recs[k].x].head)) {
			return 0
		}
	}
	for k := range recs {
		ed := &recs[k]
		i, j := ends[k][0], ends[k][1]
		c, r := caps[k], revCaps[k]
		// The old record holds the old arcs, whose heads are its ends:
		// distinct nodes (of as many), so i and j are when they are those.
		x, y := &arcs[ed.x], &arcs[ed.y]
		if i != int(y.head) || j != int(x.head) ||
			max(bits(c), bits(r)) > maxCapBits && (!edgeCapacity(c) || !edgeCapacity(r)) {
			return k
		}
		ed.cap, ed.rev = c, r
		x.rCap = c
		y.rCap = r
	}
	return len(recs)
}

// addEdgesLaidOut is AddEdges's loop for a graph's first edges when they
// are all or most of its edges (more than half of New's edgeHint) and some
// node has terminal capacity already (AddTerminals first): it lays
// their arcs out as it writes their records, a counting sort in two passes
// over the input (the first counts each node's edges into the start array,
// the second puts each arc at the end of what is left of its node's block,
// so that the block lists them last-added first), instead of recording the
// edges and laying them out from the records in the solve. That is as
// AddEdges after Clear leaves a graph built again with the same edges
// (see Graph.prev): prev is this layout, the records hold the arcs and
// the nodes' degrees are left to countDegrees; anything that changes the
// graph's shape before the solve (more nodes or edges, SetEdge) ends it,
// and the solve lays the arcs out from the records as usual. It returns
// false at the first bad edge, having written nothing the graph's state
// depends on, for AddEdges's loop to report it.
func (g *Graph) addEdgesLaidOut(recs []edgeRec, ends [][2]int, caps, revCaps []float64) bool {
	g.endSpec(0)
	g.prev = nil
	// The start array is carved where layoutArcs will carve it, which
	// then finds the layout in place. An earlier layout's start (of no
	// edges) is lost.
	g.start, g.queue = nil, nil
	n, m := len(g.nodes), len(recs)
	b, _ := g.solverBlock(n)
	pos := b[n : 2*n+1]
	clear(pos)
	ends = ends[:m]
	for k := range ends {
		i, j := ends[k][0], ends[k][1]
		if uint(i) >= uint(n) || uint(j) >= uint(n) || i == j {
			return false
		}
		pos[i]++
		pos[j]++
	}
	// pos[i] becomes the end of i's block; the arcs are put below it.
	sum := uint32(1)
	for k := range n {
		sum += pos[k]
		pos[k] = sum
	}
	pos[n] = sum
	arcs := g.arcs[:cap(g.arcs)]
	if len(arcs) < 2*m+1 {
		arcs = make([]arc, 2*m+1)
		g.arcs = arcs[:0]
	}
	if !placeEdges(recs, arcs, pos, ends, caps, revCaps) {
		return false
	}
	g.prev, g.spec, g.degStale = pos, true, true
	return true
}

// placeEdges is addEdgesLaidOut's second pass: it writes every record and
// its two arcs below the ends of its nodes' blocks in pos, moving them
// down, and reports false at the first bad capacity. A function of its
// own, so that its slices stay in registers.
func placeEdges(recs []edgeRec, arcs []arc, pos []uint32, ends [][2]int, caps, revCaps []float64) bool {
	ends, caps, revCaps = ends[:len(recs)], caps[:len(recs)], revCaps[:len(recs)]
	for k := range recs {
		i, j := uint32(ends[k][0]), uint32(ends[k][1])
		c, r := caps[k], revCaps[k]
		if max(bits(c), bits(r)) > maxCapBits && (!edgeCapacity(c) || !edgeCapacity(r)) {
			return false
		}
		a := pos[i] - 1
		pos[i] = a
		b := pos[j] - 1
		pos[j] = b
		// Field by field, for the reasons of placeArcs.
		ed := &recs[k]
		ed.x, ed.y, ed.cap, ed.rev = a, b, c, r
		x, y := &arcs[a], &arcs[b]
		x.head, x.sister, x.rCap = j, b, c
		y.head, y.sister, y.rCap = i, a, r
	}
	return true
}

//go:noinline
func addEdgesError(k, i, j, n int, c, r float64) string {
	if uint(i) >= uint(n) || uint(j) >= uint(n) || i == j {
		return fmt.Sprintf("maxflow: AddEdges: edge %d: %s", k, edgeError(i, j, n))
	}
	return fmt.Sprintf("maxflow: AddEdges: edge %d: %s", k, capacityError("AddEdges", c, r))
}

// maxCapBits is the largest bit pattern of a valid edge capacity: those of
// the finite numbers >= 0 are at most this, those of the others (negative,
// NaN, infinite) larger, -0 aside.
const maxCapBits = 0x7fefffffffffffff

// UpdateTerminals gives every node i the terminal capacities source[i] and
// sink[i], doing what UpdateTerminal does for each node whose capacities
// change; the others are left alone (and not marked).
func (g *Graph) UpdateTerminals(source, sink []float64) {
	if len(source) != len(g.nodes) || len(sink) != len(g.nodes) {
		panic(fmt.Sprintf("maxflow: UpdateTerminals: %d sources and %d sinks for %d nodes", len(source), len(sink), len(g.nodes)))
	}
	for k := range source {
		if source[k]-source[k]+(sink[k]-sink[k]) != 0 {
			panic(fmt.Sprintf("maxflow: UpdateTerminals: node %d: capacities (%g, %g) must be finite", k, source[k], sink[k]))
		}
	}
	nodes, term := g.nodes, g.term[:len(g.nodes)]
	for k := range nodes {
		s, t, old := source[k], sink[k], &term[k]
		if s == old.a && t == old.b {
			continue
		}
		n := &nodes[k]
		g.shiftTerminal(n, s-old.a, t-old.b)
		old.a, old.b = s, t
		g.terms = true
		g.mark(n, uint32(k))
	}
}

// UpdateEdges gives every edge e the capacities cap[e] and revCap[e],
// doing what UpdateEdge does for each edge whose capacities change; the
// others are left alone (and their ends not marked for them).
func (g *Graph) UpdateEdges(cap, revCap []float64) {
	if len(cap) != len(g.edge) || len(revCap) != len(g.edge) {
		panic(fmt.Sprintf("maxflow: UpdateEdges: %d and %d capacities for %d edges", len(cap), len(revCap), len(g.edge)))
	}
	for e := range cap {
		if !edgeCapacity(cap[e]) || !edgeCapacity(revCap[e]) {
			panic(fmt.Sprintf("maxflow: UpdateEdges: edge %d: %s", e, capacityError("UpdateEdges", cap[e], revCap[e])))
		}
	}
	// setEdge(e, c, r, true) for each changed edge, written out so that
	// the common case (no reparameterisation) costs no call, and with both
	// arcs found from the edge's record, so that their loads start
	// together.
	edges, arcs, nodes := g.edge, g.arcs, g.nodes
	laid := min(g.laid, len(edges))
	if laid < len(edges) {
		g.endSpec(len(edges)) // AddEdges may have written their arcs
	}
	for e := range edges {
		ed := &edges[e]
		c, r := cap[e], revCap[e]
		if c == ed.cap && r == ed.rev {
			continue
		}
		i, j := ed.x, ed.y
		if e < laid {
			a, b := &arcs[ed.x], &arcs[ed.y]
			i, j = b.head, a.head
			ra := a.rCap + (c - ed.cap)
			rb := b.rCap + (r - ed.rev)
			if ra >= 0 && rb >= 0 {
				a.rCap, b.rCap = ra, rb
			} else {
				g.reparameterise(i, j, a, b, ra, rb, c+r)
			}
		}
		ed.cap, ed.rev = c, r
		g.mark(&nodes[i], i)
		g.mark(&nodes[j], j)
	}
}
