package inference

import (
	"fmt"
	"math"
)

// TRWS is sequential tree-reweighted message passing (Kolmogorov 2006,
// "Convergent tree-reweighted message passing for energy minimization") for
// any number of labels. Nodes are ordered by index; each iteration is a
// forward and a backward pass. Node i's weight is
// γ_i = 1/max(#earlier neighbours, #later neighbours), as in the paper.
//
// The lower bound is computed after each backward pass from the current
// reparametrisation θ̂ (θ̂_i = θ_i + Σ_j m_ji, θ̂_ij = θ_ij − m_ij − m_ji):
// splitting each θ̂_i into γ_i·θ̂_i for each edge to an earlier node plus a
// non-negative remainder gives
//
//	min E ≥ Σ_i (1 − n_i γ_i) min θ̂_i + Σ_(j<i) min_{y_i,y_j} [γ_i θ̂_i(y_i) + θ̂_ij(y_i,y_j)],
//
// with n_i the number of earlier neighbours of i. It holds for any messages;
// right after a backward pass each edge term is the normalisation constant
// of the message just sent. Tests check that it reaches the optimum on trees
// and the LP-relaxation value (= QPBO's roof-dual bound) on binary energies.
// The reported bound is the best one seen, so it never decreases.
// The labelling is chosen during forward passes
// (each node minimises its unary plus pairwise terms to already-labelled
// earlier nodes plus messages from later nodes); the best one seen is
// returned. Fully deterministic.
type TRWS struct {
	// MaxIter bounds the number of forward+backward iterations; 0 means 100.
	MaxIter int
	// Tol stops when an iteration raises the bound by less than
	// Tol·(1+|bound|), or when energy − bound <= Tol·(1+|energy|);
	// 0 means 1e-9.
	Tol float64
}

// Name implements Method.
func (TRWS) Name() string { return "trws" }

// Minimize implements Method. Result.Exact is set when the energy of the
// labelling meets the lower bound within Tol.
func (m TRWS) Minimize(e *Energy) (Result, error) {
	if err := e.Validate(); err != nil {
		return Result{}, fmt.Errorf("trws: %w", err)
	}
	maxIter := m.MaxIter
	if maxIter <= 0 {
		maxIter = 100
	}
	tol := m.Tol
	if tol <= 0 {
		tol = 1e-9
	}
	if L := e.Labels; 2*L*len(e.Edges) > math.MaxInt32 || L*L*len(e.Edges) > math.MaxInt32 {
		return Result{}, fmt.Errorf("trws: %d edges with %d labels exceed the int32 offsets used", len(e.Edges), L)
	}
	s := newTRWSState(e)
	best := make([]int, e.Nodes())
	bestE := math.Inf(1)
	lb := math.Inf(-1)
	r := Result{}
	for it := 1; it <= maxIter; it++ {
		r.Iterations = it
		s.pass(true)
		if v := e.Eval(s.y); v < bestE {
			bestE = v
			copy(best, s.y)
		}
		s.pass(false)
		prev := lb
		lb = math.Max(lb, s.bound(false))
		if bestE-lb <= tol*(1+math.Abs(bestE)) {
			break
		}
		if it > 1 && lb-prev < tol*(1+math.Abs(lb)) {
			break
		}
	}
	if len(best) == 0 {
		bestE, lb = e.Eval(best), 0
	}
	r.Labels = best
	r.Energy = e.Eval(best)
	r.LowerBound = math.Min(lb, r.Energy)
	r.Exact = r.Energy-lb <= tol*(1+math.Abs(r.Energy))
	return r, nil
}

type trwsState struct {
	e     *Energy
	adj   adjacency
	half  []trwsHalf // per adjacency entry, in adjacency order
	msg   []float64  // per edge 2*L: [0:L] message a→b (over y_b), [L:2L] message b→a (over y_a)
	gamma []float64
	nFwd  []int // #neighbours with larger index
	nBwd  []int // #neighbours with smaller index
	th    []float64
	buf   []float64
	y     []int
}

// trwsHalf is edge j seen from one end i: precomputed offsets so that the
// inner loops do no branching on edge orientation.
type trwsHalf struct {
	other   int32
	in, out int32 // offsets in msg of the message into i and out of i
	tab     int32 // offset of the table in Pairwise
	si, so  int32 // strides: θ(y_i=k, y_other=l) = Pairwise[tab + k*si + l*so]
	later   bool  // other > i
}

func newTRWSState(e *Energy) *trwsState {
	n, L := e.Nodes(), e.Labels
	s := &trwsState{
		e: e, adj: newAdjacency(n, e.Edges),
		msg: make([]float64, 2*L*len(e.Edges)), gamma: make([]float64, n),
		nFwd: make([]int, n), nBwd: make([]int, n),
		th: make([]float64, L), buf: make([]float64, L), y: make([]int, n),
	}
	s.half = make([]trwsHalf, len(s.adj.edge))
	for i := 0; i < n; i++ {
		for p := s.adj.start[i]; p < s.adj.start[i+1]; p++ {
			j := s.adj.edge[p]
			a, b := e.Edges[j][0], e.Edges[j][1]
			h := trwsHalf{tab: int32(j * L * L)}
			if a == i {
				h.other, h.in, h.out, h.si, h.so = int32(b), int32(2*L*j+L), int32(2*L*j), int32(L), 1
			} else {
				h.other, h.in, h.out, h.si, h.so = int32(a), int32(2*L*j), int32(2*L*j+L), 1, int32(L)
			}
			h.later = int(h.other) > i
			s.half[p] = h
		}
	}
	for _, ed := range e.Edges {
		lo, hi := min(ed[0], ed[1]), max(ed[0], ed[1])
		s.nFwd[lo]++
		s.nBwd[hi]++
	}
	for i := range s.gamma {
		if d := max(s.nFwd[i], s.nBwd[i]); d > 0 {
			s.gamma[i] = 1 / float64(d)
		}
	}
	return s
}

func (s *trwsState) halves(i int) []trwsHalf { return s.half[s.adj.start[i]:s.adj.start[i+1]] }

// belief fills th with θ̂_i = θ_i + Σ incoming messages.
func (s *trwsState) belief(i int) {
	L := s.e.Labels
	copy(s.th, s.e.Unary[i*L:(i+1)*L])
	for _, h := range s.halves(i) {
		m := s.msg[int(h.in) : int(h.in)+L]
		for k := range s.th {
			s.th[k] += m[k]
		}
	}
}

// pass does one forward (increasing index) or backward sweep. The forward
// sweep also computes the labelling s.y.
func (s *trwsState) pass(forward bool) {
	n, L := s.e.Nodes(), s.e.Labels
	P := s.e.Pairwise
	for t := 0; t < n; t++ {
		i := t
		if !forward {
			i = n - 1 - t
		}
		s.belief(i)
		if forward {
			s.pickLabel(i)
		}
		g := s.gamma[i]
		for _, h := range s.halves(i) {
			if h.later != forward {
				continue
			}
			mi, mo := s.msg[int(h.in):int(h.in)+L], s.msg[int(h.out):int(h.out)+L]
			for k := 0; k < L; k++ {
				s.buf[k] = g*s.th[k] - mi[k]
			}
			lo := math.Inf(1)
			for l := 0; l < L; l++ {
				v := math.Inf(1)
				base := int(h.tab) + l*int(h.so)
				for k := 0; k < L; k++ {
					if c := s.buf[k] + P[base+k*int(h.si)]; c < v {
						v = c
					}
				}
				mo[l] = v
				lo = min(lo, v)
			}
			for l := range mo {
				mo[l] -= lo
			}
		}
	}
}

// pickLabel sets y_i during a forward pass: unary + pairwise to earlier
// (already labelled) neighbours + messages from later neighbours.
func (s *trwsState) pickLabel(i int) {
	L := s.e.Labels
	P := s.e.Pairwise
	copy(s.buf, s.e.Unary[i*L:(i+1)*L])
	for _, h := range s.halves(i) {
		if !h.later {
			base := int(h.tab) + s.y[int(h.other)]*int(h.so)
			for k := 0; k < L; k++ {
				s.buf[k] += P[base+k*int(h.si)]
			}
		} else {
			m := s.msg[int(h.in) : int(h.in)+L]
			for k := 0; k < L; k++ {
				s.buf[k] += m[k]
			}
		}
	}
	bk := 0
	for k := 1; k < L; k++ {
		if s.buf[k] < s.buf[bk] {
			bk = k
		}
	}
	s.y[i] = bk
}

// bound evaluates the lower bound of the type comment, splitting each node's
// belief over its edges towards later (forward) or earlier nodes.
func (s *trwsState) bound(forward bool) float64 {
	n, L := s.e.Nodes(), s.e.Labels
	P := s.e.Pairwise
	lb := 0.0
	for i := 0; i < n; i++ {
		s.belief(i)
		g := s.gamma[i]
		cnt := s.nBwd[i]
		if forward {
			cnt = s.nFwd[i]
		}
		rest := 1 - float64(cnt)*g
		if rest > 1e-12 {
			lo := math.Inf(1)
			for _, v := range s.th {
				lo = min(lo, v)
			}
			lb += rest * lo
		}
		for _, h := range s.halves(i) {
			if h.later != forward {
				continue
			}
			mi, mo := s.msg[int(h.in):int(h.in)+L], s.msg[int(h.out):int(h.out)+L]
			lo := math.Inf(1)
			for k := 0; k < L; k++ {
				a := g*s.th[k] - mi[k]
				base := int(h.tab) + k*int(h.si)
				for l := 0; l < L; l++ {
					lo = min(lo, a+P[base+l*int(h.so)]-mo[l])
				}
			}
			lb += lo
		}
	}
	return lb
}
