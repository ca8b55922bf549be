package maxflow

import "fmt"

// checkInvariants verifies the state BK must end in: no orphan and no
// active node, every sink-tree node has r <= 0 and every other node
// r >= 0, free nodes have r = 0, every tree node's parent arc has residual
// capacity towards the terminal and joins it to its recorded parent node in
// the same tree, no residual arc goes from outside the sink tree into it
// and none leaves the source tree. So the source tree is exactly the set
// reachable from s, the sink tree the set reaching t, and the reported cut
// is a min cut. It also checks the arc layout against the edges.
func (g *Graph) checkInvariants() string {
	if g.qSize != 0 || len(g.front) != 0 || len(g.orphans) != 0 {
		return fmt.Sprintf("queues not empty: %d active, %d+%d orphans", g.qSize, len(g.front), len(g.orphans))
	}
	if s := g.checkLayout(); s != "" {
		return s
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		inT := n.sink && n.parent != noParent
		if n.active {
			return fmt.Sprintf("node %d still flagged active", i)
		}
		if inT && n.rCap > 0 {
			return fmt.Sprintf("node %d in T with r=%v parent %d", i, n.rCap, n.parent)
		}
		if n.parent == noParent && n.rCap != 0 {
			return fmt.Sprintf("free node %d with terminal residual %v", i, n.rCap)
		}
		if !inT && n.rCap < 0 {
			return fmt.Sprintf("node %d in S with r=%v parent %d sink %v", i, n.rCap, n.parent, n.sink)
		}
		if n.parent == orphan {
			return fmt.Sprintf("node %d orphan", i)
		}
		if n.parent != noParent && n.parent < orphan {
			p := &g.arcs[n.parent]
			if p.rCap <= 0 {
				return fmt.Sprintf("node %d (sink %v): parent arc %d has residual %v", i, n.sink, n.parent, p.rCap)
			}
			// Source tree: the parent arc is pnode->i; sink tree: i->pnode.
			head, tail := p.head, g.arcs[p.sister].head
			if n.sink {
				head, tail = tail, head
			}
			if head != uint32(i) || tail != n.pnode {
				return fmt.Sprintf("node %d (sink %v): parent arc %d joins %d and %d, parent node recorded %d", i, n.sink, n.parent, tail, head, n.pnode)
			}
			if m := &g.nodes[n.pnode]; m.parent == noParent || m.sink != n.sink {
				return fmt.Sprintf("node %d (sink %v): parent %d not in its tree", i, n.sink, n.pnode)
			}
		}
		if n.parent == terminal && (n.rCap == 0 || (n.rCap < 0) != n.sink) {
			return fmt.Sprintf("node %d: root with r=%v sink %v", i, n.rCap, n.sink)
		}
		if g.laid == 0 {
			continue
		}
		for a := g.start[i]; a < g.start[i+1]; a++ {
			j := g.arcs[a].head
			m := &g.nodes[j]
			jT := m.sink && m.parent != noParent
			iS := !n.sink && n.parent != noParent
			jS := !m.sink && m.parent != noParent
			if iS && !jS && g.arcs[a].rCap > 0 {
				return fmt.Sprintf("arc %d: residual %v from source-tree node %d to node %d outside it", a, g.arcs[a].rCap, i, j)
			}
			if !inT && jT && g.arcs[a].rCap > 0 {
				return fmt.Sprintf("arc %d: %d (parent %d sink %v) -> %d (parent %d) residual %v", a, i, n.parent, n.sink, j, m.parent, g.arcs[a].rCap)
			}
		}
	}
	return ""
}

// checkLayout verifies the arc layout: every laid-out edge has its two
// arcs, sisters of each other and the two its record names, in the blocks
// of its ends, each node's block
// lists its arcs last-added first (Kolmogorov's order), and edges not laid
// out carry no flow. A graph whose edges are not laid out must not have
// found any path.
func (g *Graph) checkLayout() string {
	if g.laid == 0 {
		return ""
	}
	n := len(g.nodes)
	if len(g.start) != n+1 || g.start[0] != 1 || int(g.start[n]) != 2*g.laid+1 || len(g.arcs) != 2*g.laid+1 {
		return fmt.Sprintf("layout: %d starts for %d nodes, %d arcs for %d laid edges", len(g.start), n, len(g.arcs), g.laid)
	}
	owner := make([]int, len(g.arcs)) // edge of each arc, +1
	for e := range g.laid {
		ed := &g.edge[e]
		a := g.arcOf(e)
		b := g.arcs[a].sister
		i, j := g.arcs[b].head, g.arcs[a].head
		if g.arcs[b].sister != a || ed.y != b ||
			a < g.start[i] || a >= g.start[i+1] || b < g.start[j] || b >= g.start[j+1] {
			return fmt.Sprintf("edge %d (%d->%d): arcs %d, %d misplaced", e, i, j, a, b)
		}
		owner[a], owner[b] = e+1, e+1
	}
	for i := range n {
		for a := g.start[i]; a+1 < g.start[i+1]; a++ {
			if owner[a] <= owner[a+1] {
				return fmt.Sprintf("node %d: arcs %d (edge %d) and %d (edge %d) not last-added first", i, a, owner[a]-1, a+1, owner[a+1]-1)
			}
		}
	}
	return ""
}
