package maxflow

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

var capCases = []struct {
	name string
	c    capGen
}{
	{"int0-3", intCaps(3)},
	{"int0-100", intCaps(100)},
	{"fractional", fracCaps},
	{"zero-heavy-int", zeroHeavy(intCaps(5))},
	{"zero-heavy-frac", zeroHeavy(fracCaps)},
	{"huge-1e12", hugeMixed},
}

// checkSolved compares g's flow with the Edmonds–Karp oracle and with the
// value of the cut g reports.
func checkSolved(t *testing.T, what string, in *instance, g *Graph, flow float64) {
	t.Helper()
	ek := in.edmondsKarp()
	cut := in.cutValue(g.InSourceSide)
	if s := g.checkInvariants(); s != "" {
		t.Fatalf("%s: %s", what, s)
	}
	if !in.close(flow, ek) || !in.close(cut, ek) {
		t.Fatalf("%s: BK flow %v, reported cut %v, Edmonds–Karp %v", what, flow, cut, ek)
	}
}

func TestMaxFlowMatchesEdmondsKarp(t *testing.T) {
	sizes := []struct{ n, m int }{{1, 0}, {2, 1}, {3, 3}, {5, 8}, {8, 20}, {12, 12}, {20, 60}, {30, 45}}
	for ci, cc := range capCases {
		t.Run(cc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(ci)))
			for _, sz := range sizes {
				for rep := range 60 {
					m := sz.m
					if sz.n < 2 {
						m = 0
					}
					in := randomInstance(r, sz.n, m, cc.c)
					g := in.build()
					checkSolved(t, fmt.Sprintf("n=%d m=%d rep %d", sz.n, m, rep), in, g, g.MaxFlow())
				}
			}
		})
	}
}

func TestNegativeTerminalsMatchBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 0))
	for rep := range 500 {
		n := 1 + r.IntN(8)
		m := r.IntN(3 * n)
		if n == 1 {
			m = 0
		}
		in := randomInstance(r, n, m, intCaps(6))
		for i := range n {
			in.src[i] -= float64(r.IntN(5))
			in.sink[i] -= float64(r.IntN(5))
		}
		g := in.build()
		flow := g.MaxFlow()
		want := in.bruteMinCut()
		if cut := in.cutValue(g.InSourceSide); flow != want || cut != want {
			t.Fatalf("rep %d: flow %v, reported cut %v, brute force %v", rep, flow, cut, want)
		}
	}
}

// TestAddTerminalTwiceAccumulates checks the documented semantics: both
// capacities positive, repeated calls, and shifting.
func TestAddTerminalSemantics(t *testing.T) {
	cases := []struct {
		name       string
		adds       [][2]float64
		flow       float64
		sourceSide bool
	}{
		{"both positive", [][2]float64{{5, 3}}, 3, true},
		{"accumulate", [][2]float64{{5, 3}, {0, 4}}, 5, false},
		{"negative source", [][2]float64{{-2, 1}}, -2, false},
		{"negative both", [][2]float64{{-2, -7}}, -7, true},
		{"zero", [][2]float64{{0, 0}}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := New(1, 0)
			g.AddNodes(1)
			for _, a := range c.adds {
				g.AddTerminal(0, a[0], a[1])
			}
			if f := g.MaxFlow(); f != c.flow || g.InSourceSide(0) != c.sourceSide {
				t.Fatalf("flow %v side S=%v, want %v S=%v", f, g.InSourceSide(0), c.flow, c.sourceSide)
			}
		})
	}
}

// randomCaps draws new capacities for in's structure (same edges).
func randomCaps(r *rand.Rand, in *instance, c capGen) *instance {
	out := randomInstance(r, in.n, 0, c)
	out.from, out.to = in.from, in.to
	for range in.from {
		out.cap = append(out.cap, c(r))
		out.rev = append(out.rev, c(r))
	}
	return out
}

func TestResetCapacitiesResolve(t *testing.T) {
	for ci, cc := range capCases {
		t.Run(cc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(ci)))
			for rep := range 40 {
				in := randomInstance(r, 2+r.IntN(20), 1+r.IntN(50), cc.c)
				g := in.build()
				g.MaxFlow()
				for round := range 4 {
					next := randomCaps(r, in, cc.c)
					arcsBefore := unsafe.SliceData(g.arcs)
					g.ResetCapacities()
					for i := range next.n {
						g.SetTerminal(i, next.src[i], next.sink[i])
					}
					for e := range next.from {
						g.SetEdge(e, next.cap[e], next.rev[e])
					}
					checkSolved(t, fmt.Sprintf("rep %d round %d", rep, round), next, g, g.MaxFlow())
					if arcsBefore != nil && unsafe.SliceData(g.arcs) != arcsBefore {
						t.Fatal("ResetCapacities reallocated the arcs")
					}
				}
			}
		})
	}
}

// perturb changes a few capacities of in (a copy is returned) and applies
// the same changes to g with UpdateTerminal/UpdateEdge, or with the Set*
// functions when useSet.
func perturb(r *rand.Rand, in *instance, g *Graph, c capGen, useSet bool) *instance {
	out := &instance{n: in.n, from: in.from, to: in.to,
		src: append([]float64(nil), in.src...), sink: append([]float64(nil), in.sink...),
		cap: append([]float64(nil), in.cap...), rev: append([]float64(nil), in.rev...)}
	k := 1 + r.IntN(4)
	for range k {
		if r.IntN(2) == 0 || len(in.from) == 0 {
			i := r.IntN(in.n)
			out.src[i], out.sink[i] = c(r), c(r)
			if r.IntN(3) == 0 {
				out.src[i] = 0 // push a terminal to zero: roots lose their terminal
			}
			if useSet {
				g.SetTerminal(i, out.src[i], out.sink[i])
			} else {
				g.UpdateTerminal(i, out.src[i], out.sink[i])
			}
		} else {
			e := r.IntN(len(in.from))
			out.cap[e], out.rev[e] = c(r), c(r)
			if r.IntN(3) == 0 {
				out.cap[e] = 0 // below the flow the edge probably carries
			}
			if useSet {
				g.SetEdge(e, out.cap[e], out.rev[e])
			} else {
				g.UpdateEdge(e, out.cap[e], out.rev[e])
			}
		}
	}
	return out
}

func TestMaxFlowReuseMatchesFreshSolve(t *testing.T) {
	for _, useSet := range []bool{false, true} {
		for ci, cc := range capCases {
			t.Run(fmt.Sprintf("%s/set=%v", cc.name, useSet), func(t *testing.T) {
				r := rand.New(rand.NewPCG(4, uint64(ci)))
				for rep := range 40 {
					in := randomInstance(r, 2+r.IntN(25), 1+r.IntN(60), cc.c)
					g := in.build()
					g.MaxFlow()
					for round := range 8 {
						in = perturb(r, in, g, cc.c, useSet)
						what := fmt.Sprintf("rep %d round %d", rep, round)
						checkSolved(t, what, in, g, g.MaxFlowReuse())
						fresh := in.build()
						if f := fresh.MaxFlow(); !in.close(f, g.Flow()) {
							t.Fatalf("%s: reuse %v, fresh graph %v", what, g.Flow(), f)
						}
					}
				}
			})
		}
	}
}

// TestMaxFlowAfterChanges: a plain MaxFlow after capacity changes continues
// from the kept flow and is still exact.
func TestMaxFlowAfterChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 0))
	for rep := range 200 {
		in := randomInstance(r, 2+r.IntN(15), 1+r.IntN(40), fracCaps)
		g := in.build()
		g.MaxFlow()
		in = perturb(r, in, g, fracCaps, rep%2 == 0)
		checkSolved(t, fmt.Sprintf("rep %d", rep), in, g, g.MaxFlow())
		// Solving twice changes nothing.
		if f := g.Flow(); g.MaxFlow() != f {
			t.Fatalf("rep %d: second solve changed flow", rep)
		}
	}
}

func TestEdgeFlowIsConserved(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 0))
	in := randomInstance(r, 30, 90, intCaps(9))
	g := in.build()
	g.MaxFlow()
	net := make([]float64, in.n) // inflow minus outflow over edges
	for e := range in.from {
		f := g.EdgeFlow(e)
		if f > in.cap[e] || -f > in.rev[e] {
			t.Fatalf("edge %d: flow %v outside [-%v, %v]", e, f, in.rev[e], in.cap[e])
		}
		net[in.from[e]] -= f
		net[in.to[e]] += f
	}
	// Each node's net edge inflow is what it sends to t minus what it gets
	// from s, which lies within its terminal capacities.
	for i := range in.n {
		if net[i] > in.sink[i] || -net[i] > in.src[i] {
			t.Fatalf("node %d: net edge inflow %v with terminals s %v t %v", i, net[i], in.src[i], in.sink[i])
		}
	}
}

func TestProgrammerErrorsPanic(t *testing.T) {
	cases := []struct {
		name string
		f    func(g *Graph)
		msg  string
	}{
		{"negative edge capacity", func(g *Graph) { g.AddEdge(0, 1, -1, 0) }, ">= 0"},
		{"self loop", func(g *Graph) { g.AddEdge(1, 1, 1, 1) }, "distinct"},
		{"node out of range", func(g *Graph) { g.AddEdge(0, 5, 1, 1) }, "distinct nodes in [0, 2)"},
		{"NaN terminal", func(g *Graph) { g.AddTerminal(0, nan(), 0) }, "finite"},
		{"negative SetEdge", func(g *Graph) { g.AddEdge(0, 1, 1, 1); g.SetEdge(0, 1, -2) }, ">= 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				v := recover()
				if s, ok := v.(string); !ok || !strings.Contains(s, c.msg) {
					t.Fatalf("panic %v, want one mentioning %q", v, c.msg)
				}
			}()
			g := New(2, 1)
			g.AddNodes(2)
			c.f(g)
		})
	}
}

func nan() float64 {
	z := 0.0
	return z / z
}

// gridInstance is a w×h 4-connected grid with segmentation-like
// capacities: random unary differences on one terminal, constant-ish
// smoothness.
func gridInstance(r *rand.Rand, w, h int) *instance {
	in := &instance{n: w * h, src: make([]float64, w*h), sink: make([]float64, w*h)}
	for i := range in.n {
		d := r.Float64()*20 - 10
		if d > 0 {
			in.src[i] = d
		} else {
			in.sink[i] = -d
		}
	}
	for y := range h {
		for x := range w {
			i := y*w + x
			if x+1 < w {
				in.from, in.to = append(in.from, i), append(in.to, i+1)
				in.cap, in.rev = append(in.cap, 3+r.Float64()), append(in.rev, 3+r.Float64())
			}
			if y+1 < h {
				in.from, in.to = append(in.from, i), append(in.to, i+w)
				in.cap, in.rev = append(in.cap, 3+r.Float64()), append(in.rev, 3+r.Float64())
			}
		}
	}
	return in
}

// TestGridReuse exercises deep search trees: many rounds of small changes
// on a grid, MaxFlowReuse checked against Edmonds–Karp every round.
func TestGridReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 0))
	in := gridInstance(r, 12, 12)
	g := in.build()
	checkSolved(t, "fresh", in, g, g.MaxFlow())
	for round := range 30 {
		in = perturb(r, in, g, fracCaps, false)
		checkSolved(t, fmt.Sprintf("round %d", round), in, g, g.MaxFlowReuse())
	}
}

// TestReachability: with integer capacities (exact arithmetic) the source
// and sink trees must be exactly the sets s reaches and that reach t in the
// residual graph, which do not depend on which maximum flow was found.
func TestReachabilityMatchesEdmondsKarp(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 0))
	for rep := range 600 {
		in := randomInstance(r, 2+r.IntN(20), 1+r.IntN(50), zeroHeavy(intCaps(6)))
		g := in.build()
		if rep%2 == 1 { // also after dynamic updates
			g.MaxFlow()
			in = perturb(r, in, g, zeroHeavy(intCaps(6)), false)
			g.MaxFlowReuse()
		} else {
			g.MaxFlow()
		}
		_, fromS, toT := in.edmondsKarpSides()
		for i := range in.n {
			if g.ReachableFromSource(i) != fromS[i] || g.ReachesSink(i) != toT[i] {
				t.Fatalf("rep %d node %d: from s %v (want %v), to t %v (want %v)",
					rep, i, g.ReachableFromSource(i), fromS[i], g.ReachesSink(i), toT[i])
			}
		}
	}
}

// TestGrowAfterSolve: nodes, edges and terminals added after a solve are
// taken into account by the next MaxFlow, which continues from the kept
// flow.
func TestGrowAfterSolve(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 0))
	for rep := range 200 {
		in := randomInstance(r, 3+r.IntN(15), 2+r.IntN(40), intCaps(7))
		half := len(in.from) / 2
		g := New(0, 0)
		g.AddNodes(in.n - 1)
		for e := range half {
			if in.from[e] < in.n-1 && in.to[e] < in.n-1 {
				g.AddEdge(in.from[e], in.to[e], in.cap[e], in.rev[e])
			}
		}
		for i := range in.n - 1 {
			g.AddTerminal(i, in.src[i], 0)
		}
		g.MaxFlow()
		if g.AddNodes(1) != in.n-1 {
			t.Fatal("AddNodes returned the wrong first index")
		}
		for e := range half {
			if in.from[e] == in.n-1 || in.to[e] == in.n-1 {
				g.AddEdge(in.from[e], in.to[e], in.cap[e], in.rev[e])
			}
		}
		for e := half; e < len(in.from); e++ {
			g.AddEdge(in.from[e], in.to[e], in.cap[e], in.rev[e])
		}
		g.AddTerminal(in.n-1, in.src[in.n-1], 0)
		for i := range in.n {
			g.AddTerminal(i, 0, in.sink[i])
		}
		checkSolved(t, fmt.Sprintf("rep %d", rep), in, g, g.MaxFlowReuse())
	}
}

// TestReuseRenumbersTimeStamps covers the time-stamp wrap guard of
// MaxFlowReuse.
func TestReuseRenumbersTimeStamps(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 0))
	in := gridInstance(r, 8, 8)
	g := in.build()
	g.MaxFlow()
	for round := range 5 {
		g.time = maxTime + 1 + uint32(round)
		in = perturb(r, in, g, fracCaps, false)
		checkSolved(t, fmt.Sprintf("round %d", round), in, g, g.MaxFlowReuse())
		if g.time > maxTime {
			t.Fatalf("round %d: time %d not renumbered", round, g.time)
		}
	}
}

// TestSolvesAllocateNothing: once a graph has been solved, the reset and
// the dynamic patterns allocate nothing per solve.
func TestSolvesAllocateNothing(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 0))
	in := gridInstance(r, 20, 20)
	g := in.build()
	g.MaxFlow()
	next := randomCaps(r, in, fracCaps)
	g.UpdateTerminal(0, 1, 2) // the changed list's first growth
	g.MaxFlowReuse()
	reset := testing.AllocsPerRun(20, func() {
		g.ResetCapacities()
		for i := range next.n {
			g.SetTerminal(i, next.src[i], next.sink[i])
		}
		for e := range next.from {
			g.SetEdge(e, next.cap[e], next.rev[e])
		}
		g.MaxFlow()
	})
	k := 0
	dynamic := testing.AllocsPerRun(20, func() {
		for range 10 {
			k = (k + 7) % in.n
			g.UpdateTerminal(k, r.Float64(), r.Float64())
		}
		g.MaxFlowReuse()
	})
	if reset != 0 || dynamic != 0 {
		t.Fatalf("allocations per solve: reset %v, dynamic %v", reset, dynamic)
	}
}

// TestClearReusesStorage: graphs built one after the other in one Graph
// with Clear solve like new graphs, and allocate nothing once the storage
// has grown to the largest.
func TestClearReusesStorage(t *testing.T) {
	if raceEnabled {
		t.Skip("counts allocations, which the race detector adds to")
	}
	r := rand.New(rand.NewPCG(15, 0))
	g := New(0, 0)
	for rep := range 100 {
		in := randomInstance(r, 2+r.IntN(20), 1+r.IntN(50), fracCaps)
		g.Clear()
		g.AddNodes(in.n)
		for i := range in.n {
			g.AddTerminal(i, in.src[i], in.sink[i])
		}
		for e := range in.from {
			g.AddEdge(in.from[e], in.to[e], in.cap[e], in.rev[e])
		}
		checkSolved(t, fmt.Sprintf("rep %d", rep), in, g, g.MaxFlow())
	}
	in := randomInstance(r, 15, 40, fracCaps)
	allocs := testing.AllocsPerRun(20, func() {
		g.Clear()
		g.AddNodes(in.n)
		for i := range in.n {
			g.AddTerminal(i, in.src[i], in.sink[i])
		}
		for e := range in.from {
			g.AddEdge(in.from[e], in.to[e], in.cap[e], in.rev[e])
		}
		g.MaxFlow()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per build and solve after Clear", allocs)
	}
}

// TestPrepare: laying the arcs out ahead changes nothing of the solve, and
// again after growing the graph keeps the flow found so far.
func TestPrepare(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 0))
	for rep := range 50 {
		in := randomInstance(r, 2+r.IntN(20), 1+r.IntN(50), intCaps(9))
		g, h := in.build(), in.build()
		g.Prepare()
		if s := g.checkLayout(); s != "" {
			t.Fatalf("rep %d: %s", rep, s)
		}
		if f, want := g.MaxFlow(), h.MaxFlow(); f != want {
			t.Fatalf("rep %d: flow %v after Prepare, want %v", rep, f, want)
		}
		g.AddNodes(1)
		g.AddEdge(0, g.Nodes()-1, 1, 1)
		f := g.Flow()
		g.Prepare()
		if s := g.checkLayout(); s != "" || g.Flow() != f {
			t.Fatalf("rep %d: after growing: %s, flow %v want %v", rep, s, g.Flow(), f)
		}
	}
}

// TestOrphanListsGrow: with almost no room for orphans at first, the lists
// grow and every solve is still exact.
func TestOrphanListsGrow(t *testing.T) {
	defer func(r int) { orphanRoom = r }(orphanRoom)
	orphanRoom = 1
	r := rand.New(rand.NewPCG(17, 0))
	for rep := range 100 {
		in := randomInstance(r, 2+r.IntN(30), 1+r.IntN(90), fracCaps)
		g := in.build()
		checkSolved(t, fmt.Sprintf("rep %d", rep), in, g, g.MaxFlow())
		in = perturb(r, in, g, fracCaps, false)
		checkSolved(t, fmt.Sprintf("rep %d, reuse", rep), in, g, g.MaxFlowReuse())
	}
}

// TestHintsDoNotChangeTheSolve: a graph whose storage New sized from
// exact, too small or too large hints, filled in one AddNodes call or in
// several, or built again after Clear in storage a larger graph dirtied,
// has the same flow, bit for bit, and the same cut as one built with exact
// hints.
func TestHintsDoNotChangeTheSolve(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 0))
	big := New(0, 0)
	for rep := range 200 {
		in := randomInstance(r, 2+r.IntN(30), 1+r.IntN(90), fracCaps)
		want := in.build()
		wantFlow := want.MaxFlow()
		fill := func(g *Graph, steps int) {
			for k := range steps {
				g.AddNodes(in.n*(k+1)/steps - in.n*k/steps)
			}
			for i := range in.n {
				g.AddTerminal(i, in.src[i], in.sink[i])
			}
			for e := range in.from {
				g.AddEdge(in.from[e], in.to[e], in.cap[e], in.rev[e])
			}
		}
		big.Clear()
		big.AddNodes(40)
		for i := range 40 {
			big.AddTerminal(i, 1+r.Float64(), r.Float64())
		}
		big.AddEdge(0, 1, 1, 1)
		big.MaxFlow()
		big.Clear()
		fill(big, 1)
		graphs := map[string]*Graph{"cleared after a larger graph": big}
		for _, h := range [][2]int{{in.n, len(in.from)}, {in.n / 2, len(in.from) / 3}, {2 * in.n, 3 * len(in.from)}, {0, 0}} {
			for _, steps := range []int{1, 2, 3} {
				g := New(h[0], h[1])
				fill(g, steps)
				graphs[fmt.Sprintf("hints %v, %d AddNodes", h, steps)] = g
			}
		}
		for name, g := range graphs {
			if f := g.MaxFlow(); f != wantFlow {
				t.Fatalf("rep %d, %s: flow %v, want %v", rep, name, f, wantFlow)
			}
			for i := range in.n {
				if g.InSourceSide(i) != want.InSourceSide(i) {
					t.Fatalf("rep %d, %s: node %d on the other side", rep, name, i)
				}
			}
			checkSolved(t, fmt.Sprintf("rep %d, %s", rep, name), in, g, g.Flow())
		}
	}
}
