package psub

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
	"github.com/probably-submodular/crf/psub/internal/cut"
)

// sparsify zeroes about half of the entries of rows, so that the CSR rows
// skip coordinates as the EM volume's |φ_k − φ_l| do.
func sparsify(rng *rand.Rand, rows [][]float64) {
	for _, r := range rows {
		for j := range r {
			if rng.IntN(2) == 0 {
				r[j] = 0
			}
		}
	}
}

// TestFillTriples checks the binary fills that read the pairwise weights
// as triples (reduced.P3) against two oracles on random sparse instances,
// with one reduced reused across weights as the learner reuses t.red:
// fillEnergy's tables against −(w_ab − w_00)·x computed from w itself (to
// rounding), and fillEnergy's and fillCut's numbers bit for bit against
// the products written over P's three-element slices, the arithmetic
// before P3 (same terms, same order).
func TestFillTriples(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 3))
	l := Layout{Labels: 2, UnaryDim: 5, PairwiseDim: 7}
	off, dp := l.PairwiseOffset(), l.PairwiseDim
	var r reduced
	for c := 0; c < 40; c++ {
		in := randomInstance(rng, 15, 25, l.UnaryDim, dp, 2)
		sparsify(rng, in.Unary)
		sparsify(rng, in.Pairwise)
		f := instFeatures{unary: newCSR(in.Unary), pairwise: newCSR(in.Pairwise)}
		w := randomW(rng, l.Dim())
		l.reduce(w, &r)
		e := inference.NewEnergy(in.Nodes(), 2, in.Edges)
		l.fillEnergy(e, &f, &r, make([]float64, 3))

		// Oracle 1: the table from w, block by block.
		for j, x := range in.Pairwise {
			base := 0.0
			for k, v := range x {
				base += w[off+k] * v
			}
			for a := 0; a < 2; a++ {
				for b := 0; b < 2; b++ {
					s := 0.0
					for k, v := range x {
						s += w[off+l.Block(a, b)*dp+k] * v
					}
					want, got := -(s - base), e.Pairwise[4*j+2*a+b]
					if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
						t.Fatalf("case %d edge %d: θ(%d,%d) = %v, −(w_ab − w_00)·x = %v", c, j, a, b, got, want)
					}
				}
			}
		}

		// Oracle 2: the slice arithmetic, bit for bit.
		old := func(ed int) (p0, p1, p2 float64) {
			lo, hi := f.pairwise.start[ed], f.pairwise.start[ed+1]
			for t := lo; t < hi; t++ {
				x, j := f.pairwise.val[t], int(f.pairwise.idx[t])
				w := r.P[3*j : 3*j+3 : 3*j+3]
				p0 += x * w[0]
				p1 += x * w[1]
				p2 += x * w[2]
			}
			return
		}
		costs := make([]float64, in.Nodes())
		for k := range costs {
			costs[k] = rng.Float64()
		}
		wantLin, wantPair, wantTrunc := make([]float64, in.Nodes()), make([]float64, len(in.Edges)), 0
		for k := range wantLin {
			var u [1]float64
			f.unary.mulInto(u[:], k, r.U, 1)
			if in.Labels[k] == 0 {
				wantLin[k] = -u[0] - costs[k]
			} else {
				wantLin[k] = -u[0] + costs[k]
			}
		}
		for j, ed := range in.Edges {
			p0, p1, p2 := old(j)
			if got := e.Pairwise[4*j : 4*j+4]; !slices.Equal(got, []float64{0, -p0, -p1, -p2}) {
				t.Fatalf("case %d edge %d: fillEnergy's table %v, slice arithmetic (0, %v, %v, %v)", c, j, got, -p0, -p1, -p2)
			}
			cc, d := -p1, -p0-p1+p2
			if d < 0 {
				if cut.AtMost(-p2, -p0-p1) {
					d = 0
				} else {
					cc -= d / 2
					d = 0
					wantTrunc++
				}
			}
			wantLin[ed[0]] += cc
			wantLin[ed[1]] += -p2 - cc
			wantPair[j] = d
		}
		lin, pair := make([]float64, in.Nodes()), make([]float64, len(in.Edges))
		trunc, _ := l.fillCut(lin, pair, &f, &r, costs, in.Labels, in.Edges, true, nil)
		if trunc != wantTrunc || !slices.Equal(lin, wantLin) || !slices.Equal(pair, wantPair) {
			t.Fatalf("case %d: fillCut %d truncated, lin %v, pair %v; slice arithmetic %d, %v, %v", c, trunc, lin, pair, wantTrunc, wantLin, wantPair)
		}
	}
}
