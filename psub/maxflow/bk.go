package maxflow

import "math"

// infDist marks a failed origin check in adoption.
const infDist int32 = math.MaxInt32

// maxTime bounds the time stamp before MaxFlowReuse renumbers it.
const maxTime int32 = 1 << 30

// MaxFlow computes a maximum flow and a minimum cut from the current
// residual graph, building fresh search trees, and returns the flow value
// (the min-cut value, constants from AddTerminal and updates included).
//
// Any flow left by an earlier solve is kept (it is valid for the current
// capacities), so calling MaxFlow again after changing capacities is
// correct; ResetCapacities starts from zero flow.
func (g *Graph) MaxFlow() float64 {
	g.initTrees()
	g.solve()
	return g.flow
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
	if g.time > maxTime {
		for k := range g.nodes {
			g.nodes[k].ts = 0
		}
		g.time = 0
	}
	g.repairTrees()
	g.solve()
	return g.flow
}

// initTrees makes every node with residual terminal capacity a root of its
// tree and active, and every other node free.
func (g *Graph) initTrees() {
	g.qFirst, g.qLast = -1, -1
	g.orphans, g.oHead = g.orphans[:0], 0
	g.time = 0
	nodes := g.nodes
	for k := range nodes {
		n := &nodes[k]
		n.next, n.ts, n.marked = notActive, 0, false
		switch {
		case n.rCap > 0:
			n.parent, n.sink, n.dist = terminal, false, 1
			g.setActive(int32(k))
		case n.rCap < 0:
			n.parent, n.sink, n.dist = terminal, true, 1
			g.setActive(int32(k))
		default:
			n.parent = noParent
		}
	}
	g.changed = g.changed[:0]
}

// repairTrees restores the search-tree invariants after UpdateTerminal and
// UpdateEdge changed capacities around the marked nodes, leaving all other
// nodes where they were. Only arcs at marked nodes changed, so only marked
// nodes can have an invalid parent arc or a wrong terminal status; children
// of a node that changes tree become orphans. Marked nodes become active so
// that growth looks again at their arcs.
func (g *Graph) repairTrees() {
	nodes, arcs := g.nodes, g.arcs
	for _, i := range g.changed {
		n := &nodes[i]
		n.marked = false
		switch {
		case n.rCap > 0 || n.rCap < 0:
			sink := n.rCap < 0
			if n.parent != noParent && n.sink != sink {
				g.leaveTree(i)
			}
			n.parent, n.sink, n.ts, n.dist = terminal, sink, g.time, 1
		case n.parent == terminal:
			g.makeOrphan(i)
		case n.parent >= 0:
			// Parent arc: i->p in the source tree carries p->i residual
			// (the sister), in the sink tree i->p itself.
			pa := n.parent
			if !n.sink {
				pa ^= 1
			}
			if arcs[pa].rCap == 0 {
				g.makeOrphan(i)
			}
		}
		if n.parent != noParent && n.parent != orphan {
			g.setActive(i)
		}
	}
	g.changed = g.changed[:0]
	g.time++
	g.adopt()
}

// leaveTree does for node i, which moves out of its tree, what adoption
// does for a freed node: its tree children become orphans and its tree
// neighbours with residual capacity towards it become active, so that a
// passive tree node never has a residual arc from (source tree: to) a node
// outside its tree.
func (g *Graph) leaveTree(i int32) {
	nodes, arcs := g.nodes, g.arcs
	sink := nodes[i].sink
	for a := nodes[i].first; a >= 0; a = arcs[a].next {
		j := arcs[a].head
		nj := &nodes[j]
		p := nj.parent
		if p == noParent || nj.sink != sink {
			continue
		}
		c := arcs[a].rCap
		if !sink {
			c = arcs[a^1].rCap
		}
		if c != 0 {
			g.setActive(j)
		}
		if p >= 0 && arcs[p].head == i {
			g.makeOrphan(j)
		}
	}
}

func (g *Graph) setActive(i int32) {
	n := &g.nodes[i]
	if n.next != notActive {
		return
	}
	if g.qLast >= 0 {
		g.nodes[g.qLast].next = i
	} else {
		g.qFirst = i
	}
	g.qLast = i
	n.next = i
}

// nextActive pops the active queue, skipping nodes that became free.
func (g *Graph) nextActive() int32 {
	nodes := g.nodes
	for {
		i := g.qFirst
		if i < 0 {
			return -1
		}
		n := &nodes[i]
		if n.next == i {
			g.qFirst, g.qLast = -1, -1
		} else {
			g.qFirst = n.next
		}
		n.next = notActive
		if n.parent != noParent {
			return i
		}
	}
}

func (g *Graph) makeOrphan(i int32) {
	g.nodes[i].parent = orphan
	g.orphans = append(g.orphans, i)
}

// solve runs the three BK stages (growth, augmentation, adoption) until no
// active node is left. After an augmentation the same node is grown again
// at once: it often has more paths to the other tree.
func (g *Graph) solve() {
	nodes, arcs := g.nodes, g.arcs
	cur := int32(-1)
	for {
		i := cur
		if i >= 0 {
			nodes[i].next = notActive
			if nodes[i].parent == noParent {
				i = -1
			}
		}
		if i < 0 {
			if i = g.nextActive(); i < 0 {
				break
			}
		}
		ni := &nodes[i]
		mid := int32(-1) // arc from the source tree to the sink tree
		if !ni.sink {
			for a := ni.first; a >= 0; {
				ar := &arcs[a]
				if ar.rCap != 0 {
					j := ar.head
					nj := &nodes[j]
					if nj.parent == noParent {
						nj.sink, nj.parent, nj.ts, nj.dist = false, a^1, ni.ts, ni.dist+1
						g.setActive(j)
					} else if nj.sink {
						mid = a
						break
					} else if nj.ts <= ni.ts && nj.dist > ni.dist {
						nj.parent, nj.ts, nj.dist = a^1, ni.ts, ni.dist+1
					}
				}
				a = ar.next
			}
		} else {
			for a := ni.first; a >= 0; {
				ar := &arcs[a]
				if arcs[a^1].rCap != 0 {
					j := ar.head
					nj := &nodes[j]
					if nj.parent == noParent {
						nj.sink, nj.parent, nj.ts, nj.dist = true, a^1, ni.ts, ni.dist+1
						g.setActive(j)
					} else if !nj.sink {
						mid = a ^ 1
						break
					} else if nj.ts <= ni.ts && nj.dist > ni.dist {
						nj.parent, nj.ts, nj.dist = a^1, ni.ts, ni.dist+1
					}
				}
				a = ar.next
			}
		}
		g.time++
		if mid < 0 {
			cur = -1
			continue
		}
		// Keep i marked active (next != notActive) without queueing it, so
		// adoption cannot queue it a second time; it is grown again next.
		ni.next = i
		cur = i
		g.augment(mid)
		g.adopt()
	}
	g.solved, g.treesDirty = true, false
}

// augment pushes the bottleneck capacity along the path
// s -> ... -> tail(mid) -> head(mid) -> ... -> t and orphans the nodes whose
// parent arc (or terminal arc) became saturated.
func (g *Graph) augment(mid int32) {
	nodes, arcs := g.nodes, g.arcs
	b := arcs[mid].rCap
	i := arcs[mid^1].head
	for a := nodes[i].parent; a != terminal; a = nodes[i].parent {
		b = min(b, arcs[a^1].rCap)
		i = arcs[a].head
	}
	b = min(b, nodes[i].rCap)
	i = arcs[mid].head
	for a := nodes[i].parent; a != terminal; a = nodes[i].parent {
		b = min(b, arcs[a].rCap)
		i = arcs[a].head
	}
	b = min(b, -nodes[i].rCap)

	arcs[mid].rCap -= b
	arcs[mid^1].rCap += b
	i = arcs[mid^1].head
	for a := nodes[i].parent; a != terminal; a = nodes[i].parent {
		arcs[a].rCap += b
		arcs[a^1].rCap -= b
		next := arcs[a].head
		if arcs[a^1].rCap == 0 {
			g.makeOrphan(i)
		}
		i = next
	}
	if nodes[i].rCap -= b; nodes[i].rCap == 0 {
		g.makeOrphan(i)
	}
	i = arcs[mid].head
	for a := nodes[i].parent; a != terminal; a = nodes[i].parent {
		arcs[a^1].rCap += b
		arcs[a].rCap -= b
		next := arcs[a].head
		if arcs[a].rCap == 0 {
			g.makeOrphan(i)
		}
		i = next
	}
	if nodes[i].rCap += b; nodes[i].rCap == 0 {
		g.makeOrphan(i)
	}
	g.flow += b
}

// adopt processes the orphan queue: each orphan looks for a new parent in
// its own tree whose path to the terminal is valid (preferring the shortest
// by the dist/ts heuristic); failing that it becomes free, its children
// become orphans and its tree neighbours become active.
func (g *Graph) adopt() {
	for g.oHead < len(g.orphans) {
		i := g.orphans[g.oHead]
		g.oHead++
		if g.nodes[i].parent != orphan {
			continue // re-rooted by repairTrees after being orphaned
		}
		g.adoptOne(i, g.nodes[i].sink)
	}
	g.orphans, g.oHead = g.orphans[:0], 0
}

func (g *Graph) adoptOne(i int32, sink bool) {
	nodes, arcs := g.nodes, g.arcs
	now := g.time
	best, dmin := int32(-1), infDist
	for a0 := nodes[i].first; a0 >= 0; a0 = arcs[a0].next {
		// Residual capacity from the candidate parent j towards the
		// terminal: j->i for the source tree, i->j for the sink tree.
		c := arcs[a0].rCap
		if !sink {
			c = arcs[a0^1].rCap
		}
		if c == 0 {
			continue
		}
		j := arcs[a0].head
		nj := &nodes[j]
		if nj.parent == noParent || nj.sink != sink {
			continue
		}
		// Walk up from j until a terminal, an orphan, or a node already
		// checked at this time.
		d := int32(0)
		for k := j; ; {
			nk := &nodes[k]
			if nk.ts == now {
				d += nk.dist
				break
			}
			a := nk.parent
			d++
			if a == terminal {
				nk.ts, nk.dist = now, 1
				break
			}
			if a == orphan {
				d = infDist
				break
			}
			k = arcs[a].head
		}
		if d == infDist {
			continue
		}
		if d < dmin {
			best, dmin = a0, d
		}
		// Record exact distances along the checked path.
		for k := j; nodes[k].ts != now; k = arcs[nodes[k].parent].head {
			nodes[k].ts, nodes[k].dist = now, d
			d--
		}
	}
	ni := &nodes[i]
	if best >= 0 {
		ni.parent, ni.ts, ni.dist = best, now, dmin+1
		return
	}
	ni.parent, ni.ts = noParent, 0
	g.leaveTree(i)
}
