package maxflow

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"unsafe"

	"github.com/probably-submodular/crf/internal/membudget"
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

// maxExactCapacity is 2⁵³: integers up to it are exact in float64, and so
// is every flow when the integer capacities sum to at most it.
const maxExactCapacity = 1 << 53

// nodeBytes is what a Graph keeps per node (its node record and terminal
// capacities), for the memory budget check of the p line.
const nodeBytes = int64(unsafe.Sizeof(node{}) + unsafe.Sizeof(pair{}))

// checkNodeBudget checks the storage of the p line's node count against
// the memory budget (internal/membudget): a file of one line can declare
// 2³¹ nodes, and the nodes any arc line names can be any of them, so the
// file's size cannot bound them.
func checkNodeBudget(line, nodes int) error {
	if err := membudget.Check(fmt.Sprintf("a graph of %d nodes", nodes), membudget.Bytes(int64(nodes), nodeBytes)); err != nil {
		return fmt.Errorf("line %d: the p line declares %d nodes: %w", line, nodes, err)
	}
	return nil
}

// Header is what a DIMACS file declares besides its arcs (0-based ids).
type Header struct {
	Nodes, Arcs  int // from the p line: nodes (s and t included) and arc lines
	Source, Sink int
}

// Read parses a DIMACS max-flow problem: "c" comment lines, one
// "p max NODES ARCS" line before any other, "n ID s" and "n ID t", and
// "a FROM TO CAPACITY" lines with 1-based ids. Errors give the line number
// and what was expected; nothing partial is returned. ReadGraph reads
// straight into a Graph instead, in less memory.
func Read(r io.Reader) (*Problem, error) {
	d := newDecoder(r)
	p := &Problem{Source: -1, Sink: -1}
	for {
		kind, a, err := d.next()
		switch {
		case err != nil:
			return nil, err
		case kind == 'p':
			p.Nodes = d.h.Nodes
			p.Arcs = make([]Arc, 0, min(d.h.Arcs, 1<<20))
		case kind == 'a':
			p.Arcs = append(p.Arcs, a)
		case kind == 0:
			p.Source, p.Sink = d.h.Source, d.h.Sink
			return p, nil
		}
	}
}

// ReadGraph reads a DIMACS max-flow problem (as Read does, with the same
// errors) and builds its Graph while reading, with Build's conventions,
// without keeping the arcs: the memory it needs is the Graph's. The file's
// "n" lines should come before its arcs (Write puts them there); arcs read
// before both terminals are known are kept until they are.
//
// The graph is sized from the p line: its nodes exactly, its edges for at
// most ARCS (every arc line an edge). Storage reserved beyond the edges the
// file has is never written, so on Linux it takes address space but no
// memory.
func ReadGraph(r io.Reader) (*Graph, Header, error) {
	d := newDecoder(r)
	var g *Graph
	var b graphBuilder
	var early []Arc // arcs read before s and t were both known
	for {
		kind, a, err := d.next()
		switch {
		case err != nil:
			return nil, Header{}, err
		case kind == 'p':
			m := d.h.Arcs
			if size, ok := readerSize(r); ok {
				// An arc line takes at least 6 bytes: never reserve
				// more edges than the file can hold.
				m = min(m, int(size/6)+1)
			} else {
				m = min(m, 1<<20)
			}
			g = New(d.h.Nodes-2, m)
			g.AddNodes(d.h.Nodes - 2)
			b = graphBuilder{g: g, s: -1, t: -1}
		case kind == 'n':
			b.s, b.t = d.h.Source, d.h.Sink
			if b.s >= 0 && b.t >= 0 {
				for _, a := range early {
					b.arc(a)
				}
				early = nil
			}
		case kind == 'a':
			if b.s < 0 || b.t < 0 {
				early = append(early, a)
				continue
			}
			b.arc(a)
		case kind == 0:
			b.flush()
			return g, d.h, nil
		}
	}
}

// readerSize returns how many bytes r has left, when it can tell.
func readerSize(r io.Reader) (int64, bool) {
	switch r := r.(type) {
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		return int64(r.Len()), true
	case *os.File:
		fi, err := r.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return 0, false
		}
		return fi.Size(), true
	}
	return 0, false
}

// graphBuilder turns arcs into a Graph with Build's conventions; an edge
// arc is held back until the next arc shows whether it is its reverse.
type graphBuilder struct {
	g       *Graph
	s, t    int
	pending Arc
	held    bool
}

func (b *graphBuilder) arc(a Arc) {
	g := b.g
	if b.held {
		p := b.pending
		b.held = false
		if a.From == p.To && a.To == p.From {
			g.addEdge(b.index(p.From), b.index(p.To), p.Cap, a.Cap)
			return
		}
		g.addEdge(b.index(p.From), b.index(p.To), p.Cap, 0)
	}
	switch {
	case a.From == b.s && a.To == b.t:
		g.flow += a.Cap
	case a.To == b.s || a.From == b.t:
	case a.From == b.s:
		g.addTerminal(b.index(a.To), a.Cap, 0)
	case a.To == b.t:
		g.addTerminal(b.index(a.From), 0, a.Cap)
	default:
		b.pending, b.held = a, true
	}
}

func (b *graphBuilder) flush() {
	if b.held {
		b.g.addEdge(b.index(b.pending.From), b.index(b.pending.To), b.pending.Cap, 0)
		b.held = false
	}
}

// index is Problem.NodeIndex.
func (b *graphBuilder) index(v int) int {
	k := v
	if v > b.s {
		k--
	}
	if v > b.t {
		k--
	}
	return k
}

// decoder reads and checks a DIMACS file one line at a time.
type decoder struct {
	sc                        *bufio.Scanner
	line                      int
	h                         Header
	pLine, sLine, tLine, arcs int
	f                         [5][]byte
	intSum                    uint64 // sum of the integer capacities so far (≤ 2⁵³)
}

func newDecoder(r io.Reader) *decoder {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	return &decoder{sc: sc, h: Header{Source: -1, Sink: -1}}
}

// next returns the kind of the next meaningful line: 'p' (d.h has its
// counts), 'n' (d.h has the terminal), 'a' with the arc, or 0 at the end of
// a complete, valid file.
func (d *decoder) next() (byte, Arc, error) {
	f := &d.f
	for d.sc.Scan() {
		d.line++
		line := d.line
		text := d.sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf")) // a UTF-8 byte-order mark some editors write
		}
		nf := fields(text, f)
		if nf == 0 || f[0][0] == 'c' {
			continue
		}
		if len(f[0]) != 1 {
			return 0, Arc{}, fmt.Errorf("line %d: unknown line type %q (want c, p, n or a)", line, f[0])
		}
		kind := f[0][0]
		if kind != 'p' && d.pLine == 0 {
			return 0, Arc{}, fmt.Errorf("line %d: %q line before the \"p max NODES ARCS\" line", line, string(kind))
		}
		switch kind {
		case 'p':
			if d.pLine != 0 {
				return 0, Arc{}, fmt.Errorf("line %d: second p line (first on line %d)", line, d.pLine)
			}
			if nf != 4 || string(f[1]) != "max" {
				return 0, Arc{}, fmt.Errorf("line %d: bad problem line %q, want \"p max NODES ARCS\"", line, d.sc.Text())
			}
			n, err1 := strconv.Atoi(string(f[2]))
			m, err2 := strconv.Atoi(string(f[3]))
			if err1 != nil || n < 2 || n > maxDIMACSNodes {
				return 0, Arc{}, fmt.Errorf("line %d: bad node count %q, want an integer in [2, %d]", line, f[2], maxDIMACSNodes)
			}
			if err2 != nil || m < 0 {
				return 0, Arc{}, fmt.Errorf("line %d: bad arc count %q, want an integer >= 0", line, f[3])
			}
			if err := checkNodeBudget(line, n); err != nil {
				return 0, Arc{}, err
			}
			d.h.Nodes, d.h.Arcs, d.pLine = n, m, line
			return 'p', Arc{}, nil
		case 'n':
			if nf != 3 || len(f[2]) != 1 || (f[2][0] != 's' && f[2][0] != 't') {
				return 0, Arc{}, fmt.Errorf("line %d: bad node line %q, want \"n ID s\" or \"n ID t\"", line, d.sc.Text())
			}
			v, err := nodeID(f[1], d.h.Nodes)
			if err != nil {
				return 0, Arc{}, fmt.Errorf("line %d: %w", line, err)
			}
			if f[2][0] == 's' {
				if d.sLine != 0 {
					return 0, Arc{}, fmt.Errorf("line %d: second source (first on line %d)", line, d.sLine)
				}
				d.h.Source, d.sLine = v, line
			} else {
				if d.tLine != 0 {
					return 0, Arc{}, fmt.Errorf("line %d: second sink (first on line %d)", line, d.tLine)
				}
				d.h.Sink, d.tLine = v, line
			}
			if d.h.Source == d.h.Sink {
				return 0, Arc{}, fmt.Errorf("line %d: node %d is both source and sink", line, v+1)
			}
			return 'n', Arc{}, nil
		case 'a':
			if nf != 4 {
				return 0, Arc{}, fmt.Errorf("line %d: bad arc line %q, want \"a FROM TO CAPACITY\"", line, d.sc.Text())
			}
			u, err := nodeID(f[1], d.h.Nodes)
			if err != nil {
				return 0, Arc{}, fmt.Errorf("line %d: arc tail: %w", line, err)
			}
			v, err := nodeID(f[2], d.h.Nodes)
			if err != nil {
				return 0, Arc{}, fmt.Errorf("line %d: arc head: %w", line, err)
			}
			if u == v {
				return 0, Arc{}, fmt.Errorf("line %d: arc from node %d to itself", line, u+1)
			}
			c, small, ok := capacity(f[3])
			if !ok {
				return 0, Arc{}, fmt.Errorf("line %d: arc %d->%d: bad capacity %q, want a finite number >= 0", line, u+1, v+1, f[3])
			}
			if err := d.exact(f[3], small); err != nil {
				return 0, Arc{}, fmt.Errorf("line %d: arc %d->%d: %w", line, u+1, v+1, err)
			}
			if d.arcs == d.h.Arcs {
				return 0, Arc{}, fmt.Errorf("line %d: more arcs than the %d declared on line %d", line, d.h.Arcs, d.pLine)
			}
			d.arcs++
			return 'a', Arc{u, v, c}, nil
		default:
			return 0, Arc{}, fmt.Errorf("line %d: unknown line type %q (want c, p, n or a)", line, f[0])
		}
	}
	line := d.line
	if err := d.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return 0, Arc{}, fmt.Errorf("line %d: line longer than 1 MiB", line+1)
		}
		return 0, Arc{}, fmt.Errorf("line %d: %w", line+1, err)
	}
	switch {
	case d.pLine == 0:
		return 0, Arc{}, errors.New("no \"p max NODES ARCS\" line")
	case d.sLine == 0:
		return 0, Arc{}, fmt.Errorf("line %d: end of file without a source (\"n ID s\")", line)
	case d.tLine == 0:
		return 0, Arc{}, fmt.Errorf("line %d: end of file without a sink (\"n ID t\")", line)
	case d.arcs != d.h.Arcs:
		return 0, Arc{}, fmt.Errorf("line %d: end of file after %d arcs, %d declared on line %d", line, d.arcs, d.h.Arcs, d.pLine)
	}
	return 0, Arc{}, nil
}

// exact refuses an integer capacity (a token of digits, the DIMACS form)
// that float64 cannot hold exactly, and integer capacities whose sum passes
// 2⁵³: every flow value and residual capacity is at most that sum, so up to
// it the float64 flow is the exact integer flow, and beyond it could be
// rounded without a word. Capacities written with a fraction or an exponent
// (an extension of the format; Write uses them) are read as float64. small
// is the token's value when it is an integer of at most 15 digits, else -1.
func (d *decoder) exact(tok []byte, small float64) error {
	v := uint64(small)
	if small < 0 {
		tok = bytes.TrimPrefix(tok, []byte("+"))
		for _, ch := range tok {
			if ch < '0' || ch > '9' {
				return nil
			}
		}
		var err error
		if v, err = strconv.ParseUint(string(tok), 10, 64); err != nil || v > maxExactCapacity {
			return fmt.Errorf("integer capacity %s exceeds 2^53 = %d, beyond which float64 flows are not exact (scale the capacities down)", psubBrief(tok), uint64(maxExactCapacity))
		}
	}
	// Each term is at most 2⁵³ and the sum so far too: no overflow.
	if d.intSum += v; d.intSum > maxExactCapacity {
		return fmt.Errorf("the integer capacities up to this arc sum to %d, more than 2^53 = %d: the flow, computed in float64, could be rounded (scale the capacities down)", d.intSum, uint64(maxExactCapacity))
	}
	return nil
}

// psubBrief quotes at most 40 bytes of a token.
func psubBrief(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%s… (%d digits)", b[:40], len(b))
	}
	return string(b)
}

// fields splits b at blanks into at most len(f) fields and returns how
// many there were (len(f)+1 when there were more).
func fields(b []byte, f *[5][]byte) int {
	n, k := 0, 0
	for {
		for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\r') {
			k++
		}
		if k == len(b) {
			return n
		}
		if n == len(f) {
			return n + 1
		}
		start := k
		for k < len(b) && b[k] != ' ' && b[k] != '\t' && b[k] != '\r' {
			k++
		}
		f[n] = b[start:k]
		n++
	}
}

// nodeID parses a 1-based id in [1, n] and returns it 0-based.
func nodeID(b []byte, n int) (int, error) {
	v, ok := smallInt(b)
	if !ok {
		var err error
		if v, err = strconv.Atoi(string(b)); err != nil {
			v = 0
		}
	}
	if v < 1 || v > n {
		return 0, fmt.Errorf("node %q out of range, want an integer in [1, %d]", b, n)
	}
	return v - 1, nil
}

// smallInt parses up to 15 decimal digits (the common case, and exact as a
// float64 too); anything else is left to strconv.
func smallInt(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = 10*v + int(c-'0')
	}
	return v, true
}

// capacity parses a finite number >= 0; small is its value when it is an
// integer of at most 15 digits, else -1.
func capacity(b []byte) (c, small float64, ok bool) {
	if v, ok := smallInt(b); ok {
		return float64(v), float64(v), true
	}
	c, err := strconv.ParseFloat(string(b), 64)
	return c, -1, err == nil && c >= 0 && !math.IsInf(c, 0)
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
	g := New(p.Nodes-2, p.edges())
	g.AddNodes(p.Nodes - 2)
	b := graphBuilder{g: g, s: p.Source, t: p.Sink}
	for _, a := range p.Arcs {
		b.arc(a)
	}
	b.flush()
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
	for e, ed := range g.edge {
		i, j := g.EdgeNodes(e)
		p.Arcs = append(p.Arcs, Arc{i, j, ed.cap}, Arc{j, i, ed.rev})
	}
	return p, nil
}
