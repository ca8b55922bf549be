package maxflow

import "fmt"

// checkInvariants verifies the state BK must end in: no orphan and no
// active node, every sink-tree node has r <= 0 and every other node
// r >= 0, free nodes have r = 0, every tree node's parent arc has residual
// capacity towards the terminal and leads to its recorded parent node in
// the same tree, no residual arc goes from outside the sink tree into it
// and none leaves the source tree. So the source tree is exactly the set
// reachable from s, the sink tree the set reaching t, and the reported cut
// is a min cut.
func (g *Graph) checkInvariants() string {
	if g.qSize != 0 || len(g.front) != 0 || len(g.orphans) != 0 {
		return fmt.Sprintf("queues not empty: %d active, %d+%d orphans", g.qSize, len(g.front), len(g.orphans))
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
		if n.parent < orphan {
			pa := n.parent
			if !n.sink {
				pa ^= 1
			}
			if g.arcs[pa].rCap <= 0 {
				return fmt.Sprintf("node %d (sink %v): parent arc %d (head %d) has residual %v", i, n.sink, n.parent, g.arcs[n.parent].head, g.arcs[pa].rCap)
			}
			if p := g.arcs[n.parent].head; p != n.pnode || g.arcs[n.parent^1].head != uint32(i) {
				return fmt.Sprintf("node %d: parent arc %d leads to %d, parent node recorded %d", i, n.parent, p, n.pnode)
			}
			if m := &g.nodes[n.pnode]; m.parent == noParent || m.sink != n.sink {
				return fmt.Sprintf("node %d (sink %v): parent %d not in its tree", i, n.sink, n.pnode)
			}
		}
		if n.parent == terminal && (n.rCap == 0 || (n.rCap < 0) != n.sink) {
			return fmt.Sprintf("node %d: root with r=%v sink %v", i, n.rCap, n.sink)
		}
		for a := n.first; a != none; a = g.arcs[a].next {
			if g.arcs[a^1].head != uint32(i) {
				return fmt.Sprintf("arc %d in the list of node %d has tail %d", a, i, g.arcs[a^1].head)
			}
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
