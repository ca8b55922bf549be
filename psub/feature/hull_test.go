package feature

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

func TestHullKnownCases(t *testing.T) {
	square := [][]float64{{1, 1}, {3, 1}, {3, 2}, {1, 2}}
	segment3 := [][]float64{{1, 0, 1}, {2, 0, 2}} // collinear through the origin: rank 1
	flat := [][]float64{{1, 0, 0}, {0, 1, 0}, {1, 1, 0}}
	cases := []struct {
		name       string
		points     [][]float64
		q          []float64
		hull, cone bool
	}{
		{"vertex", square, []float64{3, 2}, true, true},
		{"centre", square, []float64{2, 1.5}, true, true},
		{"edge midpoint", square, []float64{2, 1}, true, true},
		{"far point", square, []float64{100, -50}, false, false},
		{"just outside an edge", square, []float64{2, 0.999}, false, true},
		{"scaled vertex (cone only)", square, []float64{6, 4}, false, true},
		{"shrunk vertex (cone only)", square, []float64{0.5, 0.5}, false, true},
		{"origin", square, []float64{0, 0}, false, true},
		{"opposite direction", square, []float64{-1, -1}, false, false},
		{"between the cone's rays", square, []float64{0.5, 0.9}, false, true},
		{"outside the cone's rays", square, []float64{1, 2.1}, false, false},
		{"single point itself", [][]float64{{2, 5}}, []float64{2, 5}, true, true},
		{"single point scaled", [][]float64{{2, 5}}, []float64{4, 10}, false, true},
		{"single point off ray", [][]float64{{2, 5}}, []float64{2, 5.01}, false, false},
		{"on collinear segment", segment3, []float64{1.5, 0, 1.5}, true, true},
		{"beyond collinear segment", segment3, []float64{3, 0, 3}, false, true},
		{"off the line", segment3, []float64{1.5, 0.1, 1.5}, false, false},
		{"in a flat triangle", flat, []float64{0.6, 0.6, 0}, true, true},
		{"above a flat triangle", flat, []float64{0.6, 0.6, 0.01}, false, false},
		{"duplicates", [][]float64{{1, 0}, {1, 0}, {0, 1}, {0, 1}}, []float64{0.5, 0.5}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := NewHull(c.points)
			if err != nil {
				t.Fatal(err)
			}
			hull, err := h.InHull(c.q)
			if err != nil {
				t.Fatal(err)
			}
			cone, err := h.InCone(c.q)
			if err != nil {
				t.Fatal(err)
			}
			if hull != c.hull || cone != c.cone {
				hr, _ := h.HullResidual(c.q)
				cr, _ := h.ConeResidual(c.q)
				t.Errorf("InHull %v (residual %.3g), InCone %v (residual %.3g); want %v, %v", hull, hr, cone, cr, c.hull, c.cone)
			}
		})
	}
}

func TestHullErrors(t *testing.T) {
	if _, err := NewHull(nil); err == nil {
		t.Error("no points: no error")
	}
	if _, err := NewHull([][]float64{{}}); err == nil {
		t.Error("dimension 0: no error")
	}
	if _, err := NewHull([][]float64{{1, 2}, {1}}); err == nil {
		t.Error("ragged points: no error")
	}
	if _, err := NewHull([][]float64{{1, math.NaN()}}); err == nil {
		t.Error("NaN point: no error")
	}
	h, _ := NewHull([][]float64{{1, 2}})
	if _, err := h.InHull([]float64{1}); err == nil {
		t.Error("short query: no error")
	}
	if _, err := h.InCone([]float64{1, math.Inf(1)}); err == nil {
		t.Error("infinite query: no error")
	}
}

// convexHull2D is Andrew's monotone chain: the hull's vertices in
// counter-clockwise order, collinear points dropped.
func convexHull2D(pts [][]float64) [][]float64 {
	p := append([][]float64(nil), pts...)
	sort.Slice(p, func(i, j int) bool {
		if p[i][0] != p[j][0] {
			return p[i][0] < p[j][0]
		}
		return p[i][1] < p[j][1]
	})
	cross := func(o, a, b []float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	var hull [][]float64
	for _, x := range p { // lower
		for len(hull) >= 2 && cross(hull[len(hull)-2], hull[len(hull)-1], x) <= 0 {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, x)
	}
	lower := len(hull) + 1
	for i := len(p) - 2; i >= 0; i-- { // upper
		for len(hull) >= lower && cross(hull[len(hull)-2], hull[len(hull)-1], p[i]) <= 0 {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p[i])
	}
	return hull[:len(hull)-1]
}

// polygonMargin is the smallest signed distance from q to the lines of the
// edges of a counter-clockwise convex polygon (≥ 3 vertices): positive
// inside, negative outside.
func polygonMargin(poly [][]float64, q []float64) float64 {
	m := math.Inf(1)
	for i := range poly {
		a, b := poly[i], poly[(i+1)%len(poly)]
		ex, ey := b[0]-a[0], b[1]-a[1]
		d := (ex*(q[1]-a[1]) - ey*(q[0]-a[0])) / math.Hypot(ex, ey)
		m = math.Min(m, d)
	}
	return m
}

// coneMargin2D decides q ∈ cone(P) in the plane by Carathéodory: q is a
// non-negative combination of at most two points. It returns the best, over
// single points and pairs, of the smallest coefficient (scaled by the
// point's norm over ‖q‖, so ≥ 0 means inside); the caller skips values
// near 0, where round-off decides.
func coneMargin2D(pts [][]float64, q []float64) float64 {
	qn := math.Hypot(q[0], q[1])
	best := math.Inf(-1)
	for i, a := range pts {
		for j := i + 1; j < len(pts); j++ {
			b := pts[j]
			det := a[0]*b[1] - a[1]*b[0]
			if math.Abs(det) < 1e-12 {
				continue
			}
			alpha := (q[0]*b[1] - q[1]*b[0]) / det
			beta := (a[0]*q[1] - a[1]*q[0]) / det
			v := math.Min(alpha*math.Hypot(a[0], a[1]), beta*math.Hypot(b[0], b[1])) / qn
			best = math.Max(best, v)
		}
	}
	return best
}

// randomPoints draws n points around centre c with spread s.
func randomPoints(rng *rand.Rand, n, d int, c, s float64) [][]float64 {
	p := make([][]float64, n)
	for i := range p {
		p[i] = make([]float64, d)
		for k := range p[i] {
			p[i][k] = c + s*rng.NormFloat64()
		}
	}
	return p
}

// queries mixes points near the data, convex combinations (inside the
// hull) and rescaled combinations (inside the cone, mostly outside the hull).
func queries(rng *rand.Rand, pts [][]float64, n int) [][]float64 {
	d := len(pts[0])
	var qs [][]float64
	for i := range n {
		q := make([]float64, d)
		switch i % 3 {
		case 0:
			for k := range q {
				q[k] = pts[rng.IntN(len(pts))][k] + 0.7*rng.NormFloat64()
			}
		default:
			var sum float64
			for _, p := range pts {
				w := rng.ExpFloat64()
				sum += w
				for k := range q {
					q[k] += w * p[k]
				}
			}
			f := 1 / sum
			if i%3 == 2 {
				f *= 0.2 + 3*rng.Float64()
			}
			for k := range q {
				q[k] *= f
			}
		}
		qs = append(qs, q)
	}
	return qs
}

func TestHull2DAgainstMonotoneChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked, inside, coneIn, coneOut := 0, 0, 0, 0
	for trial := range 200 {
		n := 3 + rng.IntN(30)
		centre := []float64{0, 2, 5}[trial%3] // around the origin the cone is often the plane
		pts := randomPoints(rng, n, 2, centre, 1)
		poly := convexHull2D(pts)
		if len(poly) < 3 {
			continue
		}
		h, err := NewHull(pts)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range queries(rng, pts, 30) {
			if m := polygonMargin(poly, q); math.Abs(m) > 1e-7 {
				got, err := h.InHull(q)
				if err != nil {
					t.Fatal(err)
				}
				if got != (m > 0) {
					t.Fatalf("trial %d: q %v: InHull %v, monotone chain margin %.3g", trial, q, got, m)
				}
				checked++
				if m > 0 {
					inside++
				}
			}
			if m := coneMargin2D(pts, q); math.Abs(m) > 1e-7 {
				got, err := h.InCone(q)
				if err != nil {
					t.Fatal(err)
				}
				if got != (m > 0) {
					t.Fatalf("trial %d: q %v: InCone %v, pairwise brute-force margin %.3g", trial, q, got, m)
				}
				if m > 0 {
					coneIn++
				} else {
					coneOut++
				}
			}
		}
	}
	// The oracle must have exercised both answers of both questions.
	if checked < 3000 || inside < 500 || checked-inside < 500 || coneIn < 500 || coneOut < 300 {
		t.Fatalf("too few decided cases: hull %d (%d inside), cone %d inside, %d outside", checked, inside, coneIn, coneOut)
	}
}

// lpFeasible decides {λ ≥ 0 : Aλ = b} with gonum's simplex; ok is false
// when the LP solver fails for another reason than infeasibility.
func lpFeasible(A [][]float64, b []float64) (feasible, ok bool) {
	m, n := len(A), len(A[0])
	dense := mat.NewDense(m, n, nil)
	for i := range A {
		dense.SetRow(i, A[i])
	}
	_, _, err := lp.Simplex(make([]float64, n), dense, b, 1e-10, nil)
	switch {
	case err == nil:
		return true, true
	case errors.Is(err, lp.ErrInfeasible):
		return false, true
	}
	return false, false
}

// lpRows returns the equality rows of cone membership (P λ = q) and of
// hull membership (the same and 1ᵀλ = 1) for lpFeasible.
func lpRows(pts [][]float64) (cone, hull [][]float64) {
	n, d := len(pts), len(pts[0])
	cone = make([][]float64, d)
	for k := range d {
		cone[k] = make([]float64, n)
		for j := range n {
			cone[k][j] = pts[j][k]
		}
	}
	ones := make([]float64, n)
	for j := range ones {
		ones[j] = 1
	}
	return cone, append(slices.Clone(cone), ones)
}

// memberships is InHull and InCone of q, failing the test on an error.
func memberships(t *testing.T, h *Hull, q []float64) (inHull, inCone bool) {
	t.Helper()
	inHull, err := h.InHull(q)
	if err != nil {
		t.Fatal(err)
	}
	if inCone, err = h.InCone(q); err != nil {
		t.Fatal(err)
	}
	return inHull, inCone
}

func TestHullAgainstSimplexLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	agree, skipped, hin, cin := 0, 0, 0, 0
	for trial := range 60 {
		d := 3 + trial%4
		n := d + 1 + rng.IntN(25)
		pts := randomPoints(rng, n, d, 1.5, 1)
		h, err := NewHull(pts)
		if err != nil {
			t.Fatal(err)
		}
		coneRows, hullRows := lpRows(pts)
		for _, q := range queries(rng, pts, 12) {
			wantC, ok1 := lpFeasible(coneRows, q)
			wantH, ok2 := lpFeasible(hullRows, append(append([]float64(nil), q...), 1))
			if !ok1 || !ok2 {
				skipped++
				continue
			}
			gotH, gotC := memberships(t, h, q)
			if gotH != wantH || gotC != wantC {
				hr, _ := h.HullResidual(q)
				cr, _ := h.ConeResidual(q)
				t.Fatalf("trial %d (d=%d, n=%d): hull %v (LP %v, residual %.3g), cone %v (LP %v, residual %.3g)",
					trial, d, n, gotH, wantH, hr, gotC, wantC, cr)
			}
			agree++
			if wantH {
				hin++
			}
			if wantC {
				cin++
			}
		}
	}
	if agree < 500 || skipped > agree/10 || hin < 100 || agree-hin < 100 || cin-hin < 50 {
		t.Fatalf("weak test: %d agreed (%d in hull, %d in cone), %d LP failures", agree, hin, cin, skipped)
	}
}

// Pricing over a working set refilled by full scans must decide as an LP
// does on sets far larger than the working set, whatever its size: one
// candidate at a time (a refill every outer iteration), a few, the default.
func TestHullWorkingSetAgainstSimplexLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	agree, hin, cin := 0, 0, 0
	for trial := range 12 {
		d := 3 + trial%4
		n := 150 + rng.IntN(250)
		pts := randomPoints(rng, n, d, 1.5, 1)
		coneRows, hullRows := lpRows(pts)
		// Far queries: outside the hull, many inside the cone.
		qs := queries(rng, pts, 9)
		for range 3 {
			q := make([]float64, d)
			for k := range q {
				q[k] = 4 * rng.NormFloat64()
			}
			qs = append(qs, q)
		}
		for _, q := range qs {
			wantC, ok1 := lpFeasible(coneRows, q)
			wantH, ok2 := lpFeasible(hullRows, append(append([]float64(nil), q...), 1))
			if !ok1 || !ok2 {
				continue
			}
			for _, work := range []int{1, 3, 0} {
				h, err := NewHull(pts)
				if err != nil {
					t.Fatal(err)
				}
				h.work = work
				gotH, gotC := memberships(t, h, q)
				if gotH != wantH || gotC != wantC {
					t.Fatalf("trial %d (d=%d, n=%d, working set %d): hull %v (LP %v), cone %v (LP %v)",
						trial, d, n, work, gotH, wantH, gotC, wantC)
				}
			}
			agree++
			if wantH {
				hin++
			}
			if wantC {
				cin++
			}
		}
	}
	if agree < 100 || hin < 30 || agree-cin < 10 || cin-hin < 10 {
		t.Fatalf("weak test: %d agreed (%d in hull, %d in cone)", agree, hin, cin)
	}
}

// Points built as convex combinations, some weights 1e-5 of the others,
// are inside the hull: Lawson–Hanson must not stop at a small positive
// residual whose duals all fall below a fixed round-off bound (it did on
// query 190 of this stream, at 1.7 times the tolerance, and on a test edge
// of notebook 06). Every eighth query and that one are solved.
func TestHullInsideNearMinimum(t *testing.T) {
	if testing.Short() {
		t.Skip("3 000 points in 125 dimensions")
	}
	const n, d = 3000, 125
	rng := rand.New(rand.NewPCG(21, n))
	pts := cowLikePairwise(rng, n)
	h, err := NewHull(pts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		k := 2 + rng.IntN(40)
		q := make([]float64, d)
		w := make([]float64, k)
		idx := make([]int, k)
		var sum float64
		for j := range w {
			w[j] = rng.ExpFloat64()
			if rng.IntN(3) == 0 {
				w[j] *= 1e-5
			}
			sum += w[j]
			idx[j] = rng.IntN(n)
		}
		for j := range w {
			for c := range q {
				q[c] += w[j] / sum * pts[idx[j]][c]
			}
		}
		if i%8 != 0 && i != 190 {
			continue
		}
		r, err := h.HullResidual(q)
		if err != nil {
			t.Fatal(err)
		}
		if r > h.tol()*h.scaleWith(q) {
			t.Fatalf("query %d, a convex combination of %d points: hull residual %.3g, tolerance %.3g", i, k, r, h.tol()*h.scaleWith(q))
		}
	}
}

// The NNLS solution must satisfy the KKT conditions of min ‖Aλ−b‖, λ ≥ 0:
// λ ≥ 0, g = Aᵀ(b − Aλ) ≤ 0 (up to round-off) and g_j = 0 where λ_j > 0;
// and the residual it reports must be ‖Aλ − b‖.
func TestNNLSOptimality(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		d := 2 + trial%8
		n := 1 + rng.IntN(60)
		pts := randomPoints(rng, n, d, float64(trial%3), 1)
		h, _ := NewHull(pts)
		for qi, q := range queries(rng, pts, 6) {
			for _, affine := range []bool{false, true} {
				x, res, err := h.nnls(q, affine)
				if err != nil {
					t.Fatal(err)
				}
				s := h.scaleWith(q)
				r := append([]float64(nil), q...)
				var sum float64
				for j, p := range pts {
					if x[j] < 0 {
						t.Fatalf("trial %d query %d: λ_%d = %g < 0", trial, qi, j, x[j])
					}
					for k := range r {
						r[k] -= x[j] * p[k]
					}
					sum += x[j]
				}
				rr := norm(r)
				if affine {
					rr = math.Hypot(rr, s*(1-sum))
				}
				if math.Abs(rr-res) > 1e-9*s {
					t.Fatalf("trial %d query %d: reported residual %g, recomputed %g", trial, qi, res, rr)
				}
				for j, p := range pts {
					g := dot(p, r)
					if affine {
						g += s * s * (1 - sum)
					}
					lim := 1e-8 * s * math.Max(s, 1)
					if g > lim || (x[j] > 0 && math.Abs(g) > lim) {
						t.Fatalf("trial %d query %d affine %v: gradient %g at λ_%d = %g", trial, qi, affine, g, j, x[j])
					}
				}
			}
		}
	}
}

func TestConeContainsHull(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 30 {
		d := 2 + trial%6
		pts := randomPoints(rng, 5+rng.IntN(40), d, 1, 1)
		h, _ := NewHull(pts)
		for _, q := range queries(rng, pts, 20) {
			hr, _ := h.HullResidual(q)
			cr, _ := h.ConeResidual(q)
			if cr > hr*(1+1e-9)+1e-12 {
				t.Fatalf("trial %d: cone residual %g above hull residual %g", trial, cr, hr)
			}
			in, _ := h.InHull(q)
			inC, _ := h.InCone(q)
			if in && !inC {
				t.Fatalf("trial %d: %v in the hull but not in the cone", trial, q)
			}
		}
	}
}

func TestHullScaleInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	pts := randomPoints(rng, 30, 4, 1, 1)
	qs := queries(rng, pts, 60)
	h1, _ := NewHull(pts)
	for _, f := range []float64{1e-6, 1e6} {
		sp := make([][]float64, len(pts))
		for i, p := range pts {
			sp[i] = scaled(p, f)
		}
		h2, _ := NewHull(sp)
		for _, q := range qs {
			a, _ := h1.InHull(q)
			b, _ := h2.InHull(scaled(q, f))
			c, _ := h1.InCone(q)
			e, _ := h2.InCone(scaled(q, f))
			if a != b || c != e {
				t.Fatalf("scale %g changes the answer for %v: hull %v→%v, cone %v→%v", f, q, a, b, c, e)
			}
		}
	}
}

func scaled(p []float64, f float64) []float64 {
	q := make([]float64, len(p))
	for i, v := range p {
		q[i] = f * v
	}
	return q
}

func TestCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	train := randomPoints(rng, 200, 3, 2, 1)
	held := randomPoints(rng, 300, 3, 2, 1)
	opt := CoverageOptions{Sizes: []int{4, 10, 30, 100, 200}, Queries: 120, Repeats: 3, Seed: 5, Workers: 2}
	got, err := Coverage(train, held, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range got {
		if p.OutsideCone > p.OutsideHull {
			t.Errorf("n=%d: outside cone %.3f > outside hull %.3f", p.N, p.OutsideCone, p.OutsideHull)
		}
		if i > 0 && (p.OutsideHull > got[i-1].OutsideHull || p.OutsideCone > got[i-1].OutsideCone) {
			t.Errorf("n=%d: coverage shrank with more points: %+v after %+v", p.N, p, got[i-1])
		}
	}
	if got[0].OutsideHull < 0.5 || got[len(got)-1].OutsideHull > 0.2 {
		t.Errorf("hull coverage does not grow as expected: %+v", got)
	}
	// Deterministic given the seed, whatever the number of workers.
	opt.Workers = 1
	again, err := Coverage(train, held, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != again[i] {
			t.Fatalf("not deterministic: %+v vs %+v", got[i], again[i])
		}
	}
	// One repeat with all queries equals direct counting on the prefix.
	one, err := Coverage(train, held, CoverageOptions{Sizes: []int{7, 50}, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	perm := rand.New(rand.NewPCG(9, 0)).Perm(len(train))
	for _, p := range one {
		pts := make([][]float64, p.N)
		for k := range pts {
			pts[k] = train[perm[k]]
		}
		h, _ := NewHull(pts)
		var oh, oc int
		for _, q := range held {
			if in, _ := h.InHull(q); !in {
				oh++
			}
			if in, _ := h.InCone(q); !in {
				oc++
			}
		}
		if p.OutsideHull != float64(oh)/float64(len(held)) || p.OutsideCone != float64(oc)/float64(len(held)) {
			t.Errorf("n=%d: Coverage %+v, direct count hull %d cone %d of %d", p.N, p, oh, oc, len(held))
		}
	}
}

func TestCoverageErrors(t *testing.T) {
	train := [][]float64{{1, 2}, {2, 1}, {1, 1}}
	cases := []struct {
		name string
		held [][]float64
		opt  CoverageOptions
	}{
		{"no sizes", train, CoverageOptions{}},
		{"too large", train, CoverageOptions{Sizes: []int{2, 4}}},
		{"descending", train, CoverageOptions{Sizes: []int{3, 2}}},
		{"zero size", train, CoverageOptions{Sizes: []int{0, 2}}},
		{"no held-out", nil, CoverageOptions{Sizes: []int{2}}},
		{"dimension", [][]float64{{1, 2, 3}}, CoverageOptions{Sizes: []int{2}}},
	}
	for _, c := range cases {
		if _, err := Coverage(train, c.held, c.opt); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// cowLikePairwise draws n pairwise features |h_k − h_l| of random sparse
// 125-bin colour histograms (each summing to 1), the shape of the cow
// experiment's φ_p.
func cowLikePairwise(rng *rand.Rand, n int) [][]float64 {
	hist := func() []float64 {
		h := make([]float64, 125)
		centre := rng.IntN(125)
		var s float64
		for range 8 {
			b := (centre + rng.IntN(9) - 4 + 125) % 125
			v := rng.ExpFloat64()
			h[b] += v
			s += v
		}
		for i := range h {
			h[i] /= s
		}
		return h
	}
	p := make([][]float64, n)
	for i := range p {
		a, b := hist(), hist()
		p[i] = make([]float64, 125)
		for k := range a {
			p[i][k] = math.Abs(a[k] - b[k])
		}
	}
	return p
}

func BenchmarkHull125(b *testing.B) {
	for _, n := range []int{200, 1000, 4000, 32000} {
		rng := rand.New(rand.NewPCG(13, uint64(n)))
		h, err := NewHull(cowLikePairwise(rng, n))
		if err != nil {
			b.Fatal(err)
		}
		qs := cowLikePairwise(rng, 64)
		b.Run(fmt.Sprintf("cone/n=%d", n), func(b *testing.B) {
			i := 0
			loopCPU(b, func() {
				if _, err := h.InCone(qs[i%len(qs)]); err != nil {
					b.Fatal(err)
				}
				i++
			})
		})
		b.Run(fmt.Sprintf("hull/n=%d", n), func(b *testing.B) {
			i := 0
			loopCPU(b, func() {
				if _, err := h.InHull(qs[i%len(qs)]); err != nil {
					b.Fatal(err)
				}
				i++
			})
		})
	}
}

// largest must leave the k largest duals first, as a sort would, with
// ties and repeated values.
func TestLargest(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 300 {
		n := 1 + rng.IntN(200)
		v := make([]pricedColumn, n)
		for i := range v {
			w := rng.Float64()
			if trial%3 == 0 {
				w = float64(rng.IntN(4)) // many ties
			}
			v[i] = pricedColumn{i, w}
		}
		want := slices.Clone(v)
		slices.SortFunc(want, func(a, b pricedColumn) int { return cmp.Compare(b.w, a.w) })
		k := 1 + rng.IntN(n)
		got := largest(slices.Clone(v), k)
		if len(got) != k {
			t.Fatalf("trial %d: %d returned, want %d", trial, len(got), k)
		}
		ws := make([]float64, k)
		seen := map[int]bool{}
		for i, c := range got {
			ws[i] = c.w
			if seen[c.j] || v[c.j].w != c.w {
				t.Fatalf("trial %d: entry %v duplicated or altered", trial, c)
			}
			seen[c.j] = true
		}
		slices.Sort(ws)
		slices.Reverse(ws)
		for i := range ws {
			if ws[i] != want[i].w {
				t.Fatalf("trial %d (n=%d, k=%d): selected duals %v, want the %d largest", trial, n, k, ws, k)
			}
		}
	}
}
