package maxflow

import "math"

// infDist marks a failed origin check in adoption.
const infDist uint32 = math.MaxUint32

// maxTime bounds the time stamp; past it, stamps are renumbered.
const maxTime uint32 = 1 << 30

// MaxFlow computes a maximum flow and a minimum cut from the current
// residual graph, building fresh search trees, and returns the flow value
// (the min-cut value, constants from AddTerminal and updates included).
//
// Any flow left by an earlier solve is kept (it is valid for the current
// capacities), so calling MaxFlow again after changing capacities is
// correct; ResetCapacities starts from zero flow.
func (g *Graph) MaxFlow() float64 {
	// Without terminal capacity nothing can flow, and the arcs need not
	// be laid out: every node is free. g.terms false means no node has
	// any (every path to a node's rCap sets it), so a graph built with
	// zero terminals skips the pass over the nodes that looks, and
	// initTrees makes the only one, as Kolmogorov's maxflow_init does.
	if !g.laidOut() && g.terms && g.hasTerminals() {
		g.layoutArcs()
	}
	g.initTrees()
	g.solve()
	return g.flow
}

// Prepare lays out the arcs and sizes the solver's storage for the current
// nodes and edges now, which the first solve after adding nodes or edges
// otherwise does. It changes nothing else; call it to pay that cost when
// you choose (the benchmarks count it as part of building).
func (g *Graph) Prepare() {
	g.layoutArcs()
}

// hasTerminals reports whether some node has residual terminal capacity.
func (g *Graph) hasTerminals() bool {
	for k := range g.nodes {
		if g.nodes[k].rCap != 0 {
			return true
		}
	}
	return false
}

// MaxFlowReuse is MaxFlow for dynamic graph cuts (Kohli & Torr 2005): after
// a solve and changes made only with UpdateTerminal and UpdateEdge, it
// repairs the previous search trees around the marked nodes instead of
// rebuilding them, which is much faster when few capacities changed. The
// flow value is the same as a fresh solve's. When there was no previous
// solve, or capacities were changed with Add*/Set* since, it falls back to
// MaxFlow.
func (g *Graph) MaxFlowReuse() float64 {
	if !g.solved || g.treesDirty {
		return g.MaxFlow()
	}
	// The last solve may have left the arcs unlaid (no terminal capacity);
	// then every node is free and laying them out now changes nothing.
	if !g.laidOut() {
		g.layoutArcs()
		g.treesDirty = false
	}
	g.repairTrees()
	g.solve()
	return g.flow
}

// renumberTime restarts the time stamps when they near their limit. Only
// the order of stamps matters, and only between a node and the one that
// grows it or checks it, so clearing them all loses at most some of the
// distance heuristic's precision.
func (g *Graph) renumberTime() {
	for k := range g.nodes {
		g.nodes[k].ts = 0
	}
	g.time = 1
}

// initTrees makes every node with residual terminal capacity a root of its
// tree and active, and every other node free. The roots go straight into
// the empty queue, in node order (push, which tests the flag and wraps
// around the ring, is for the solve).
func (g *Graph) initTrees() {
	g.front, g.orphans = g.front[:0], g.orphans[:0]
	g.time = 0
	nodes := g.nodes
	// Without terminal capacity the arcs may not be laid out, nor the
	// queue sized (see MaxFlow); then no node is a root.
	queue := g.queue
	q := 0
	for k := range nodes {
		n := &nodes[k]
		n.ts, n.marked = 0, false
		if r := n.rCap; r != 0 {
			n.parent, n.sink, n.dist, n.active = terminal, r < 0, 1, true
			queue[q] = uint32(k)
			q++
		} else {
			n.parent, n.active = noParent, false
		}
	}
	g.qHead, g.qSize = 0, q
	g.changed = g.changed[:0]
}

// repairTrees restores the search-tree invariants after UpdateTerminal and
// UpdateEdge changed capacities around the marked nodes, leaving the trees
// elsewhere as they were, as Kolmogorov's maxflow(reuse_trees) does (so
// that the two compute the same flows): each marked node becomes active; one
// left without terminal capacity becomes an orphan; one with terminal
// capacity becomes a root of the tree its capacity points to, and when that
// is a change of tree its children become orphans and its neighbours in
// the other tree with residual capacity towards it become active. Only arcs
// at marked nodes changed, so no other parent arc can have lost its
// residual capacity.
func (g *Graph) repairTrees() {
	if g.time >= maxTime {
		g.renumberTime()
	}
	g.qHead, g.qSize = 0, 0
	g.time++
	now := g.time
	nodes, arcs, start := g.nodes, g.arcs, g.start
	for _, i := range g.changed {
		n := &nodes[i]
		n.marked = false
		g.push(i)
		if n.rCap == 0 {
			if n.parent != noParent {
				g.makeOrphan(i)
			}
			continue
		}
		sink := n.rCap < 0
		if n.parent == noParent || n.sink != sink {
			n.sink = sink
			for _, ar := range arcs[start[i]:start[i+1]] {
				j := ar.head
				nj := &nodes[j]
				if nj.marked {
					continue // it is repaired in its turn
				}
				if nj.parent != noParent && nj.parent < orphan && nj.pnode == i {
					g.makeOrphan(j)
				}
				// A neighbour in the other tree with residual capacity
				// towards i's new terminal: source tree i->j, sink j->i.
				c := ar.rCap
				if sink {
					c = arcs[ar.sister].rCap
				}
				if nj.parent != noParent && nj.sink != sink && c > 0 {
					g.push(j)
				}
			}
		}
		n.parent, n.pnode, n.ts, n.dist = terminal, none, now, 1
	}
	g.changed = g.changed[:0]
	// No node is queued twice: a queued orphan is no one's child.
	for k := 0; k < len(g.orphans); k++ {
		g.adoptOne(g.orphans[k])
	}
	g.orphans = g.orphans[:0]
}

// push appends node i to the active queue unless it is active already.
func (g *Graph) push(i uint32) {
	n := &g.nodes[i]
	if n.active {
		return
	}
	n.active = true
	k := g.qHead + g.qSize
	if k >= len(g.queue) {
		k -= len(g.queue)
	}
	g.queue[k] = i
	g.qSize++
}

// pop takes the next active node off the queue, skipping nodes that
// became free, and returns none when there is none.
func (g *Graph) pop() uint32 {
	nodes, queue := g.nodes, g.queue
	for g.qSize > 0 {
		i := queue[g.qHead]
		g.qSize--
		if g.qHead++; g.qHead == len(queue) {
			g.qHead = 0
		}
		n := &nodes[i]
		n.active = false
		if n.parent != noParent {
			return i
		}
	}
	return none
}

// makeOrphan queues i for adoption after those already queued.
func (g *Graph) makeOrphan(i uint32) {
	g.nodes[i].parent = orphan
	g.orphans = append(g.orphans, i)
}

// solve runs the three BK stages (growth, augmentation, adoption) until no
// active node is left. After an augmentation the same node is grown again
// at once: it often has more paths to the other tree.
func (g *Graph) solve() {
	nodes, arcs, start := g.nodes, g.arcs, g.start
	cur := none
	for {
		i := cur
		if i != none {
			nodes[i].active = false
			if nodes[i].parent == noParent {
				i = none
			}
		}
		if i == none {
			if i = g.pop(); i == none {
				break
			}
		}
		if g.time >= maxTime {
			g.renumberTime()
		}
		ni := &nodes[i]
		// The arc from the source tree to the sink tree, if growth meets
		// the other tree, and its ends.
		mid, si, ti := none, none, none
		lo := start[i]
		out := arcs[lo:start[i+1]]
		if !ni.sink {
			for k := range out {
				ar := &out[k]
				if ar.rCap == 0 {
					continue
				}
				a, j := lo+uint32(k), ar.head
				nj := &nodes[j]
				if nj.parent == noParent {
					nj.sink, nj.parent, nj.pnode, nj.ts, nj.dist = false, a, i, ni.ts, ni.dist+1
					g.push(j)
				} else if nj.sink {
					mid, si, ti = a, i, j
					break
				} else if nj.ts <= ni.ts && nj.dist > ni.dist {
					nj.parent, nj.pnode, nj.ts, nj.dist = a, i, ni.ts, ni.dist+1
				}
			}
		} else {
			for k := range out {
				ar := &out[k]
				// The tests of Kolmogorov's loop in another order (they
				// have no effects): the neighbour first, since most are
				// in this tree already with no shorter path to offer, and
				// then the residual capacity j->i, which is in j's block
				// of arcs (a load the first test mostly saves).
				j := ar.head
				nj := &nodes[j]
				if nj.parent != noParent && nj.sink && (nj.ts > ni.ts || nj.dist <= ni.dist) {
					continue
				}
				a := ar.sister // j->i
				if arcs[a].rCap == 0 {
					continue
				}
				if nj.parent == noParent {
					nj.sink, nj.parent, nj.pnode, nj.ts, nj.dist = true, a, i, ni.ts, ni.dist+1
					g.push(j)
				} else if !nj.sink {
					mid, si, ti = a, j, i
					break
				} else if nj.ts <= ni.ts && nj.dist > ni.dist {
					nj.parent, nj.pnode, nj.ts, nj.dist = a, i, ni.ts, ni.dist+1
				}
			}
		}
		g.time++
		if mid == none {
			cur = none
			continue
		}
		// Keep i flagged active without queueing it, so adoption cannot
		// queue it a second time; it is grown again next.
		ni.active = true
		cur = i
		g.augment(mid, si, ti)
		g.adopt()
	}
	g.solved, g.treesDirty = true, false
}

// augment pushes the bottleneck capacity along the path
// s -> ... -> si -> ti -> ... -> t, mid being the arc si->ti.
func (g *Graph) augment(mid, si, ti uint32) {
	nodes, arcs := g.nodes, g.arcs
	// The bottleneck is found on the bit patterns: for the residual
	// capacities, which are >= 0 and never NaN, they order as the numbers
	// do, and the integer minimum is a conditional move, where min on
	// float64 is three instructions long and a comparison a branch that
	// random graphs mispredict.
	b := bits(arcs[mid].rCap)
	i := si
	for nodes[i].parent != terminal {
		b = min(b, bits(arcs[nodes[i].parent].rCap))
		i = nodes[i].pnode
	}
	b = min(b, bits(nodes[i].rCap))
	i = ti
	for nodes[i].parent != terminal {
		b = min(b, bits(arcs[nodes[i].parent].rCap))
		i = nodes[i].pnode
	}
	g.pushFlow(mid, si, ti, math.Float64frombits(min(b, bits(-nodes[i].rCap))))
}

func bits(x float64) uint64 { return math.Float64bits(x) }

// pushFlow sends b along the path of augment and orphans the nodes whose
// parent arc (or terminal arc) it saturates, onto the front stack.
func (g *Graph) pushFlow(mid, si, ti uint32, b float64) {
	nodes, arcs := g.nodes, g.arcs
	arcs[mid].rCap -= b
	arcs[arcs[mid].sister].rCap += b
	i := si
	for {
		n := &nodes[i]
		if n.parent == terminal {
			if n.rCap -= b; n.rCap == 0 {
				g.orphanFront(i)
			}
			break
		}
		ar := &arcs[n.parent]
		arcs[ar.sister].rCap += b
		if ar.rCap -= b; ar.rCap == 0 {
			g.orphanFront(i)
		}
		i = n.pnode
	}
	i = ti
	for {
		n := &nodes[i]
		if n.parent == terminal {
			if n.rCap += b; n.rCap == 0 {
				g.orphanFront(i)
			}
			break
		}
		ar := &arcs[n.parent]
		arcs[ar.sister].rCap += b
		if ar.rCap -= b; ar.rCap == 0 {
			g.orphanFront(i)
		}
		i = n.pnode
	}
	g.flow += b
}

// orphanFront makes i an orphan of the current augmentation.
func (g *Graph) orphanFront(i uint32) {
	g.nodes[i].parent = orphan
	g.front = append(g.front, i)
}

// adopt finds new parents for the orphans of an augmentation, last-made
// first, each with the orphans its adoption makes before the next. No node
// is queued twice at once, so the queues never outgrow the nodes: an
// adopted node gets a parent whose path to the terminal has no orphan, and
// only the children of freed orphans become orphans.
func (g *Graph) adopt() {
	for len(g.front) > 0 {
		i := g.front[len(g.front)-1]
		g.front = g.front[:len(g.front)-1]
		g.adoptOne(i)
		for k := 0; k < len(g.orphans); k++ {
			g.adoptOne(g.orphans[k])
		}
		g.orphans = g.orphans[:0]
	}
}

// adoptOne looks for a new parent of orphan i in its own tree whose path to
// the terminal is valid (preferring the shortest by the dist/ts heuristic);
// failing that i becomes free, its children become orphans and its tree
// neighbours with residual capacity towards it become active.
func (g *Graph) adoptOne(i uint32) {
	if g.nodes[i].sink {
		g.adoptSink(i)
	} else {
		g.adoptSource(i)
	}
}

// adoptSource is adoptOne in the source tree, where a candidate parent j
// needs residual capacity on j->i. It and adoptSink are the same code with
// the arc directions swapped, kept apart (as in Kolmogorov's) so that the
// loops test no tree flag and call nothing.
func (g *Graph) adoptSource(i uint32) {
	nodes, arcs := g.nodes, g.arcs
	now := g.time
	best, bestNode, dmin := none, none, infDist
	for _, ar := range arcs[g.start[i]:g.start[i+1]] {
		a := ar.sister // j->i
		if arcs[a].rCap == 0 {
			continue
		}
		j := ar.head
		if nj := &nodes[j]; nj.parent == noParent || nj.sink {
			continue
		}
		// Walk up from j until a terminal, an orphan, or a node already
		// checked at this time; then record the exact distances of the
		// nodes walked, so that later walks stop at them.
		d := uint32(0)
		for k := j; ; {
			nk := &nodes[k]
			if nk.ts == now {
				d += nk.dist
				break
			}
			d++
			if nk.parent == terminal {
				nk.ts, nk.dist = now, 1
				break
			}
			if nk.parent == orphan {
				d = infDist
				break
			}
			k = nk.pnode
		}
		if d == infDist {
			continue
		}
		if d < dmin {
			best, bestNode, dmin = a, j, d
		}
		for k := j; nodes[k].ts != now; k = nodes[k].pnode {
			nodes[k].ts, nodes[k].dist = now, d
			d--
		}
	}
	if best != none {
		ni := &nodes[i]
		ni.parent, ni.pnode, ni.ts, ni.dist = best, bestNode, now, dmin+1
		return
	}
	nodes[i].parent = noParent
	g.freeSource(i)
}

// adoptSink is adoptSource in the sink tree: a candidate parent j needs
// residual capacity on i->j.
func (g *Graph) adoptSink(i uint32) {
	nodes, arcs := g.nodes, g.arcs
	now := g.time
	best, bestNode, dmin := none, none, infDist
	lo := g.start[i]
	for k, ar := range arcs[lo:g.start[i+1]] {
		if ar.rCap == 0 {
			continue
		}
		j := ar.head
		if nj := &nodes[j]; nj.parent == noParent || !nj.sink {
			continue
		}
		d := uint32(0)
		for k := j; ; {
			nk := &nodes[k]
			if nk.ts == now {
				d += nk.dist
				break
			}
			d++
			if nk.parent == terminal {
				nk.ts, nk.dist = now, 1
				break
			}
			if nk.parent == orphan {
				d = infDist
				break
			}
			k = nk.pnode
		}
		if d == infDist {
			continue
		}
		if d < dmin {
			best, bestNode, dmin = lo+uint32(k), j, d
		}
		for k := j; nodes[k].ts != now; k = nodes[k].pnode {
			nodes[k].ts, nodes[k].dist = now, d
			d--
		}
	}
	if best != none {
		ni := &nodes[i]
		ni.parent, ni.pnode, ni.ts, ni.dist = best, bestNode, now, dmin+1
		return
	}
	nodes[i].parent = noParent
	g.freeSink(i)
}

// freeSource handles node i leaving the source tree: its children there
// become orphans and its neighbours there with residual capacity towards
// it (on j->i) become active, so that they can grow into the space it
// leaves.
func (g *Graph) freeSource(i uint32) {
	nodes, arcs := g.nodes, g.arcs
	for _, ar := range arcs[g.start[i]:g.start[i+1]] {
		j := ar.head
		nj := &nodes[j]
		p := nj.parent
		if p == noParent || nj.sink {
			continue
		}
		if arcs[ar.sister].rCap != 0 {
			g.push(j)
		}
		if p < orphan && nj.pnode == i {
			g.makeOrphan(j)
		}
	}
}

// freeSink is freeSource in the sink tree (residual capacity on i->j).
func (g *Graph) freeSink(i uint32) {
	nodes, arcs := g.nodes, g.arcs
	for _, ar := range arcs[g.start[i]:g.start[i+1]] {
		j := ar.head
		nj := &nodes[j]
		p := nj.parent
		if p == noParent || !nj.sink {
			continue
		}
		if ar.rCap != 0 {
			g.push(j)
		}
		if p < orphan && nj.pnode == i {
			g.makeOrphan(j)
		}
	}
}
