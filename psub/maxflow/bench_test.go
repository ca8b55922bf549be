package maxflow

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"unsafe"
)

var dimacsDir = flag.String("dimacs-dir", "", "TestWriteBenchInstances writes the benchmark grids as DIMACS files here")

// segmentation returns a grid with dims (2-D or 3-D, 4- or 6-connected)
// and capacities like a binary segmentation: the unary difference is a
// centred blob (+8 inside, -8 outside) plus uniform noise in [-8, 8],
// put on the source or the sink side by its sign; smoothness is
// 2 + uniform[0, 1] in each direction.
func segmentation(seed uint64, dims ...int) *instance {
	r := rand.New(rand.NewPCG(seed, uint64(len(dims))))
	n := 1
	for _, d := range dims {
		n *= d
	}
	in := &instance{n: n, src: make([]float64, n), sink: make([]float64, n)}
	m := n * len(dims)
	in.from, in.to = make([]int, 0, m), make([]int, 0, m)
	in.cap, in.rev = make([]float64, 0, m), make([]float64, 0, m)
	coord := make([]int, len(dims))
	for i := range n {
		rest := i
		dist2 := 0.0
		for k := len(dims) - 1; k >= 0; k-- {
			coord[k] = rest % dims[k]
			rest /= dims[k]
			u := float64(coord[k])/float64(dims[k]) - 0.5
			dist2 += u * u
		}
		d := -8.0
		if dist2 < 0.09 {
			d = 8
		}
		d += 16*r.Float64() - 8
		if d > 0 {
			in.src[i] = d
		} else {
			in.sink[i] = -d
		}
		stride := 1
		for k := len(dims) - 1; k >= 0; k-- {
			if coord[k]+1 < dims[k] {
				in.from, in.to = append(in.from, i), append(in.to, i+stride)
				in.cap, in.rev = append(in.cap, 2+r.Float64()), append(in.rev, 2+r.Float64())
			}
			stride *= dims[k]
		}
	}
	return in
}

// superpixels returns a superpixel-adjacency-like graph: about n nodes on a
// jittered planar grid, joined to their right and lower neighbours and to
// one diagonal neighbour in two cases out of three (~2.5 edges per node),
// with unaries and smoothness as in segmentation.
func superpixels(seed uint64, w, h int) *instance {
	r := rand.New(rand.NewPCG(seed, 99))
	in := &instance{n: w * h, src: make([]float64, w*h), sink: make([]float64, w*h)}
	add := func(i, j int) {
		in.from, in.to = append(in.from, i), append(in.to, j)
		c := 1 + 3*r.Float64()
		in.cap, in.rev = append(in.cap, c), append(in.rev, c)
	}
	for y := range h {
		for x := range w {
			i := y*w + x
			d := 10*r.Float64() - 5
			if d > 0 {
				in.src[i] = d
			} else {
				in.sink[i] = -d
			}
			if x+1 < w {
				add(i, i+1)
			}
			if y+1 < h {
				add(i, i+w)
			}
			if x+1 < w && y+1 < h && r.IntN(3) > 0 {
				if r.IntN(2) == 0 {
					add(i, i+w+1)
				} else {
					add(i+1, i+w)
				}
			}
		}
	}
	return in
}

// setCaps overwrites g's capacities with in's (the reset pattern).
func setCaps(g *Graph, in *instance) {
	g.ResetCapacities()
	for i := range in.n {
		g.SetTerminal(i, in.src[i], in.sink[i])
	}
	for e := range in.from {
		g.SetEdge(e, in.cap[e], in.rev[e])
	}
}

// cpuMeter sums the thread CPU time of the timed regions of a benchmark.
type cpuMeter struct {
	total, start int64
	ok, locked   bool
}

// begin locks the goroutine to its OS thread (so that the thread's CPU
// time is the benchmark's) and starts a timed region.
func (m *cpuMeter) begin() {
	if !m.locked {
		runtime.LockOSThread()
		m.locked, m.ok = true, true
	}
	var ok bool
	m.start, ok = threadCPU()
	m.ok = m.ok && ok
}

// end closes a timed region.
func (m *cpuMeter) end() {
	t, ok := threadCPU()
	m.total += t - m.start
	m.ok = m.ok && ok
}

// report adds cpu-ns/op and unlocks the thread.
func (m *cpuMeter) report(b *testing.B) {
	if m.locked {
		runtime.UnlockOSThread()
	}
	if m.ok && b.N > 0 {
		b.ReportMetric(float64(m.total)/float64(b.N), "cpu-ns/op")
	}
}

// randomGraph returns n nodes and m edges between uniformly drawn distinct
// nodes (parallel edges allowed), unary differences U[-8, 8] on the source
// or the sink by sign, and capacities U[0, 4] in each direction.
func randomGraph(seed uint64, n, m int) *instance {
	r := rand.New(rand.NewPCG(seed, 7))
	in := &instance{n: n, src: make([]float64, n), sink: make([]float64, n)}
	for i := range n {
		if d := 16*r.Float64() - 8; d > 0 {
			in.src[i] = d
		} else {
			in.sink[i] = -d
		}
	}
	for range m {
		i, j := r.IntN(n), r.IntN(n-1)
		if j >= i {
			j++
		}
		in.from, in.to = append(in.from, i), append(in.to, j)
		in.cap, in.rev = append(in.cap, 4*r.Float64()), append(in.rev, 4*r.Float64())
	}
	return in
}

// randomGrid is a side×side 4-connected grid with randomGraph's
// capacities; with zeroTerminals every terminal capacity is 0 (the flow
// is 0 and the work is building the graph and finding that out).
func randomGrid(seed uint64, side int, zeroTerminals bool) *instance {
	r := rand.New(rand.NewPCG(seed, 11))
	n := side * side
	in := &instance{n: n, src: make([]float64, n), sink: make([]float64, n)}
	for i := range n {
		if zeroTerminals {
			continue
		}
		if d := 16*r.Float64() - 8; d > 0 {
			in.src[i] = d
		} else {
			in.sink[i] = -d
		}
	}
	for y := range side {
		for x := range side {
			i := y*side + x
			if x+1 < side {
				in.from, in.to = append(in.from, i), append(in.to, i+1)
				in.cap, in.rev = append(in.cap, 4*r.Float64()), append(in.rev, 4*r.Float64())
			}
			if y+1 < side {
				in.from, in.to = append(in.from, i), append(in.to, i+side)
				in.cap, in.rev = append(in.cap, 4*r.Float64()), append(in.rev, 4*r.Float64())
			}
		}
	}
	return in
}

type benchCase struct {
	name string
	size int // 0 small (run under -short), 1 medium, 2 large (>= 1M nodes)
	make func() *instance
}

// benchCases are the instances of BENCHMARKS.md, smallest first.
var benchCases = []benchCase{
	{"random-200x600", 0, func() *instance { return randomGraph(1, 200, 600) }},
	{"superpixels-500", 0, func() *instance { return superpixels(1, 25, 20) }},
	{"random-500x1500", 0, func() *instance { return randomGraph(2, 500, 1500) }},
	{"random-2000x8000", 0, func() *instance { return randomGraph(3, 2000, 8000) }},
	{"grid2d-256x256", 0, func() *instance { return segmentation(1, 256, 256) }},
	{"grid2d-256x256-random", 0, func() *instance { return randomGrid(4, 256, false) }},
	{"grid2d-256x256-zero", 0, func() *instance { return randomGrid(5, 256, true) }},
	{"grid2d-512x512", 1, func() *instance { return segmentation(1, 512, 512) }},
	{"grid2d-512x512-random", 1, func() *instance { return randomGrid(6, 512, false) }},
	{"grid2d-512x512-zero", 1, func() *instance { return randomGrid(7, 512, true) }},
	{"grid2d-1024x1024", 2, func() *instance { return segmentation(1, 1024, 1024) }},
	{"grid2d-2048x2048", 2, func() *instance { return segmentation(1, 2048, 2048) }},
	{"grid3d-100x100x100", 2, func() *instance { return segmentation(1, 100, 100, 100) }},
}

// skipLarge skips the medium and large graphs under -short.
func skipLarge(b *testing.B, c benchCase) {
	if testing.Short() && c.size > 0 {
		b.Skip("not with -short")
	}
}

// BenchmarkMaxFlow times one fresh solve (capacities reset outside the
// timer). B/op is what the solve allocates (the orphan queue on first use).
func BenchmarkMaxFlow(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			skipLarge(b, c)
			in := c.make()
			g := in.build()
			b.ReportMetric(float64(in.n), "nodes")
			b.ReportMetric(float64(len(in.from)), "edges")
			var m cpuMeter
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				setCaps(g, in)
				b.StartTimer()
				m.begin()
				g.MaxFlow()
				m.end()
			}
			m.report(b)
		})
	}
}

// BenchmarkBuild times building the graph with New, AddNodes,
// AddTerminal and AddEdge from slices, and BenchmarkBuildSolve building and
// solving it, in a new Graph each time ("new"), in a new Graph after
// releasing the previous one ("release", which gets its storage back), or
// in one Graph emptied with Clear ("clear"). The arcs are laid out by the
// first solve, so Build alone leaves that work out.
func BenchmarkBuild(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			skipLarge(b, c)
			in := c.make()
			var m cpuMeter
			for b.Loop() {
				m.begin()
				in.build()
				m.end()
			}
			m.report(b)
		})
	}
}

func BenchmarkBuildSolve(b *testing.B) {
	for _, c := range benchCases {
		for _, mode := range []string{"new", "release", "clear"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				skipLarge(b, c)
				in := c.make()
				g := New(0, 0)
				var m cpuMeter
				for b.Loop() {
					m.begin()
					switch mode {
					case "new":
						g = New(in.n, len(in.from))
					case "release":
						g.Release()
						g = New(in.n, len(in.from))
					default:
						g.Clear()
					}
					g.AddNodes(in.n)
					for i := range in.n {
						g.AddTerminal(i, in.src[i], in.sink[i])
					}
					for e := range in.from {
						g.AddEdge(in.from[e], in.to[e], in.cap[e], in.rev[e])
					}
					g.MaxFlow()
					m.end()
				}
				m.report(b)
			})
		}
	}
}

// BenchmarkRepeated compares the two reuse patterns on one graph solved
// many times with slightly changed capacities: each op changes the unaries
// of frac of the nodes (drawn anew each op) and re-solves, either by
// ResetCapacities + setting all capacities + MaxFlow, or by UpdateTerminal
// on the changed nodes + MaxFlowReuse.
func BenchmarkRepeated(b *testing.B) {
	cases := []struct {
		name string
		in   func() *instance
		frac float64
	}{
		{"grid2d-256x256-1pct", func() *instance { return segmentation(2, 256, 256) }, 0.01},
		{"superpixels-500-10pct", func() *instance { return superpixels(2, 25, 20) }, 0.10},
	}
	for _, c := range cases {
		for _, mode := range []string{"reset", "reuse"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				in := c.in()
				g := in.build()
				g.MaxFlow()
				r := rand.New(rand.NewPCG(3, 0))
				k := int(math.Ceil(c.frac * float64(in.n)))
				var m cpuMeter
				for b.Loop() {
					m.begin()
					for range k {
						i := r.IntN(in.n)
						d := 16*r.Float64() - 8
						in.src[i], in.sink[i] = max(d, 0), max(-d, 0)
						if mode == "reuse" {
							g.UpdateTerminal(i, in.src[i], in.sink[i])
						}
					}
					if mode == "reset" {
						setCaps(g, in)
						g.MaxFlow()
					} else {
						g.MaxFlowReuse()
					}
					m.end()
				}
				m.report(b)
			})
		}
	}
}

// TestMemoryLayout pins the per-node and per-edge sizes stated in doc.go
// and BENCHMARKS.md: per node the search state, the user capacities, and
// two uint32 (start of its arcs, the active queue's slot; the orphan lists
// are sized apart); per edge the two arcs and the edge as added.
func TestMemoryLayout(t *testing.T) {
	perNode := unsafe.Sizeof(node{}) + unsafe.Sizeof(pair{}) + 2*4
	perEdge := 2*unsafe.Sizeof(arc{}) + unsafe.Sizeof(edgeRec{})
	if unsafe.Sizeof(node{}) != 32 || perNode != 56 || perEdge != 56 {
		t.Fatalf("%d bytes per node and %d per edge; update doc.go and BENCHMARKS.md", perNode, perEdge)
	}
}

// TestWriteBenchInstances writes the benchmark instances as DIMACS files
// for the C++ yardstick (see BENCHMARKS.md); skipped without -dimacs-dir.
func TestWriteBenchInstances(t *testing.T) {
	if *dimacsDir == "" {
		t.Skip("no -dimacs-dir")
	}
	for _, c := range benchCases {
		in := c.make()
		p, err := in.build().Problem()
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(*dimacsDir, c.name+".max")
		f, err := os.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(f, p); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		fmt.Println("wrote", name, in.n, "nodes", len(in.from), "edges")
	}
}

// BenchmarkBuildBulk times building a graph with the calls that take
// arrays (AddNodes, AddTerminals, AddEdges) and laying its arcs out
// (Prepare, which the solve would otherwise do): after Release of the
// previous graph ("release": a new graph, which takes its storage and
// layout, and the edges are the same), after Clear ("clear": the same
// graph built again in place), after Release of a graph of other edges
// ("other": every other build has the edges in reverse order, so no build
// has the edges of the graph released before it) and after Release of a
// graph whose edges differ in the last one only ("last": the worst case
// for taking a released graph's layout, which is found not to fit only at
// the end).
func BenchmarkBuildBulk(b *testing.B) {
	for _, c := range benchCases {
		for _, mode := range []string{"release", "clear", "other", "last"} {
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				skipLarge(b, c)
				in := c.make()
				ends := [2][][2]int{edgesOf(in), edgesOf(in)}
				caps, revs := [2][]float64{in.cap, in.cap}, [2][]float64{in.rev, in.rev}
				switch m := len(in.from); mode {
				case "other":
					slices.Reverse(ends[1])
					caps[1], revs[1] = slices.Clone(in.cap), slices.Clone(in.rev)
					slices.Reverse(caps[1])
					slices.Reverse(revs[1])
				case "last":
					ends[1][m-1] = [2]int{ends[1][m-1][1], ends[1][m-1][0]}
				}
				g := New(0, 0)
				var m cpuMeter
				k := 0
				for b.Loop() {
					m.begin()
					if mode == "clear" {
						g.Clear()
					} else {
						g.Release()
						g = New(in.n, len(in.from))
					}
					bulkFill(g, in.n, in, ends[k], caps[k], revs[k])
					g.Prepare()
					m.end()
					k ^= 1
				}
				m.report(b)
			})
		}
	}
}
