package maxflow

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func (g *Graph) checkInvariants() string {
	for i := range g.nodes {
		n := &g.nodes[i]
		inT := n.sink && n.parent != noParent
		if inT && n.rCap > 0 {
			return fmt.Sprintf("node %d in T with r=%v parent %d", i, n.rCap, n.parent)
		}
		if !inT && n.rCap < 0 {
			return fmt.Sprintf("node %d in S with r=%v parent %d sink %v", i, n.rCap, n.parent, n.sink)
		}
		if n.parent == orphan {
			return fmt.Sprintf("node %d orphan", i)
		}
		for a := n.first; a >= 0; a = g.arcs[a].next {
			j := g.arcs[a].head
			m := &g.nodes[j]
			jT := m.sink && m.parent != noParent
			if !inT && jT && g.arcs[a].rCap > 0 {
				return fmt.Sprintf("arc %d: %d (parent %d sink %v) -> %d (parent %d) residual %v", a, i, n.parent, n.sink, j, m.parent, g.arcs[a].rCap)
			}
		}
	}
	return ""
}

func TestDebugReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 0))
	for rep := range 400 {
		in := randomInstance(r, 2+r.IntN(5), 1+r.IntN(8), intCaps(3))
		g := in.build()
		g.MaxFlow()
		for round := range 8 {
			in = perturb(r, in, g, intCaps(3), false)
			g.MaxFlowReuse()
			if s := g.checkInvariants(); s != "" {
				t.Fatalf("rep %d round %d: %s", rep, round, s)
			}
		}
	}
}
