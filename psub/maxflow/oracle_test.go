package maxflow

import (
	"math"
	"math/rand/v2"
)

// instance is a max-flow problem in plain form, independent of Graph, so
// that the oracles below share no code with the solver under test.
type instance struct {
	n         int
	src, sink []float64 // terminal capacities s->i, i->t
	from, to  []int
	cap, rev  []float64 // edge e: from->to cap, to->from rev
}

// build makes a Graph of the instance with AddTerminal/AddEdge.
func (in *instance) build() *Graph {
	g := New(in.n, len(in.from))
	g.AddNodes(in.n)
	for i := range in.n {
		g.AddTerminal(i, in.src[i], in.sink[i])
	}
	for e := range in.from {
		g.AddEdge(in.from[e], in.to[e], in.cap[e], in.rev[e])
	}
	return g
}

// cutValue is the capacity of the cut with S = {i : inS[i]} (plus s),
// evaluated on the instance's capacities; negative terminals allowed.
func (in *instance) cutValue(inS func(int) bool) float64 {
	v := 0.0
	for i := range in.n {
		if inS(i) {
			v += in.sink[i]
		} else {
			v += in.src[i]
		}
	}
	for e := range in.from {
		a, b := inS(in.from[e]), inS(in.to[e])
		if a && !b {
			v += in.cap[e]
		}
		if b && !a {
			v += in.rev[e]
		}
	}
	return v
}

// edmondsKarp is the reference max-flow: shortest augmenting paths by BFS
// on a dense residual matrix (nodes n = s, n+1 = t). Terminal capacities
// must be >= 0.
func (in *instance) edmondsKarp() float64 {
	f, _, _ := in.edmondsKarpSides()
	return f
}

// edmondsKarpSides also returns, from the final residual graph, which nodes
// s reaches and which reach t. These sets are the same for every maximum
// flow (they are the smallest source and sink sides of a minimum cut).
func (in *instance) edmondsKarpSides() (flow float64, fromS, toT []bool) {
	n := in.n + 2
	s, t := in.n, in.n+1
	r := make([][]float64, n)
	for i := range r {
		r[i] = make([]float64, n)
	}
	for i := range in.n {
		r[s][i] += in.src[i]
		r[i][t] += in.sink[i]
	}
	for e := range in.from {
		r[in.from[e]][in.to[e]] += in.cap[e]
		r[in.to[e]][in.from[e]] += in.rev[e]
	}
	prev := make([]int, n)
	queue := make([]int, 0, n)
	for {
		for i := range prev {
			prev[i] = -1
		}
		prev[s] = s
		queue = append(queue[:0], s)
		for h := 0; h < len(queue) && prev[t] < 0; h++ {
			u := queue[h]
			for v := range n {
				if prev[v] < 0 && r[u][v] > 0 {
					prev[v] = u
					queue = append(queue, v)
				}
			}
		}
		if prev[t] < 0 {
			return flow, reach(r, s, false)[:in.n], reach(r, t, true)[:in.n]
		}
		b := math.Inf(1)
		for v := t; v != s; v = prev[v] {
			b = min(b, r[prev[v]][v])
		}
		for v := t; v != s; v = prev[v] {
			r[prev[v]][v] -= b
			r[v][prev[v]] += b
		}
		flow += b
	}
}

// reach marks the nodes reachable from root through positive residuals
// (backwards: the nodes that reach root).
func reach(r [][]float64, root int, backwards bool) []bool {
	seen := make([]bool, len(r))
	seen[root] = true
	stack := []int{root}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for v := range r {
			c := r[u][v]
			if backwards {
				c = r[v][u]
			}
			if !seen[v] && c > 0 {
				seen[v] = true
				stack = append(stack, v)
			}
		}
	}
	return seen
}

// bruteMinCut enumerates all 2^n cuts (n <= 16); any signs allowed.
func (in *instance) bruteMinCut() float64 {
	best := math.Inf(1)
	for m := 0; m < 1<<in.n; m++ {
		best = min(best, in.cutValue(func(i int) bool { return m>>i&1 == 1 }))
	}
	return best
}

// capGen draws one capacity.
type capGen func(r *rand.Rand) float64

func intCaps(hi int) capGen {
	return func(r *rand.Rand) float64 { return float64(r.IntN(hi + 1)) }
}

func fracCaps(r *rand.Rand) float64 { return r.Float64() * 10 }

// zeroHeavy returns 0 half the time, so that many arcs are absent.
func zeroHeavy(c capGen) capGen {
	return func(r *rand.Rand) float64 {
		if r.IntN(2) == 0 {
			return 0
		}
		return c(r)
	}
}

// hugeMixed mixes capacities around 1e12 with small ones.
func hugeMixed(r *rand.Rand) float64 {
	switch r.IntN(3) {
	case 0:
		return float64(r.IntN(5)) * 1e12
	case 1:
		return float64(r.IntN(1000))
	}
	return r.Float64() * 1e12
}

// randomInstance draws n nodes, m random edges (parallel edges allowed)
// and terminal capacities, each absent with probability 1/3.
func randomInstance(r *rand.Rand, n, m int, c capGen) *instance {
	in := &instance{n: n, src: make([]float64, n), sink: make([]float64, n)}
	for i := range n {
		if r.IntN(3) > 0 {
			in.src[i] = c(r)
		}
		if r.IntN(3) > 0 {
			in.sink[i] = c(r)
		}
	}
	for range m {
		i := r.IntN(n)
		j := r.IntN(n - 1)
		if j >= i {
			j++
		}
		in.from = append(in.from, i)
		in.to = append(in.to, j)
		in.cap = append(in.cap, c(r))
		in.rev = append(in.rev, c(r))
	}
	return in
}

// close reports whether two flow values agree up to rounding relative to
// the total capacity involved.
func (in *instance) close(a, b float64) bool {
	scale := 1.0
	for i := range in.n {
		scale += math.Abs(in.src[i]) + math.Abs(in.sink[i])
	}
	for e := range in.from {
		scale += in.cap[e] + in.rev[e]
	}
	return math.Abs(a-b) <= 1e-9*scale
}
