package psub

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLaneRows checks recompute's margins from a dense P's non-zeros
// (laneRows) bit for bit against its dot products with the dense rows,
// the path it replaces: C3's four rows b for two labels (the specialised
// pass) and nine for three labels (the general one), edge features of
// several lengths (a multiple of 4, and 1–3 more, whose tail dot adds to
// its first partial sum), entries +0, −0 and of every sign, under
// Algorithm 2's bounds and the tight ones, along steps of w small and
// large. The bounds, anchors and margin counts must agree as well.
func TestLaneRows(t *testing.T) {
	for _, labels := range []int{2, 3} {
		for _, dp := range []int{74, 8, 5, 3, 1} {
			for _, tight := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(uint64(labels), uint64(dp)))
				var set []Instance
				for range 6 {
					in := randomInstance(rng, 12, 0, 3, dp, labels)
					for e := range in.Pairwise {
						p := in.Pairwise[e]
						for k := range p {
							switch rng.IntN(10) {
							case 0, 1, 2:
								p[k] = rng.NormFloat64()
							case 3:
								p[k] = math.Copysign(0, -1)
							default:
								p[k] = 0
							}
						}
					}
					set = append(set, in)
				}
				l := Layout{Labels: labels, UnaryDim: 3, PairwiseDim: dp}
				spec, err := buildSpec(C3{}, l, set)
				if err != nil {
					t.Fatal(err)
				}
				lanes := spec.pool
				if lanes.P == nil || lanes.lanes == nil {
					t.Fatalf("labels %d, dp %d: want a dense pool with lanes (dense %v, lanes %v)", labels, dp, lanes.P != nil, lanes.lanes != nil)
				}
				if want := labels * labels; len(lanes.B) != want {
					t.Fatalf("labels %d: %d rows b, want %d", labels, len(lanes.B), want)
				}
				spec2, _ := buildSpec(C3{}, l, set)
				dots := spec2.pool
				dots.lanes = nil
				lanes.tight, dots.tight = tight, tight
				w := randomW(rng, l.Dim())
				for round := range 40 {
					step := []float64{1e-4, 1e-2, 1, 0}[round%4]
					for i := range w {
						w[i] += step * rng.NormFloat64()
					}
					lanes.computeDelayed(w)
					dots.computeDelayed(w)
					if lanes.computed != dots.computed {
						t.Fatalf("labels %d dp %d tight %v round %d: %d margins computed, by dot products %d", labels, dp, tight, round, lanes.computed, dots.computed)
					}
					for idx := range lanes.lower {
						if math.Float64bits(lanes.lower[idx]) != math.Float64bits(dots.lower[idx]) {
							t.Fatalf("labels %d dp %d tight %v round %d: entry %d: %v, by dot products %v", labels, dp, tight, round, idx, lanes.lower[idx], dots.lower[idx])
						}
					}
					for idx := range lanes.ref {
						if math.Float64bits(lanes.ref[idx]) != math.Float64bits(dots.ref[idx]) || lanes.slot[idx] != dots.slot[idx] {
							t.Fatalf("labels %d dp %d round %d: anchor of entry %d differs", labels, dp, round, idx)
						}
					}
				}
			}
		}
	}
}

// BenchmarkC3Margins times recompute's margins of C3 on a horses-shaped
// dense pool (~20 000 edges of 74 features, 31 % non-zero, as notebook
// 03's 43 492 of fold 0; two labels: four rows b), every entry
// recomputed: by dot products with the dense rows and from the lanes of
// their non-zeros.
func BenchmarkC3Margins(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 5))
	const dp = 74
	var set []Instance
	for len(set) < 80 {
		in := randomInstance(rng, 250, 0, 3, dp, 2)
		for e := range in.Pairwise {
			for k := range in.Pairwise[e] {
				if rng.Float64() < 0.69 {
					in.Pairwise[e][k] = 0
				}
			}
		}
		set = append(set, in)
	}
	l := Layout{Labels: 2, UnaryDim: 3, PairwiseDim: dp}
	w := randomW(rng, l.Dim())
	for _, name := range []string{"dots", "lanes"} {
		b.Run(name, func(b *testing.B) {
			spec, err := buildSpec(C3{}, l, set)
			if err != nil {
				b.Fatal(err)
			}
			q := spec.pool
			if q.lanes == nil {
				b.Fatal("no lanes")
			}
			if name == "dots" {
				q.lanes = nil
			}
			W := q.wMatrix(w)
			for b.Loop() {
				for i := range q.lower {
					q.lower[i] = -1
				}
				q.recompute(W, nil, 0)
			}
			b.ReportMetric(float64(q.rows), "edges")
		})
	}
}
