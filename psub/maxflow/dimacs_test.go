package maxflow

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/membudget"
)

// problemEK is Edmonds–Karp run directly on the arcs of p, sharing nothing
// with Build.
func problemEK(p *Problem) float64 {
	in := &instance{n: p.Nodes - 2, src: make([]float64, p.Nodes-2), sink: make([]float64, p.Nodes-2)}
	// Rename so that s and t are the last two ids, as edmondsKarp expects:
	// reuse it by routing terminal arcs through src/sink and the rest as
	// edges; arcs into s, out of t and s->t handled by hand.
	idx := func(v int) int {
		k := 0
		for u := range v {
			if u != p.Source && u != p.Sink {
				k++
			}
		}
		return k
	}
	direct := 0.0
	for _, a := range p.Arcs {
		switch {
		case a.From == p.Source && a.To == p.Sink:
			direct += a.Cap
		case a.To == p.Source || a.From == p.Sink:
		case a.From == p.Source:
			in.src[idx(a.To)] += a.Cap
		case a.To == p.Sink:
			in.sink[idx(a.From)] += a.Cap
		default:
			in.from = append(in.from, idx(a.From))
			in.to = append(in.to, idx(a.To))
			in.cap = append(in.cap, a.Cap)
			in.rev = append(in.rev, 0)
		}
	}
	return direct + in.edmondsKarp()
}

func TestReadBuildSolve(t *testing.T) {
	cases := []struct {
		name, text string
		flow       float64
	}{
		{"classic", `c six nodes
p max 6 8
n 1 s
n 6 t
a 1 2 5
a 1 3 15
a 2 4 5
a 2 5 5
a 3 4 5
a 3 5 5
a 4 6 15
a 5 6 5
`, 15},
		{"terminals in the middle, s->t arc, arcs into s and out of t", `p max 4 6
n 3 s
n 2 t
a 3 1 4
a 1 2 3
a 3 2 2.5
a 1 3 7
a 2 4 9
a 4 2 1
`, 5.5},
		{"reverse pair merged", "p max 4 5\nn 1 s\nn 4 t\na 1 2 3\na 2 3 2\na 3 2 2\na 3 4 3\na 1 3 1\n", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Read(strings.NewReader(c.text))
			if err != nil {
				t.Fatal(err)
			}
			g := p.Build()
			if f, ek := g.MaxFlow(), problemEK(p); f != c.flow || ek != c.flow {
				t.Fatalf("flow %v, Edmonds–Karp %v, want %v", f, ek, c.flow)
			}
		})
	}
}

// randomProblem draws a DIMACS problem with s and t anywhere and arcs of
// every kind, including reverse pairs and arcs touching s and t both ways.
func randomProblem(r *rand.Rand, n, m int) *Problem {
	p := &Problem{Nodes: n, Source: r.IntN(n)}
	p.Sink = (p.Source + 1 + r.IntN(n-1)) % n
	for range m {
		u := r.IntN(n)
		v := (u + 1 + r.IntN(n-1)) % n
		c := float64(r.IntN(10))
		p.Arcs = append(p.Arcs, Arc{u, v, c})
		if r.IntN(3) == 0 {
			p.Arcs = append(p.Arcs, Arc{v, u, float64(r.IntN(10))})
		}
	}
	return p
}

func TestBuildMatchesEdmondsKarpOnRandomProblems(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 0))
	for rep := range 500 {
		p := randomProblem(r, 2+r.IntN(12), r.IntN(40))
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		g := p.Build()
		if f, ek := g.MaxFlow(), problemEK(p); f != ek {
			t.Fatalf("rep %d: flow %v, Edmonds–Karp %v", rep, f, ek)
		}
	}
}

func TestDIMACSRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 0))
	for rep := range 100 {
		c := capCases[rep%len(capCases)]
		in := randomInstance(r, 2+r.IntN(20), 1+r.IntN(50), c.c)
		g := in.build()
		p, err := g.Problem()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, p); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		q, err := Read(strings.NewReader(text))
		if err != nil {
			t.Fatalf("rep %d: reading back: %v\n%s", rep, err, text)
		}
		h := q.Build()
		if h.Nodes() != g.Nodes() || h.Edges() != g.Edges() {
			t.Fatalf("rep %d: %d nodes %d edges, want %d, %d", rep, h.Nodes(), h.Edges(), g.Nodes(), g.Edges())
		}
		for i := range g.Nodes() {
			a1, b1 := g.Terminal(i)
			a2, b2 := h.Terminal(i)
			if a1 != a2 || b1 != b2 {
				t.Fatalf("rep %d node %d: terminals (%v,%v), want (%v,%v)", rep, i, a2, b2, a1, b1)
			}
		}
		for e := range g.Edges() {
			i1, j1 := g.EdgeNodes(e)
			i2, j2 := h.EdgeNodes(e)
			c1, r1 := g.Capacities(e)
			c2, r2 := h.Capacities(e)
			if i1 != i2 || j1 != j2 || c1 != c2 || r1 != r2 {
				t.Fatalf("rep %d edge %d: %d->%d (%v,%v), want %d->%d (%v,%v)", rep, e, i2, j2, c2, r2, i1, j1, c1, r1)
			}
		}
		if f, want := h.MaxFlow(), g.MaxFlow(); f != want {
			t.Fatalf("rep %d: flow %v after round trip, want %v", rep, f, want)
		}
		buf.Reset()
		if err := Write(&buf, q); err != nil || buf.String() != text {
			t.Fatalf("rep %d: second write differs (err %v)", rep, err)
		}
	}
}

func TestProblemRejectsNegativeTerminals(t *testing.T) {
	g := New(2, 0)
	g.AddNodes(2)
	g.AddTerminal(1, -1, 0)
	if _, err := g.Problem(); err == nil || !strings.Contains(err.Error(), "node 1") {
		t.Fatalf("err %v, want one naming node 1", err)
	}
}

func TestReadErrors(t *testing.T) {
	const head = "p max 3 2\nn 1 s\nn 3 t\n"
	cases := []struct{ name, text, want string }{
		{"empty", "", "no \"p max"},
		{"arc before p", "c x\na 1 2 3\n", "line 2: \"a\" line before"},
		{"bad p kind", "p min 3 2\n", "line 1: bad problem line"},
		{"p too short", "p max 3\n", "line 1: bad problem line"},
		{"bad node count", "p max x 2\n", "line 1: bad node count"},
		{"one node", "p max 1 0\n", "line 1: bad node count"},
		{"negative arc count", "p max 3 -1\n", "line 1: bad arc count"},
		{"second p", "p max 3 0\np max 3 0\n", "line 2: second p line (first on line 1)"},
		{"node out of range", "p max 3 0\nn 4 s\n", "line 2: node \"4\" out of range"},
		{"node zero", "p max 3 0\nn 0 s\n", "line 2: node \"0\" out of range"},
		{"bad terminal letter", "p max 3 0\nn 1 x\n", "line 2: bad node line"},
		{"duplicate source", "p max 3 0\nn 1 s\nn 2 s\n", "line 3: second source (first on line 2)"},
		{"duplicate sink", "p max 3 0\nn 1 t\nn 2 t\n", "line 3: second sink (first on line 2)"},
		{"source is sink", "p max 3 0\nn 1 s\nn 1 t\n", "line 3: node 1 is both source and sink"},
		{"missing source", "p max 3 0\nn 3 t\n", "without a source"},
		{"missing sink", "p max 3 0\nn 1 s\n", "without a sink"},
		{"arc head out of range", head + "a 1 9 1\n", "line 4: arc head: node \"9\" out of range"},
		{"arc tail not a number", head + "a x 2 1\n", "line 4: arc tail: node \"x\""},
		{"negative capacity", head + "a 1 2 -1\n", "line 4: arc 1->2: bad capacity \"-1\""},
		{"NaN capacity", head + "a 1 2 NaN\n", "line 4: arc 1->2: bad capacity \"NaN\""},
		{"infinite capacity", head + "a 1 2 Inf\n", "line 4: arc 1->2: bad capacity"},
		{"self loop", head + "a 2 2 1\n", "line 4: arc from node 2 to itself"},
		{"short arc line", head + "a 1 2\n", "line 4: bad arc line"},
		{"too many arcs", head + "a 1 2 1\na 2 3 1\na 1 3 1\n", "line 6: more arcs than the 2 declared on line 1"},
		{"too few arcs", head + "a 1 2 1\n", "line 4: end of file after 1 arcs, 2 declared on line 1"},
		{"unknown line", head + "x 1\n", "line 4: unknown line type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Read(strings.NewReader(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got (%v, %v), want an error containing %q", p, err, c.want)
			}
		})
	}
}

func TestReadLineTooLong(t *testing.T) {
	text := "p max 3 0\nc " + strings.Repeat("x", 2<<20) + "\n"
	if _, err := Read(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err %v, want one naming line 2", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add("p max 4 3\nn 1 s\nn 4 t\na 1 2 3\na 2 3 1.5\na 3 4 2\n")
	f.Add("c comment\np max 2 1\nn 2 s\nn 1 t\na 2 1 1e12\n")
	f.Add("p max 3 2\nn 1 s\nn 3 t\na 1 2 -1\n")
	f.Add("p max 99999999999 1\n")
	f.Add("p max 3 2\nn 1 s\nn 3 t\na 1 2 1\na 2 1 1\n")
	f.Add("p max 2147483646 1\nn 1 s\nn 2 t\na 1 2 1\n")
	f.Add("p max 2 2\nn 1 s\nn 2 t\na 1 2 9007199254740992\na 1 2 1\n")
	f.Add("p max 2 1\nn 1 s\nn 2 t\na 1 2 99999999999999999999\n")
	f.Setenv(membudget.Env, "64MB")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Read(strings.NewReader(text))
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Read accepted an invalid problem: %v", err)
		}
		if p.Nodes > 1000 {
			return
		}
		g := p.Build()
		h, _, err := ReadGraph(strings.NewReader(text))
		if err != nil {
			t.Fatalf("Read accepted what ReadGraph rejects: %v", err)
		}
		if d := sameGraph(g, h); d != "" {
			t.Fatalf("ReadGraph differs from Build: %s", d)
		}
		flow := g.MaxFlow()
		scale := 1.0
		for _, a := range p.Arcs {
			scale += a.Cap
		}
		if ek := problemEK(p); math.Abs(flow-ek) > 1e-9*scale {
			t.Fatalf("flow %v, Edmonds–Karp %v", flow, ek)
		}
	})
}

// sameGraph reports how g and h differ in nodes, terminals, edges and
// capacities ("" when they do not).
func sameGraph(g, h *Graph) string {
	if g.Nodes() != h.Nodes() || g.Edges() != h.Edges() || g.Flow() != h.Flow() {
		return fmt.Sprintf("%d nodes %d edges flow %v, want %d, %d, %v", h.Nodes(), h.Edges(), h.Flow(), g.Nodes(), g.Edges(), g.Flow())
	}
	for i := range g.Nodes() {
		a1, b1 := g.Terminal(i)
		a2, b2 := h.Terminal(i)
		if a1 != a2 || b1 != b2 {
			return fmt.Sprintf("node %d: terminals (%v,%v), want (%v,%v)", i, a2, b2, a1, b1)
		}
	}
	for e := range g.Edges() {
		i1, j1 := g.EdgeNodes(e)
		i2, j2 := h.EdgeNodes(e)
		c1, r1 := g.Capacities(e)
		c2, r2 := h.Capacities(e)
		if i1 != i2 || j1 != j2 || c1 != c2 || r1 != r2 {
			return fmt.Sprintf("edge %d: %d->%d (%v,%v), want %d->%d (%v,%v)", e, i2, j2, c2, r2, i1, j1, c1, r1)
		}
	}
	return ""
}

// TestReadGraphMatchesBuild: reading straight into a graph gives what
// Read and Build give, with the terminals' n lines before the arcs, after
// them, or between, and the same flow.
func TestReadGraphMatchesBuild(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 0))
	for rep := range 300 {
		p := randomProblem(r, 2+r.IntN(12), r.IntN(40))
		var buf bytes.Buffer
		if err := Write(&buf, p); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		if rep%3 > 0 && len(p.Arcs) > 0 {
			// Move the n lines after the first arc (rep%3 == 1) or to the end.
			lines := strings.SplitAfter(text, "\n")
			n := lines[2:4]
			rest := append(append([]string{}, lines[:2]...), lines[4:]...)
			at := 3
			if rep%3 == 2 {
				at = len(rest)
			}
			text = strings.Join(append(append(append([]string{}, rest[:at]...), n...), rest[at:]...), "")
		}
		q, err := Read(strings.NewReader(text))
		if err != nil {
			t.Fatalf("rep %d: %v\n%s", rep, err, text)
		}
		g := q.Build()
		h, hd, err := ReadGraph(strings.NewReader(text))
		if err != nil {
			t.Fatalf("rep %d: ReadGraph: %v\n%s", rep, err, text)
		}
		if hd != (Header{Nodes: q.Nodes, Arcs: len(q.Arcs), Source: q.Source, Sink: q.Sink}) {
			t.Fatalf("rep %d: header %+v for %d nodes %d arcs s %d t %d", rep, hd, q.Nodes, len(q.Arcs), q.Source, q.Sink)
		}
		if d := sameGraph(g, h); d != "" {
			t.Fatalf("rep %d: %s\n%s", rep, d, text)
		}
		if f, want := h.MaxFlow(), g.MaxFlow(); f != want {
			t.Fatalf("rep %d: flow %v, want %v", rep, f, want)
		}
	}
}

// TestReadGraphErrors: ReadGraph rejects what Read rejects, with the same
// message.
func TestReadGraphErrors(t *testing.T) {
	texts := []string{"", "p max 3 2\nn 1 s\nn 3 t\na 1 2 1\n", "p max 3 0\nn 1 s\nn 1 t\n",
		"p max 3 1\nn 1 s\nn 3 t\na 1 9 1\n", "p max 3 1\nn 1 s\na 1 2 -1\n", "p max 3 1\na 1 2 1\nn 1 s\n",
		"p max 3 1\nn 1 s\nn 3 t\na 1 2 1\na 2 3 1\n"}
	for _, text := range texts {
		_, err1 := Read(strings.NewReader(text))
		_, _, err2 := ReadGraph(strings.NewReader(text))
		if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
			t.Errorf("%q: Read %v, ReadGraph %v", text, err1, err2)
		}
	}
}

// TestReadGraphHugeDeclaredArcs: a p line declaring far more arcs than the
// file holds must not make ReadGraph reserve room for them.
func TestReadGraphHugeDeclaredArcs(t *testing.T) {
	text := "p max 4 2000000000\nn 1 s\nn 4 t\na 1 2 1\n"
	_, _, err := ReadGraph(strings.NewReader(text))
	if err == nil || !strings.Contains(err.Error(), "1 arcs, 2000000000 declared") {
		t.Fatalf("err %v", err)
	}
	_, _, err = ReadGraph(io.MultiReader(strings.NewReader(text))) // size unknown
	if err == nil || !strings.Contains(err.Error(), "declared") {
		t.Fatalf("err %v", err)
	}
}
