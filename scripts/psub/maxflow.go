package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/probably-submodular/crf/internal/cputime"
	"github.com/probably-submodular/crf/psub/maxflow"
)

// maxflowResult is the JSON object printed by "psub maxflow". Times are in
// seconds; *_cpu_seconds are process CPU time (Linux only: all threads, the
// garbage collector's too, cputime.Seconds), which on a busy machine is much
// steadier than wall-clock time; it is the clock the C++ yardstick
// (psub/maxflow/testdata/bk) reads, and that prints the same fields.
type maxflowResult struct {
	File  string  `json:"file"`
	Nodes int     `json:"nodes"` // as declared in the file, s and t included
	Arcs  int     `json:"arcs"`
	Flow  float64 `json:"flow"`

	// Reading the file straight into the graph (the default).
	ReadSeconds    *float64 `json:"read_seconds,omitempty"`
	ReadCPUSeconds *float64 `json:"read_cpu_seconds,omitempty"`

	// -repeat: build from the parsed file and solve, Repeat times; the
	// first run of the process is reported as cold, the fastest of the
	// others as warm. Without -repeat, Seconds is the one solve. -rounds
	// reports its first build and solve as cold too.
	Repeat              int      `json:"repeat,omitempty"`
	ColdBuildSeconds    *float64 `json:"cold_build_seconds,omitempty"`
	ColdSeconds         *float64 `json:"cold_seconds,omitempty"`
	ColdBuildCPUSeconds *float64 `json:"cold_build_cpu_seconds,omitempty"`
	ColdCPUSeconds      *float64 `json:"cold_cpu_seconds,omitempty"`
	BuildSeconds        *float64 `json:"build_seconds,omitempty"`
	Seconds             *float64 `json:"seconds,omitempty"`
	BuildCPUSeconds     *float64 `json:"build_cpu_seconds,omitempty"`
	CPUSeconds          *float64 `json:"cpu_seconds,omitempty"`
	Mode                string   `json:"mode,omitempty"`
	Rounds              int      `json:"rounds,omitempty"`
	ColdFlow            *float64 `json:"cold_flow,omitempty"` // -rounds: the first solve's
	FlowSum             *float64 `json:"flow_sum,omitempty"`
	RoundSeconds        *float64 `json:"round_seconds,omitempty"`
	RoundCPUSeconds     *float64 `json:"round_cpu_seconds,omitempty"`
	// The part of RoundCPUSeconds spent building (rebuild, other, drop and
	// clear; AddEdges lays the arcs of a new graph out, or writes them into
	// a kept layout, unless no node has terminal capacity).
	RoundBuildCPUSeconds *float64 `json:"round_build_cpu_seconds,omitempty"`
	PeakRSSBytes         *int64   `json:"peak_rss_bytes,omitempty"`
}

// maxRuns bounds -repeat and -rounds (timing runs, each a whole solve).
const maxRuns = 1 << 20

// runMaxflow solves one DIMACS max-flow problem with Boykov–Kolmogorov.
func runMaxflow(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("maxflow", "psub maxflow [-repeat R | -rounds K [-mode dynamic|reset|clear|rebuild|other|drop]] FILE.max", stdout)
	fs.after = help("maxflow", nil)
	repeat := fs.Int("repeat", 0, "build and solve this many times from the parsed file (timing)")
	rounds := fs.Int("rounds", 0, "solve this many rounds of redrawn capacities")
	mode := fs.String("mode", "dynamic", "with -rounds: dynamic, reset, clear, rebuild, other or drop")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageErr("want one DIMACS file, got %d arguments", fs.NArg())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["repeat"] {
		if err := fs.intIn("repeat", *repeat, 1, maxRuns, "builds and solves"); err != nil {
			return err
		}
	}
	if set["rounds"] {
		if err := fs.intIn("rounds", *rounds, 1, maxRuns, "rounds of redrawn capacities"); err != nil {
			return err
		}
	}
	switch {
	case *repeat > 0 && *rounds > 0:
		return fs.usageErr("-repeat and -rounds: give one of them")
	case !slices.Contains([]string{"dynamic", "reset", "clear", "rebuild", "other", "drop"}, *mode):
		return fs.usageErr("-mode %q: want dynamic, reset, clear, rebuild, other or drop", *mode)
	}
	name := fs.Arg(0)
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	// One OS thread for the timed work, so that nothing else of ours runs
	// while it is timed.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	res := maxflowResult{File: name}
	if *repeat == 0 && *rounds == 0 {
		c0, w0 := cputime.Seconds(), time.Now()
		g, h, err := maxflow.ReadGraph(f)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		c1, w1 := cputime.Seconds(), time.Now()
		res.Flow = g.MaxFlow()
		c2, w2 := cputime.Seconds(), time.Now()
		res.Nodes, res.Arcs = h.Nodes, h.Arcs
		res.ReadSeconds, res.Seconds = ptr(w1.Sub(w0).Seconds()), ptr(w2.Sub(w1).Seconds())
		res.ReadCPUSeconds, res.CPUSeconds = cpuPtr(c0, c1), cpuPtr(c1, c2)
		runtime.KeepAlive(g)
		res.PeakRSSBytes = peakRSS()
		return writeJSON(stdout, res)
	}
	p, err := maxflow.Read(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	in := newBenchInstance(p)
	res.Nodes, res.Arcs = p.Nodes, len(p.Arcs)
	p = nil
	// The parse's garbage is collected now, not inside a timed region.
	runtime.GC()
	if *rounds > 0 {
		in.runRounds(&res, *rounds, *mode)
	} else {
		in.runRepeat(&res, *repeat)
	}
	res.PeakRSSBytes = peakRSS()
	return writeJSON(stdout, res)
}

// benchInstance is a parsed file in the form a program builds a graph
// from: terminal capacities per node and the edges, with Problem.Build's
// conventions (see psub/maxflow/FORMATS.md).
type benchInstance struct {
	n        int
	src, snk []float64
	ends     [][2]int
	cap, rev []float64
	konst    float64 // arcs s->t
	noise    float64 // a tenth of the mean |src-snk|, for perturb
}

func newBenchInstance(p *maxflow.Problem) *benchInstance {
	in := &benchInstance{n: p.Nodes - 2}
	in.src, in.snk = make([]float64, in.n), make([]float64, in.n)
	arcs := p.Arcs
	for k := 0; k < len(arcs); k++ {
		a := arcs[k]
		switch {
		case a.From == p.Source && a.To == p.Sink:
			in.konst += a.Cap
		case a.To == p.Source || a.From == p.Sink:
		case a.From == p.Source:
			in.src[p.NodeIndex(a.To)] += a.Cap
		case a.To == p.Sink:
			in.snk[p.NodeIndex(a.From)] += a.Cap
		default:
			rev := 0.0
			if k+1 < len(arcs) && arcs[k+1].From == a.To && arcs[k+1].To == a.From {
				rev = arcs[k+1].Cap
				k++
			}
			in.ends = append(in.ends, [2]int{p.NodeIndex(a.From), p.NodeIndex(a.To)})
			in.cap, in.rev = append(in.cap, a.Cap), append(in.rev, rev)
		}
	}
	for i := range in.n {
		in.noise += math.Abs(in.src[i] - in.snk[i])
	}
	if in.n > 0 {
		in.noise = 0.1 * in.noise / float64(in.n)
	}
	return in
}

// build makes the graph as a user would, with these edges (in.ends or
// another order of them) and the calls that take arrays (AddTerminalNodes,
// AddEdges): into a new graph when g is nil, else into g cleared (its
// storage kept).
func (in *benchInstance) build(g *maxflow.Graph, ends [][2]int, src, snk, cap, rev []float64) *maxflow.Graph {
	if g == nil {
		g = maxflow.New(in.n, len(ends))
	} else {
		g.Clear()
	}
	g.AddTerminalNodes(src, snk)
	g.AddEdges(ends, cap, rev)
	return g
}

func (in *benchInstance) runRepeat(res *maxflowResult, repeat int) {
	res.Repeat = repeat
	var g *maxflow.Graph
	for r := range repeat {
		c0, w0 := cputime.Seconds(), time.Now()
		// The first run builds a new graph (cold); the others build it
		// again in the same storage (warm), as the C++ driver's repeats
		// get the same memory back from malloc.
		g = in.build(g, in.ends, in.src, in.snk, in.cap, in.rev)
		g.Prepare() // the arcs' layout is building, not solving
		c1, w1 := cputime.Seconds(), time.Now()
		flow := g.MaxFlow() + in.konst
		c2, w2 := cputime.Seconds(), time.Now()
		res.Flow = flow
		b, s := w1.Sub(w0).Seconds(), w2.Sub(w1).Seconds()
		if r == 0 {
			res.ColdBuildSeconds, res.ColdSeconds = ptr(b), ptr(s)
			res.ColdBuildCPUSeconds, res.ColdCPUSeconds = cpuPtr(c0, c1), cpuPtr(c1, c2)
		} else {
			minInto(&res.BuildSeconds, ptr(b))
			minInto(&res.Seconds, ptr(s))
			minInto(&res.BuildCPUSeconds, cpuPtr(c0, c1))
			minInto(&res.CPUSeconds, cpuPtr(c1, c2))
		}
	}
}

// splitmix64 draws the rounds' capacities, as the C++ yardstick does.
type splitmix64 uint64

func (x *splitmix64) uniform() float64 {
	*x += 0x9E3779B97F4A7C15
	z := uint64(*x)
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	return float64(z>>11) * 0x1p-53
}

// perturb draws round k's capacities: node i's difference d = src-snk
// becomes d·U[0.9, 1.1] + U[-1, 1]·noise (so some nodes change side, and
// an instance without terminal capacities keeps none), each edge capacity
// is scaled by U[0.9, 1.1]. The explicit float64 conversions keep the
// compiler from fusing multiply-adds, so the draws are bit for bit the C++
// yardstick's.
func (in *benchInstance) perturb(k int, src, snk, cap, rev []float64) {
	r := splitmix64(k)
	for i := range in.n {
		u1 := r.uniform()
		u2 := r.uniform()
		d := float64(float64(in.src[i]-in.snk[i])*float64(0.9+float64(0.2*u1))) + float64(float64(2*u2-1)*in.noise)
		src[i], snk[i] = max(d, 0), max(-d, 0)
	}
	for e := range in.ends {
		cap[e] = in.cap[e] * float64(0.9+float64(0.2*r.uniform()))
		rev[e] = in.rev[e] * float64(0.9+float64(0.2*r.uniform()))
	}
}

func (in *benchInstance) runRounds(res *maxflowResult, rounds int, mode string) {
	res.Mode, res.Rounds = mode, rounds
	m := len(in.ends)
	src, snk := make([]float64, in.n), make([]float64, in.n)
	cap, rev := make([]float64, m), make([]float64, m)
	// "other": odd rounds build the edges in reverse order, with their
	// capacities reversed after the draw (as the C++ yardstick does).
	var rends [][2]int
	var rcap, rrev []float64
	if mode == "other" {
		rends = slices.Clone(in.ends)
		slices.Reverse(rends)
		rcap, rrev = make([]float64, m), make([]float64, m)
	}
	// The first build and solve of the process are the cold ones.
	c0, w0 := cputime.Seconds(), time.Now()
	g := in.build(nil, in.ends, in.src, in.snk, in.cap, in.rev)
	c1, w1 := cputime.Seconds(), time.Now()
	res.ColdFlow = ptr(g.MaxFlow() + in.konst)
	c2, w2 := cputime.Seconds(), time.Now()
	res.ColdBuildSeconds, res.ColdSeconds = ptr(w1.Sub(w0).Seconds()), ptr(w2.Sub(w1).Seconds())
	res.ColdBuildCPUSeconds, res.ColdCPUSeconds = cpuPtr(c0, c1), cpuPtr(c1, c2)
	sum, last := 0.0, 0.0
	var draw, build float64
	c0, w0 = cputime.Seconds(), time.Now()
	for k := 1; k <= rounds; k++ {
		d0 := cputime.Seconds()
		in.perturb(k, src, snk, cap, rev)
		reversed := mode == "other" && k%2 == 1
		if reversed {
			for e := range m {
				rcap[m-1-e], rrev[m-1-e] = cap[e], rev[e]
			}
		}
		draw += cputime.Seconds() - d0
		switch mode {
		case "rebuild", "other", "drop":
			b0 := cputime.Seconds()
			// rebuild gives the previous graph's storage back first, as
			// the C++ yardstick deletes its graph before making the next;
			// drop leaves it to the garbage collector.
			if mode != "drop" {
				g.Release()
			}
			if reversed {
				g = in.build(nil, rends, src, snk, rcap, rrev)
			} else {
				g = in.build(nil, in.ends, src, snk, cap, rev)
			}
			build += cputime.Seconds() - b0
			last = g.MaxFlow()
		case "clear":
			b0 := cputime.Seconds()
			in.build(g, in.ends, src, snk, cap, rev)
			build += cputime.Seconds() - b0
			last = g.MaxFlow()
		case "reset":
			g.ResetCapacities()
			g.AddTerminals(0, src, snk)
			for e := range m {
				g.SetEdge(e, cap[e], rev[e])
			}
			last = g.MaxFlow()
		default:
			// Only the capacities that changed are updated (and their
			// nodes marked), as the C++ yardstick does.
			g.UpdateTerminals(src, snk)
			g.UpdateEdges(cap, rev)
			last = g.MaxFlowReuse()
		}
		sum += last
	}
	c1, w1 = cputime.Seconds(), time.Now()
	res.Flow, res.FlowSum = last+in.konst, ptr(sum+float64(rounds)*in.konst)
	res.RoundSeconds = ptr(w1.Sub(w0).Seconds() / float64(rounds))
	if !math.IsNaN(c0) && !math.IsNaN(c1) {
		res.RoundCPUSeconds = ptr((c1 - c0 - draw) / float64(rounds))
		if mode != "dynamic" && mode != "reset" {
			res.RoundBuildCPUSeconds = ptr(build / float64(rounds))
		}
	}
}

func ptr[T any](v T) *T { return &v }

// cpuPtr is the CPU time between two readings, nil where there is no
// process CPU clock.
func cpuPtr(c0, c1 float64) *float64 {
	if math.IsNaN(c0) || math.IsNaN(c1) {
		return nil
	}
	return ptr(c1 - c0)
}

// minInto keeps the smaller of *dst and v in *dst; a nil v (not measured)
// changes nothing.
func minInto(dst **float64, v *float64) {
	if v != nil && (*dst == nil || *v < **dst) {
		*dst = v
	}
}

// peakRSS returns the process's peak resident memory in bytes, nil where
// it is not measured.
func peakRSS() *int64 {
	if b, ok := cputime.PeakRSS(); ok {
		return ptr(b)
	}
	return nil
}
