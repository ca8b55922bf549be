package qp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestEntering checks the polish's choice of entering constraints
// (entering) against its definition, on random candidate lists over a
// solver whose rows fall into known groups (disjoint coordinate blocks),
// with planes and sign bounds among the candidates and ties in the
// violations. With g groups among the violated rows the chosen set must
// hold at most maxEnter rows of any group and at most
// T = maxEnter·max(1, ⌊g/enterGroups⌋) constraints in all, be as large as
// those caps allow, and be the most violated such set: a candidate left
// out is no more violated than every chosen one, or than every chosen one
// of its group when that group is full. Below 2·enterGroups groups the
// choice must be main's exactly (sort.Slice by violation, the first
// maxEnter), which keeps segmentation fits bit-identical.
func TestEntering(t *testing.T) {
	wide := 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 43))
		nGroups := 1 + rng.IntN(60)
		bdim := 3
		dim := nGroups*bdim + 4
		s, err := New(dim, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i := nGroups * bdim; i < dim; i++ {
			s.Bound(i, 1)
		}
		groupOf := map[int]int{} // general index → block, by construction
		for range 2 {
			a := make([]float64, dim)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			s.AddPlane(a, 1)
		}
		for range nGroups * (1 + rng.IntN(12)) {
			b := rng.IntN(nGroups)
			idx := []int{b * bdim, b*bdim + 1 + rng.IntN(bdim-1)}
			s.AddRowSparse(idx, []float64{1, rng.NormFloat64()})
			groupOf[len(s.vecs)-1] = b
		}
		w := s.newWork()
		// Candidates: a random subset of the rows, the planes and bounds,
		// violations from few values (ties) or continuous, and for a few
		// groups ten times larger (so that they fill up).
		var cand []viol
		vals := []float64{0.5, 1, 2}
		big := map[int]bool{}
		for range 1 + nGroups/10 {
			big[rng.IntN(nGroups)] = true
		}
		for p := range s.vecs {
			if rng.IntN(3) == 0 {
				continue
			}
			d := rng.ExpFloat64()
			if seed%2 == 0 {
				d = vals[rng.IntN(len(vals))]
			}
			if b, ok := groupOf[p]; ok && big[b] {
				d *= 10
			}
			cand = append(cand, viol{p, d})
		}
		for b := range len(w.bc) {
			if rng.IntN(2) == 0 {
				cand = append(cand, viol{-1 - b, rng.ExpFloat64()})
			}
		}
		rng.Shuffle(len(cand), func(i, j int) { cand[i], cand[j] = cand[j], cand[i] })
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			main := slices.Clone(cand)
			got := w.entering(slices.Clone(cand))
			// The definition.
			isRow := func(p int) bool { _, ok := groupOf[p]; return p >= 0 && ok }
			avail := map[int]int{} // violated rows per group
			others := 0
			for _, c := range cand {
				if isRow(c.p) {
					avail[groupOf[c.p]]++
				} else {
					others++
				}
			}
			g := len(avail)
			total := maxEnter * max(1, g/enterGroups)
			want := others
			for _, n := range avail {
				want += min(n, maxEnter)
			}
			want = min(want, total)
			if len(got) != want {
				t.Fatalf("%d groups: %d entered, want %d (cap %d)", g, len(got), want, total)
			}
			if !sort.SliceIsSorted(got, func(x, y int) bool { return got[x].d > got[y].d }) {
				t.Errorf("entering not in order of violation: %v", got)
			}
			chosen := map[int]bool{}
			per := map[int]int{}
			minAll := 0.0
			minOf := map[int]float64{}
			for i, c := range got {
				if chosen[c.p] {
					t.Fatalf("%d chosen twice", c.p)
				}
				chosen[c.p] = true
				if i == 0 || c.d < minAll {
					minAll = c.d
				}
				if isRow(c.p) {
					b := groupOf[c.p]
					per[b]++
					if m, ok := minOf[b]; !ok || c.d < m {
						minOf[b] = c.d
					}
				}
			}
			for b, n := range per {
				if n > maxEnter {
					t.Errorf("group %d: %d rows entered, at most %d", b, n, maxEnter)
				}
			}
			for _, c := range cand {
				if chosen[c.p] {
					continue
				}
				if isRow(c.p) && per[groupOf[c.p]] == maxEnter {
					if c.d > minOf[groupOf[c.p]] {
						t.Errorf("row %d (%.3g) left out of its full group for one of %.3g", c.p, c.d, minOf[groupOf[c.p]])
					}
				} else if c.d > minAll {
					t.Errorf("%d (%.3g) left out for one of %.3g", c.p, c.d, minAll)
				}
			}
			// Below 2·enterGroups groups: main's choice, to the bit.
			if g < 2*enterGroups {
				sort.Slice(main, func(x, y int) bool { return main[x].d > main[y].d })
				if len(main) > maxEnter {
					main = main[:maxEnter]
				}
				if !slices.Equal(got, main) {
					t.Errorf("%d groups: entering %v, main %v", g, got, main)
				}
			} else if len(got) > maxEnter {
				wide++
			}
		})
	}
	if wide == 0 {
		t.Error("no draw entered more than maxEnter")
	}
}
