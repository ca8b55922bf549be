package psub

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// c3Set is a random two-label problem for C3's four rows per edge: chains
// of nodes whose dp pairwise features are zero with probability zero and
// normal otherwise (negative ones included), so that the pool stores P
// densely (zero ≤ 0.5) or sparsely (zero ≥ 0.85).
func c3Set(rng *rand.Rand, graphs, nodes, dp int, zero float64) []Instance {
	var set []Instance
	for range graphs {
		var in Instance
		for v := range nodes {
			y := rng.IntN(2)
			x := float64(2*y-1) + rng.NormFloat64()
			in.Unary = append(in.Unary, []float64{x, 1})
			in.Labels = append(in.Labels, y)
			if v > 0 {
				p := make([]float64, dp)
				for k := range p {
					if rng.Float64() >= zero {
						p[k] = rng.NormFloat64()
					}
				}
				in.Edges = append(in.Edges, [2]int{v - 1, v})
				in.Pairwise = append(in.Pairwise, p)
			}
		}
		set = append(set, in)
	}
	return set
}

// TestRecompute4 checks the four-row pass (recompute4) against the entry
// by entry path (recomputeEntries) on random C3 pools, dense and sparse P,
// dp not a multiple of 4: from the same bounds (a mix of positive, ≤ 0 and
// NaN) and, for the tight bounds, the same anchors, references and
// distances, the same bounds, margins, references and slots bit for bit and
// the same count of margins; and each recomputed margin against c_ij·w
// summed over the full row (q.row) within round-off.
func TestRecompute4(t *testing.T) {
	for _, c := range []struct {
		name   string
		dp     int
		zero   float64
		sparse bool
	}{
		{"dense", 11, 0.5, false},
		{"dense wide", 105, 0.5, false},
		{"dense full", 6, 0, false},
		{"sparse", 13, 0.85, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(38, uint64(c.dp)))
			train := c3Set(rng, 3, 40, c.dp, c.zero)
			l := Layout{Labels: 2, UnaryDim: 2, PairwiseDim: c.dp}
			mk := func() *pool {
				spec, err := buildSpec(C3{}, l, train)
				if err != nil {
					t.Fatal(err)
				}
				return spec.pool
			}
			fast, ref := mk(), mk()
			if (fast.sp != nil) != c.sparse || len(fast.B) != 4 {
				t.Fatalf("want a four-row pool, sparse %v (sparse %v, %d rows b)", c.sparse, fast.sp != nil, len(fast.B))
			}
			for round := range 20 {
				w := randomW(rng, l.Dim())
				W := fast.wMatrix(w)
				tight := round%2 == 1
				var dist *anchorDist
				cur := int32(rng.IntN(3))
				if tight {
					dist = &anchorDist{make([]float64, 3*4), make([]float64, 3*4)}
					for g := range dist.fall {
						dist.fall[g], dist.rise[g] = rng.Float64(), rng.Float64()
					}
					if fast.ref == nil {
						fast.ref, fast.slot = make([]float64, len(fast.lower)), make([]int32, len(fast.lower))
						ref.ref, ref.slot = make([]float64, len(ref.lower)), make([]int32, len(ref.lower))
					}
				}
				for i := range fast.lower {
					b := rng.NormFloat64()
					if rng.IntN(50) == 0 {
						b = math.NaN()
					}
					fast.lower[i], ref.lower[i] = b, b
					if tight {
						fast.ref[i], ref.ref[i] = b+1, b+1
						s := int32(rng.IntN(3))
						fast.slot[i], ref.slot[i] = s, s
					}
				}
				before := fast.lower[:0:0]
				before = append(before, fast.lower...)
				n0, m0 := fast.computed, ref.computed
				fast.recompute(W, dist, cur)
				ref.recomputeEntries(W, dist, cur)
				for i := range ref.lower {
					if math.Float64bits(fast.lower[i]) != math.Float64bits(ref.lower[i]) {
						t.Fatalf("round %d, entry %d: four-row pass %v, entry by entry %v", round, i, fast.lower[i], ref.lower[i])
					}
					if tight && (math.Float64bits(fast.ref[i]) != math.Float64bits(ref.ref[i]) || fast.slot[i] != ref.slot[i]) {
						t.Fatalf("round %d, entry %d: four-row pass ref %v slot %d, entry by entry %v %d", round, i, fast.ref[i], fast.slot[i], ref.ref[i], ref.slot[i])
					}
					// Recomputed (a bound not > 0 before, or after rebasing):
					// the margin c_ij·w.
					if !tight && before[i] > 0 {
						continue
					}
					if tight && !(fast.slot[i] == cur && fast.ref[i] == fast.lower[i]) {
						continue
					}
					g, m := fast.row(i), 0.0
					for k := range g {
						m += g[k] * w[k]
					}
					if math.Abs(m-fast.lower[i]) > 1e-12*(1+math.Abs(m)) && !(tight && fast.lower[i] > 0) {
						t.Fatalf("round %d, entry %d: margin %v, c_ij·w = %v", round, i, fast.lower[i], m)
					}
				}
				if fast.computed-n0 != ref.computed-m0 || fast.computed == n0 {
					t.Fatalf("round %d: four-row pass computed %d margins, entry by entry %d", round, fast.computed-n0, ref.computed-m0)
				}
			}
		})
	}
}

// TestRecompute4Fit trains C3 on small random problems (dense and sparse
// P, Algorithm 2's bounds and the tight ones) with the four-row pass and
// entry by entry (recomputeByEntry): the same iterations, hard constraints
// introduced, margins counted, primal and weights bit for bit.
func TestRecompute4Fit(t *testing.T) {
	for _, c := range []struct {
		name string
		dp   int
		zero float64
		tune Tuning
	}{
		{"dense", 9, 0.5, Tuning{}},
		{"dense tight", 9, 0.5, Tuning{TightBounds: true}},
		{"sparse", 13, 0.85, Tuning{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(43, uint64(c.dp)))
			train := c3Set(rng, 4, 30, c.dp, c.zero)
			var got [2]string
			for k, byEntry := range []bool{false, true} {
				recomputeByEntry = byEntry
				m, tr, err := Train(train, 2, Settings{C: 10, Tol: 1e-4, Set: C3{}, Delayed: true, Workers: 1, Tuning: c.tune})
				recomputeByEntry = false
				if err != nil {
					t.Fatal(err)
				}
				if tr.HardIntroduced == 0 || tr.Margins == 0 {
					t.Fatalf("no hard constraint introduced or no margin computed (%d, %d): the test exercises nothing", tr.HardIntroduced, tr.Margins)
				}
				bits := make([]uint64, len(m.W))
				for i, v := range m.W {
					bits[i] = math.Float64bits(v)
				}
				p := tr.Iterations[len(tr.Iterations)-1].Primal
				got[k] = fmt.Sprintf("iterations %d, hard %d, margins %d, primal %x, w %x", tr.Iters, tr.HardIntroduced, tr.Margins, math.Float64bits(p), bits)
			}
			if got[0] != got[1] {
				t.Errorf("four-row pass: %s\nentry by entry: %s", got[0], got[1])
			}
		})
	}
}
