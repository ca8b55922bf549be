package inference

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/psub/internal/cut"
	"github.com/probably-submodular/crf/psub/maxflow"
)

// QPBO is roof duality (Hammer, Hansen & Simeone 1984) computed by one
// max-flow on the doubled graph of Kolmogorov & Rother 2007: node i and its
// complement ī (ȳ_i = 1 − y_i), each term split half on the original and
// half on the complement copy, a submodular edge giving arcs a→b and b̄→ā and
// a non-submodular edge the crossing arcs ā→b and b̄→a.
//
// Node i is labelled 0 when i is on the source side and ī on the sink side
// of the minimum cut, 1 in the mirrored case, and is unlabelled otherwise.
// The cut used is Boykov–Kolmogorov's minimal one (source side = nodes
// reachable from the source in the residual graph), which gives the strong
// persistencies: labelled nodes take the same value in every minimiser.
// Result.Unlabelled counts the rest; Result.LowerBound is the roof-dual
// bound (min-cut/2 plus the constants).
//
// Completion rule: unlabelled nodes are set to 0 and then improved by ICM
// sweeps over the unlabelled nodes only (labelled nodes stay fixed, since
// some minimiser agrees with them), at most ICMIter sweeps. Result.Exact is
// set when nothing was unlabelled or the energy meets the bound.
type QPBO struct {
	// ICMIter bounds the completion sweeps; 0 means 100.
	ICMIter int
}

// Name implements Method.
func (QPBO) Name() string { return "qpbo" }

// Minimize implements Method.
func (m QPBO) Minimize(e *Energy) (Result, error) { return m.NewSolver().Minimize(e) }

// NewSolver implements SolverFactory.
func (m QPBO) NewSolver() Solver { return &qpboSolver{opt: m} }

// QPBOPartial returns the roof-duality partial labelling of a binary energy:
// 0 or 1 for persistent nodes, -1 for unlabelled ones.
func QPBOPartial(e *Energy) ([]int, error) {
	s := &qpboSolver{}
	if err := needBinary("qpbo", e); err != nil {
		return nil, err
	}
	x := make([]int, e.Nodes())
	if _, err := s.partial(e, x); err != nil {
		return nil, fmt.Errorf("qpbo: %w", err)
	}
	return x, nil
}

const (
	qpboEmpty int8 = iota
	qpboSub
	qpboCross
)

type qpboSolver struct {
	opt   QPBO
	g     *maxflow.Graph
	n     int
	edges [][2]int
	eid   []int  // per edge: id of its first arc pair (the second is id+1), -1 if none
	kind  []int8 // per edge: qpboEmpty, qpboSub or qpboCross
	w     []float64
	lin   []float64
	adj   adjacency
}

func (s *qpboSolver) Minimize(e *Energy) (Result, error) {
	if err := needBinary("qpbo", e); err != nil {
		return Result{}, err
	}
	n := e.Nodes()
	y := make([]int, n)
	lb, err := s.partial(e, y)
	if err != nil {
		return Result{}, fmt.Errorf("qpbo: %w", err)
	}
	var free []int
	for i, v := range y {
		if v < 0 {
			free = append(free, i)
			y[i] = 0
		}
	}
	r := Result{Unlabelled: len(free), Iterations: 1}
	if len(free) > 0 {
		it := s.opt.ICMIter
		if it <= 0 {
			it = 100
		}
		if len(s.adj.start) != n+1 || !sameEdges(s.edges, e.Edges) {
			s.adj = newAdjacency(n, e.Edges)
		}
		icmSweeps(e, s.adj, y, free, it)
	}
	r.Labels = y
	r.Energy = e.Eval(y)
	r.LowerBound = math.Min(lb, r.Energy)
	r.Exact = len(free) == 0 || r.Energy-lb <= 1e-9*(1+math.Abs(r.Energy))
	return r, nil
}

// partial builds and cuts the doubled graph, writes the partial labelling
// into x and returns the roof-dual lower bound.
func (s *qpboSolver) partial(e *Energy, x []int) (float64, error) {
	n := e.Nodes()
	if cap(s.lin) < n {
		s.lin = make([]float64, n)
	}
	lin := s.lin[:n]
	k := 0.0
	for i := 0; i < n; i++ {
		lin[i] = e.Unary[2*i+1] - e.Unary[2*i]
		k += e.Unary[2*i]
	}
	// First pass: reparametrise, and classify each edge as submodular (arcs
	// a→b, b̄→ā), crossing (ā→b, b̄→a) or empty (w = 0).
	if cap(s.w) < len(e.Edges) {
		s.w = make([]float64, len(e.Edges))
	}
	s.w = s.w[:len(e.Edges)]
	for j, ed := range e.Edges {
		a, b := ed[0], ed[1]
		t := e.Pairwise[4*j : 4*j+4]
		A, B, C, D := t[0], t[1], t[2], t[3]
		k += A
		lin[a] += C - A
		lin[b] += D - C
		w := B + C - A - D // coefficient of (1−y_a)·y_b
		if w < 0 {
			// w(1−y_a)y_b = w·y_b + (−w)·y_a·y_b
			lin[b] += w
		}
		s.w[j] = w
	}
	if err := cut.FiniteCaps(lin, s.w, e.Edges); err != nil {
		return 0, err
	}
	// The graph is kept when the edges and every edge's class match the last
	// build; an empty edge fits any class (its arcs get capacity 0).
	reuse := s.g != nil && s.n == n && sameEdges(s.edges, e.Edges)
	for j := 0; reuse && j < len(e.Edges); j++ {
		w := s.w[j]
		reuse = w == 0 || (w > 0 && s.kind[j] == qpboSub) || (w < 0 && s.kind[j] == qpboCross)
	}
	if reuse {
		s.g.ResetCapacities()
		for j, w := range s.w {
			if s.kind[j] != qpboEmpty {
				s.g.SetEdge(s.eid[j], math.Abs(w)/2, 0)
				s.g.SetEdge(s.eid[j]+1, math.Abs(w)/2, 0)
			}
		}
	} else {
		s.g = maxflow.New(2*n, 2*len(e.Edges))
		s.g.AddNodes(2 * n)
		s.n = n
		s.edges = append(s.edges[:0], e.Edges...)
		s.eid = s.eid[:0]
		s.kind = s.kind[:0]
		for j, ed := range e.Edges {
			a, b, w := ed[0], ed[1], s.w[j]
			switch {
			case w > 0:
				s.eid = append(s.eid, s.g.AddEdge(a, b, w/2, 0))
				s.g.AddEdge(n+b, n+a, w/2, 0)
				s.kind = append(s.kind, qpboSub)
			case w < 0:
				s.eid = append(s.eid, s.g.AddEdge(n+a, b, -w/2, 0))
				s.g.AddEdge(n+b, a, -w/2, 0)
				s.kind = append(s.kind, qpboCross)
			default:
				s.eid = append(s.eid, -1)
				s.kind = append(s.kind, qpboEmpty)
			}
		}
	}
	for i := 0; i < n; i++ {
		c := lin[i]
		// c·y_i = c/2·y_i + c/2·(1−ȳ_i)
		if c >= 0 {
			s.setTerminal(reuse, i, c/2, 0)
			s.setTerminal(reuse, n+i, 0, c/2)
		} else {
			k += c
			s.setTerminal(reuse, i, 0, -c/2)
			s.setTerminal(reuse, n+i, -c/2, 0)
		}
	}
	f := s.g.MaxFlow()
	for i := 0; i < n; i++ {
		si, sbar := s.g.InSourceSide(i), s.g.InSourceSide(n+i)
		switch {
		case si && !sbar:
			x[i] = 0
		case !si && sbar:
			x[i] = 1
		default:
			x[i] = -1
		}
	}
	return f + k, nil
}

func (s *qpboSolver) setTerminal(reuse bool, i int, src, snk float64) {
	if reuse {
		s.g.SetTerminal(i, src, snk)
	} else {
		s.g.AddTerminal(i, src, snk)
	}
}
