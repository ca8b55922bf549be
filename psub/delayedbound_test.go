package psub

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// stepDelayed is Algorithm 2's margin step with one step for every entry,
// L_ij ← L_ij − ‖w[from:] − w_last[from:]‖·‖b_j‖·‖p_i‖, then recompute. From
// 0 it is the paper's bound over the whole w (unary weights included: the
// behaviour before computeDelayed used the pairwise part only); from the
// pairwise offset, computeDelayed's bound before it took each column's step.
// It returns the margins it computed.
func stepDelayed(q *pool, w []float64, from int) int64 {
	m0 := q.computed
	if q.wLast != nil {
		d := 0.0
		for i := from; i < len(w); i++ {
			d += (w[i] - q.wLast[i]) * (w[i] - q.wLast[i])
		}
		for idx := 0; idx < q.active*len(q.B); idx++ {
			q.lower[idx] -= math.Sqrt(d) * q.normOf(idx)
		}
	}
	q.recompute(q.wMatrix(w), nil, 0)
	q.wLast = append(q.wLast[:0], w...)
	return q.computed - m0
}

// Along a walk of w whose unary part moves far more than its pairwise part
// (as after pretraining), Algorithm 2's bounds from the pairwise step stay
// valid lower bounds of the exact margins (Algorithm 1), exact where ≤ 0,
// and pick the same most violated constraints as the paper's whole-w bound,
// while recomputing fewer margins; a move of the unary weights alone
// recomputes none.
func TestDelayedBoundPairwiseStep(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	train := smoothSet(rng, 6, 12, 3, 2)
	l := Layout{Labels: 2, UnaryDim: 3, PairwiseDim: 3}
	mk := func() *pool { s, err := buildSpec(C4{}, l, train); must(t, err); return s.pool }
	full, ours, paper := mk(), mk(), mk()
	w := randomW(rng, l.Dim())
	off := l.PairwiseOffset()
	var nOurs, nPaper int64
	for step := 0; step < 40; step++ {
		full.computeFull(w)
		m0 := ours.computed
		ours.computeDelayed(w)
		nOurs += ours.computed - m0
		nPaper += stepDelayed(paper, w, 0)
		for idx := 0; idx < full.size(); idx++ {
			exact := full.lower[idx]
			if b := ours.lower[idx]; b > exact+1e-9 || (b <= 0 && math.Abs(b-exact) > 1e-9) {
				t.Fatalf("step %d: L[%d] = %v, margin %v", step, idx, b, exact)
			}
		}
		wantIdx, _ := full.violated(3, 1e-7*norm(w))
		gotIdx, _ := ours.violated(3, 1e-7*norm(w))
		paperIdx, _ := paper.violated(3, 1e-7*norm(w))
		if !slices.Equal(gotIdx, wantIdx) || !slices.Equal(paperIdx, wantIdx) {
			t.Fatalf("step %d: most violated %v (pairwise step), %v (paper's step), %v (exact)", step, gotIdx, paperIdx, wantIdx)
		}
		for i := range w {
			scale := 0.01 // pairwise weights: small moves
			if i < off {
				scale = 0.5
			}
			w[i] += scale * rng.NormFloat64()
		}
	}
	if nOurs >= nPaper {
		t.Fatalf("margins computed: %d with the pairwise step, %d with the paper's: want fewer", nOurs, nPaper)
	}
	t.Logf("margins computed over 40 steps: %d (pairwise step), %d (paper's whole-w step), pool %d", nOurs, nPaper, full.size())

	// Only the unary weights move: no bound falls, so the only margins
	// recomputed are those of the entries whose margin is ≤ 0 (Algorithm 2
	// recomputes them at every step to keep them exact).
	ours.computeDelayed(w)
	nonPos := 0
	for _, b := range ours.lower {
		if b <= 0 {
			nonPos++
		}
	}
	for i := 0; i < off; i++ {
		w[i] += 1
	}
	m0 := ours.computed
	ours.computeDelayed(w)
	if got := ours.computed - m0; got != int64(nonPos) {
		t.Fatalf("a unary-only move recomputed %d margins, want the %d entries with margin ≤ 0", got, nonPos)
	}
	if nPaperU := stepDelayed(paper, w, 0); nPaperU <= int64(nonPos) {
		t.Fatalf("the paper's whole-w step recomputed %d margins on a unary-only move, want more than %d", nPaperU, nonPos)
	}
}

// The 2-pass delayed row (pretraining, then Algorithm 2) against 2-pass
// with Algorithm 1, whose exact margins pick the constraints the paper's
// whole-w bound picks: both certified, the same iterations and constraints
// on this problem, and the same primal within Tol.
func TestTwoPassDelayedMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 27))
	// Labels that alternate along a path want repulsive edges, which C4
	// forbids on the training edges: hard constraints are generated. The
	// features vary per edge so that the pool's margins differ.
	train := alternatingSet(rng, 8, 14)
	for i := range train {
		for _, p := range train[i].Pairwise {
			for j := range p {
				p[j] += 0.5 * rng.Float64()
			}
		}
	}
	const tol = 1e-4
	exact := Settings{C: 5, Tol: tol, Set: C4{}, Pretrain: true, Workers: 2}
	delayed := exact
	delayed.Delayed = true
	_, trE := trainSet(t, train, exact)
	_, trD := trainSet(t, train, delayed)
	pE, pD := trE.Final().Primal, trD.Final().Primal
	if math.Abs(pE-pD) > tol*pE {
		t.Fatalf("primal %v (delayed) vs %v (exact margins): beyond Tol", pD, pE)
	}
	if trD.Final().Gap > tol || trE.Final().Gap > tol {
		t.Fatalf("gaps %v (delayed), %v (exact): want ≤ %v", trD.Final().Gap, trE.Final().Gap, tol)
	}
	if trE.HardIntroduced == 0 {
		t.Fatal("no hard constraint generated: the test does not exercise Algorithm 2")
	}
	if trD.Iters != trE.Iters || trD.HardIntroduced != trE.HardIntroduced {
		t.Fatalf("delayed: %d iterations, %d constraints; exact margins: %d, %d", trD.Iters, trD.HardIntroduced, trE.Iters, trE.HardIntroduced)
	}
	t.Logf("2-pass: %d iterations, %d constraints; margins %d delayed, %d exact", trD.Iters, trD.HardIntroduced, trD.Margins, trE.Margins)
}
