package maxflow

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Problem is a max-flow problem as stored in the DIMACS format. Node ids
// are 0-based here (the file's id minus one).
type Problem struct {
	Nodes        int // number of nodes, s and t included
	Source, Sink int
	Arcs         []Arc
}

// Arc is one DIMACS arc "a FROM TO CAP" (0-based ids).
type Arc struct {
	From, To int
	Cap      float64
}

// maxDIMACSNodes keeps Build's int32 node indices in range.
const maxDIMACSNodes = math.MaxInt32 - 1

// Read parses a DIMACS max-flow problem: "c" comment lines, one
// "p max NODES ARCS" line before any other, "n ID s" and "n ID t", and
// "a FROM TO CAPACITY" lines with 1-based ids. Errors give the line number
// and what was expected; nothing partial is returned.
func Read(r io.Reader) (*Problem, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	p := &Problem{Source: -1, Sink: -1}
	declared, pLine, sLine, tLine := 0, 0, 0, 0
	var f [5][]byte
	line := 0
	for sc.Scan() {
		line++
		nf := fields(sc.Bytes(), &f)
		if nf == 0 || f[0][0] == 'c' {
			continue
		}
		if len(f[0]) != 1 {
			return nil, fmt.Errorf("line %d: unknown line type %q (want c, p, n or a)", line, f[0])
		}
		kind := f[0][0]
		if kind != 'p' && pLine == 0 {
			return nil, fmt.Errorf("line %d: %q line before the \"p max NODES ARCS\" line", line, string(kind))
		}
		switch kind {
		case 'p':
			if pLine != 0 {
				return nil, fmt.Errorf("line %d: second p line (first on line %d)", line, pLine)
			}
			if nf != 4 || string(f[1]) != "max" {
				return nil, fmt.Errorf("line %d: bad problem line %q, want \"p max NODES ARCS\"", line, sc.Text())
			}
			n, err1 := strconv.Atoi(string(f[2]))
			m, err2 := strconv.Atoi(string(f[3]))
			if err1 != nil || n < 2 || n > maxDIMACSNodes {
				return nil, fmt.Errorf("line %d: bad node count %q, want an integer in [2, %d]", line, f[2], maxDIMACSNodes)
			}
			if err2 != nil || m < 0 {
				return nil, fmt.Errorf("line %d: bad arc count %q, want an integer >= 0", line, f[3])
			}
			p.Nodes, declared, pLine = n, m, line
			p.Arcs = make([]Arc, 0, min(m, 1<<20))
		case 'n':
			if nf != 3 || len(f[2]) != 1 || (f[2][0] != 's' && f[2][0] != 't') {
				return nil, fmt.Errorf("line %d: bad node line %q, want \"n ID s\" or \"n ID t\"", line, sc.Text())
			}
			v, err := nodeID(f[1], p.Nodes)
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			if f[2][0] == 's' {
				if sLine != 0 {
					return nil, fmt.Errorf("line %d: second source (first on line %d)", line, sLine)
				}
				p.Source, sLine = v, line
			} else {
				if tLine != 0 {
					return nil, fmt.Errorf("line %d: second sink (first on line %d)", line, tLine)
				}
				p.Sink, tLine = v, line
			}
			if p.Source == p.Sink {
				return nil, fmt.Errorf("line %d: node %d is both source and sink", line, v+1)
			}
		case 'a':
			if nf != 4 {
				return nil, fmt.Errorf("line %d: bad arc line %q, want \"a FROM TO CAPACITY\"", line, sc.Text())
			}
			u, err := nodeID(f[1], p.Nodes)
			if err != nil {
				return nil, fmt.Errorf("line %d: arc tail: %w", line, err)
			}
			v, err := nodeID(f[2], p.Nodes)
			if err != nil {
				return nil, fmt.Errorf("line %d: arc head: %w", line, err)
			}
			if u == v {
				return nil, fmt.Errorf("line %d: arc from node %d to itself", line, u+1)
			}
			c, err := strconv.ParseFloat(string(f[3]), 64)
			if err != nil || !(c >= 0) || math.IsInf(c, 0) {
				return nil, fmt.Errorf("line %d: arc %d->%d: bad capacity %q, want a finite number >= 0", line, u+1, v+1, f[3])
			}
			if len(p.Arcs) == declared {
				return nil, fmt.Errorf("line %d: more arcs than the %d declared on line %d", line, declared, pLine)
			}
			p.Arcs = append(p.Arcs, Arc{u, v, c})
		default:
			return nil, fmt.Errorf("line %d: unknown line type %q (want c, p, n or a)", line, f[0])
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: line longer than 1 MiB", line+1)
		}
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	switch {
	case pLine == 0:
		return nil, errors.New("no \"p max NODES ARCS\" line")
	case sLine == 0:
		return nil, fmt.Errorf("line %d: end of file without a source (\"n ID s\")", line)
	case tLine == 0:
		return nil, fmt.Errorf("line %d: end of file without a sink (\"n ID t\")", line)
	case len(p.Arcs) != declared:
		return nil, fmt.Errorf("line %d: end of file after %d arcs, %d declared on line %d", line, len(p.Arcs), declared, pLine)
	}
	return p, nil
}

// fields splits b at blanks into at most len(f) fields and returns how
// many there were (len(f)+1 when there were more).
func fields(b []byte, f *[5][]byte) int {
	n := 0
	for {
		b = bytes.TrimLeft(b, " \t\r")
		if len(b) == 0 {
			return n
		}
		if n == len(f) {
			return n + 1
		}
		k := bytes.IndexAny(b, " \t\r")
		if k < 0 {
			k = len(b)
		}
		f[n] = b[:k]
		n++
		b = b[k:]
	}
}

// nodeID parses a 1-based id in [1, n] and returns it 0-based.
func nodeID(b []byte, n int) (int, error) {
	v, err := strconv.Atoi(string(b))
	if err != nil || v < 1 || v > n {
		return 0, fmt.Errorf("node %q out of range, want an integer in [1, %d]", b, n)
	}
	return v - 1, nil
}

// Validate checks what Read checks, for a Problem made in code.
func (p *Problem) Validate() error {
	if p.Nodes < 2 || p.Nodes > maxDIMACSNodes {
		return fmt.Errorf("node count %d, want [2, %d]", p.Nodes, maxDIMACSNodes)
	}
	if p.Source < 0 || p.Source >= p.Nodes || p.Sink < 0 || p.Sink >= p.Nodes || p.Source == p.Sink {
		return fmt.Errorf("source %d and sink %d must be distinct nodes in [0, %d)", p.Source, p.Sink, p.Nodes)
	}
	for k, a := range p.Arcs {
		if a.From < 0 || a.From >= p.Nodes || a.To < 0 || a.To >= p.Nodes || a.From == a.To {
			return fmt.Errorf("arc %d (%d->%d): need distinct nodes in [0, %d)", k, a.From, a.To, p.Nodes)
		}
		if !(a.Cap >= 0) || math.IsInf(a.Cap, 0) {
			return fmt.Errorf("arc %d (%d->%d): capacity %g, want a finite number >= 0", k, a.From, a.To, a.Cap)
		}
	}
	return nil
}

// Write writes p in the DIMACS format Read accepts (1-based ids; capacities
// in the shortest form that reads back exactly).
func Write(w io.Writer, p *Problem) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("dimacs: %w", err)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, "c max-flow problem written by psub/maxflow\np max %d %d\nn %d s\nn %d t\n",
		p.Nodes, len(p.Arcs), p.Source+1, p.Sink+1)
	buf := make([]byte, 0, 64)
	for _, a := range p.Arcs {
		buf = append(buf[:0], 'a', ' ')
		buf = strconv.AppendInt(buf, int64(a.From+1), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(a.To+1), 10)
		buf = append(buf, ' ')
		buf = strconv.AppendFloat(buf, a.Cap, 'g', -1, 64)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// NodeIndex maps a Problem node id to the Graph node Build gives it: ids
// keep their order with s and t left out; it returns -1 for s and t.
func (p *Problem) NodeIndex(v int) int {
	if v == p.Source || v == p.Sink {
		return -1
	}
	k := v
	if v > p.Source {
		k--
	}
	if v > p.Sink {
		k--
	}
	return k
}

// Build makes a Graph of p with Nodes-2 nodes (see NodeIndex). Arcs from s
// and to t become terminal capacities; an arc followed directly by its
// reverse becomes one edge (AddEdge's cap and revCap), any other arc an
// edge with revCap 0; arcs s->t add their capacity to the flow value; arcs
// into s or out of t cannot carry flow and are left out. p must be valid
// (Read's result, or passing Validate); Build panics otherwise.
func (p *Problem) Build() *Graph {
	n := p.Nodes - 2
	s, t := p.Source, p.Sink
	arcs := p.Arcs
	g := New(n, p.edges())
	g.AddNodes(n)
	for k := 0; k < len(arcs); k++ {
		a := arcs[k]
		switch {
		case a.From == s && a.To == t:
			g.flow += a.Cap
		case a.To == s || a.From == t:
		case a.From == s:
			i := p.NodeIndex(a.To)
			g.shiftTerminal(i, a.Cap, 0)
			g.term[i].a += a.Cap
		case a.To == t:
			i := p.NodeIndex(a.From)
			g.shiftTerminal(i, 0, a.Cap)
			g.term[i].b += a.Cap
		default:
			rev := 0.0
			if k+1 < len(arcs) && arcs[k+1].From == a.To && arcs[k+1].To == a.From {
				rev = arcs[k+1].Cap
				k++
			}
			g.addEdge(p.NodeIndex(a.From), p.NodeIndex(a.To), a.Cap, rev)
		}
	}
	return g
}

// edges counts the edges Build makes, so that it allocates once.
func (p *Problem) edges() int {
	m := 0
	arcs := p.Arcs
	for k := 0; k < len(arcs); k++ {
		a := arcs[k]
		if a.From == p.Source || a.To == p.Source || a.From == p.Sink || a.To == p.Sink {
			continue
		}
		if k+1 < len(arcs) && arcs[k+1].From == a.To && arcs[k+1].To == a.From {
			k++
		}
		m++
	}
	return m
}

// Problem returns g as a DIMACS problem with nodes 0..n-1 as in g, source n
// and sink n+1: an arc from s and one to t per node (when positive), then
// both arcs of every edge in edge order, zero capacities included, so that
// Build gives back the same nodes and edges. Terminal capacities must be
// >= 0, since DIMACS has no negative capacities. The flow constant of arcs
// s->t read by Build is not written.
func (g *Graph) Problem() (*Problem, error) {
	n := len(g.nodes)
	p := &Problem{Nodes: n + 2, Source: n, Sink: n + 1, Arcs: make([]Arc, 0, 2*n+2*len(g.edge))}
	for i, c := range g.term {
		if c.a < 0 || c.b < 0 {
			return nil, fmt.Errorf("node %d: terminal capacities (%g, %g): DIMACS needs >= 0", i, c.a, c.b)
		}
		if c.a > 0 {
			p.Arcs = append(p.Arcs, Arc{n, i, c.a})
		}
		if c.b > 0 {
			p.Arcs = append(p.Arcs, Arc{i, n + 1, c.b})
		}
	}
	for e, c := range g.edge {
		i, j := g.EdgeNodes(e)
		p.Arcs = append(p.Arcs, Arc{i, j, c.a}, Arc{j, i, c.b})
	}
	return p, nil
}
