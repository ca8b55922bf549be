package qp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// TestActiveChol drives the updated factor through random entries and
// exits of the free set (many exits at once every tenth round) and checks
// every solve against a fresh dense solve of (K_SS + εD)·x = b in the
// factor's order. In the "dense" case every vector shares coordinates with
// the others (one block over planes and rows); in the "groups" case the
// rows are sparse over disjoint blocks of coordinates, as multi-label C4's
// are over label pairs, so the factor keeps one block per group and the
// planes in its border; in the "merge" case rows bridging two groups arrive
// later and their blocks must merge.
func TestActiveChol(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		groups, width, planes int
		bridges               int
	}{
		{"dense", 1, 25, 8, 0},
		{"groups", 6, 4, 5, 0}, // 6 blocks of 4 coordinates: rows dependent within a block
		{"merge", 6, 4, 5, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(tc.name))))
			dim := tc.groups * tc.width
			s, err := New(dim, 1)
			if err != nil {
				t.Fatal(err)
			}
			var vs [][]float64
			addRow := func(lo, hi int) {
				g := make([]float64, dim)
				var idx []int
				var val []float64
				for i := lo; i < hi; i++ {
					g[i] = rng.NormFloat64()
					idx, val = append(idx, i), append(val, g[i])
				}
				s.AddRowSparse(idx, val)
				vs = append(vs, g)
			}
			for j := range tc.planes + 32 {
				if j < tc.planes {
					a := make([]float64, dim)
					for i := range a {
						a[i] = rng.NormFloat64()
					}
					s.AddPlane(a, 1)
					vs = append(vs, a)
					continue
				}
				gr := rng.IntN(tc.groups)
				addRow(gr*tc.width, (gr+1)*tc.width)
			}
			const eps = 1e-3
			c := newActiveChol(s, eps)
			in := make([]bool, len(vs))
			merged := false
			for round := 0; round < 300; round++ {
				if round == 150 && tc.bridges > 0 {
					// Rows across two neighbouring groups: their blocks merge
					// (the vectors stay in S and move to the merged block).
					before := len(c.blocks)
					for k := range tc.bridges {
						addRow(k*tc.width+tc.width/2, (k+1)*tc.width+tc.width/2)
						in = append(in, true)
					}
					if !c.sync(in) {
						t.Fatalf("round %d: sync failed with ε = %g", round, eps)
					}
					merged = len(c.blocks) < before
				}
				if round == 200 {
					// Vectors leave the QP (a plane and every fifth row): the
					// factor follows the renumbering, and the blocks' border
					// parts must not be reused for the renumbered planes.
					s.chol = c
					drop := make([]bool, len(in))
					drop[0] = true
					for p := tc.planes; p < len(drop); p += 5 {
						drop[p] = true
					}
					s.compact(drop)
					var in2 []bool
					var vs2 [][]float64
					for p := range drop {
						if !drop[p] {
							in2, vs2 = append(in2, in[p]), append(vs2, vs[p])
						}
					}
					in, vs = in2, vs2
				}
				for k := 0; k < 1+rng.IntN(4); k++ {
					p := rng.IntN(len(in))
					in[p] = !in[p]
				}
				if round%10 == 9 { // many leave at once, as after a path step
					for p := range in {
						in[p] = in[p] && rng.IntN(2) == 0
					}
				}
				if !c.sync(in) {
					t.Fatalf("round %d: sync failed with ε = %g", round, eps)
				}
				if want := tc.groups > 1 && c.spansGroups(in); want && !c.blocked {
					t.Fatalf("round %d: rows span groups but the factor is not blocked", round)
				}
				checkActiveChol(t, c, in, vs, eps, rng, round)
			}
			if tc.groups > 1 && !c.blocked {
				t.Fatal("the factor never split by groups")
			}
			if tc.bridges > 0 && !merged {
				t.Fatal("the bridging rows merged no blocks")
			}
		})
	}
}

func checkActiveChol(t *testing.T, c *activeChol, in []bool, vs [][]float64, eps float64, rng *rand.Rand, round int) {
	t.Helper()
	n := c.n()
	pos := make([]int, len(in))
	for p := range pos {
		pos[p] = -1
	}
	for a, p := range c.ord {
		if pos[p] >= 0 {
			t.Fatalf("round %d: vector %d at positions %d and %d", round, p, pos[p], a)
		}
		pos[p] = a
	}
	for p := range in {
		if in[p] != (pos[p] >= 0) {
			t.Fatalf("round %d: vector %d: in S %v, position %d", round, p, in[p], pos[p])
		}
	}
	if c.blocked { // blocks hold rows of one group each; planes are last
		for bi, b := range c.blocks {
			for _, p := range b.ord {
				if c.s.isPlane[p] || c.s.group(p) != c.keys[bi] {
					t.Fatalf("round %d: vector %d (plane %v, group %d) in block %d of group %d", round, p, c.s.isPlane[p], c.s.group(p), bi, c.keys[bi])
				}
			}
		}
		for _, p := range c.ord[c.nBlocks():] {
			if !c.s.isPlane[p] {
				t.Fatalf("round %d: row %d in the border", round, p)
			}
		}
	}
	if n == 0 {
		return
	}
	gram := func(p, q int) float64 { return floats.Dot(vs[p], vs[q]) }
	a := mat.NewDense(n, n, nil)
	for i, p := range c.ord {
		for j, q := range c.ord {
			a.Set(i, j, gram(p, q))
		}
		a.Set(i, i, a.At(i, i)*(1+eps)) // the proximal term is relative: ε·K_pp
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	var want mat.VecDense
	if err := want.SolveVec(a, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, n)
	c.solve(got, b)
	for i := range got {
		if d := math.Abs(got[i] - want.AtVec(i)); d > 1e-8*(1+math.Abs(want.AtVec(i))) {
			t.Fatalf("round %d (n = %d): x[%d] = %.12g, dense solve %.12g", round, n, i, got[i], want.AtVec(i))
		}
	}
	// The K_SS kept for the residuals: y = K_SS·x.
	y := make([]float64, n)
	c.mulK(y, got)
	for i, p := range c.ord {
		want := 0.0
		for j, q := range c.ord {
			want += gram(p, q) * got[j]
		}
		if d := math.Abs(y[i] - want); d > 1e-10*(1+math.Abs(want)) {
			t.Fatalf("round %d (n = %d): (K·x)[%d] = %.12g, dense %.12g", round, n, i, y[i], want)
		}
	}
}

// TestRemoveActiveRows keeps one solver through many solves in which rows
// enter, and active rows and planes leave (so the factor the polish keeps
// between solves must follow the renumbering), and compares each optimum
// with a cold solve of the same constraints.
func TestRemoveActiveRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for rep := range 3 {
		pr := randomProblem(rng, 30, 12, 60, 0, 0) // no bounds: the factor's case
		warm, _ := New(pr.dim, pr.c)
		var planes, rows []int // indices into pr of what warm holds, in its order
		nextRow := 0
		for step := 0; step < 40; step++ {
			if len(planes) < len(pr.planes) && (step%3 == 0 || len(planes) == 0) {
				warm.AddPlane(pr.planes[len(planes)], pr.b[len(planes)])
				planes = append(planes, len(planes))
			}
			for k := 0; k < 4 && nextRow < len(pr.rows); k++ {
				warm.AddRow(pr.rows[nextRow])
				rows = append(rows, nextRow)
				nextRow++
			}
			sol, err := warm.Solve(tight)
			if err != nil {
				t.Fatal(err)
			}
			cold := &problem{dim: pr.dim, c: pr.c, state: pr.state}
			for _, j := range planes {
				cold.planes, cold.b = append(cold.planes, pr.planes[j]), append(cold.b, pr.b[j])
			}
			for _, k := range rows {
				cold.rows = append(cold.rows, pr.rows[k])
			}
			want, err := cold.solver().Solve(tight)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sol.Primal-want.Primal) > 1e-8*(1+want.Primal) {
				t.Fatalf("rep %d step %d: warm primal %.12g, cold %.12g", rep, step, sol.Primal, want.Primal)
			}
			checkKKT(t, cold, sol, 1e-6)
			// Drop the first active row (moving the optimum) and one
			// inactive plane if any.
			for k, mu := range sol.Mu {
				if mu > 0 {
					warm.RemoveRows([]int{k})
					rows = append(rows[:k], rows[k+1:]...)
					break
				}
			}
			for j, a := range sol.Alpha {
				if a == 0 && len(planes) > 1 {
					warm.RemovePlanes([]int{j})
					planes = append(planes[:j], planes[j+1:]...)
					break
				}
			}
		}
	}
}

// TestBorderKept drives a blocked factor through random sequences of
// planes and rows entering the QP, vectors entering and leaving the free
// set, and compactions (some two in a row, with no sync between them, and
// some dropping planes of the border), and checks after every sync that
// each block's part of the border, kept from the syncs before, is to the
// last bit the part a fresh border forms from the same block factor (K_PR
// gathered, Z by a full forward substitution, ZᵀZ by Syrk: the
// formation the factor used before it kept parts), that the Schur
// complement's factor is the one formed from them, and that the factor
// solves against a fresh dense solve.
func TestBorderKept(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(41, seed))
		const groups, width, eps = 5, 4, 1e-3
		dim := groups * width
		s, err := New(dim, 1)
		if err != nil {
			t.Fatal(err)
		}
		var vs [][]float64
		var in []bool
		addPlane := func() {
			a := make([]float64, dim)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			s.AddPlane(a, 1)
			vs, in = append(vs, a), append(in, rng.IntN(2) == 0)
		}
		addRow := func() {
			gr := rng.IntN(groups)
			g := make([]float64, dim)
			var idx []int
			var val []float64
			for i := gr * width; i < (gr+1)*width; i++ {
				if i == gr*width || rng.IntN(4) > 0 { // never empty
					g[i] = rng.NormFloat64()
					idx, val = append(idx, i), append(val, g[i])
				}
			}
			s.AddRowSparse(idx, val)
			vs, in = append(vs, g), append(in, rng.IntN(2) == 0)
		}
		for range 4 {
			addPlane()
		}
		for range 12 {
			addRow()
		}
		c := newActiveChol(s, eps)
		s.chol = c
		compactions, twice, planesDropped := 0, 0, 0
		for round := range 400 {
			switch r := rng.IntN(20); {
			case r < 2:
				addPlane()
			case r < 5:
				addRow()
			case r == 5 || r == 6:
				// Compactions, two in a row one time in three.
				for k := range 1 + rng.IntN(3)/2 {
					drop := make([]bool, len(vs))
					for p := range drop {
						drop[p] = rng.IntN(8) == 0 && (!s.isPlane[p] || len(s.planes) > 2)
						if drop[p] && s.isPlane[p] && in[p] {
							planesDropped++
						}
					}
					s.compact(drop)
					var vs2 [][]float64
					var in2 []bool
					for p := range drop {
						if !drop[p] {
							vs2, in2 = append(vs2, vs[p]), append(in2, in[p])
						}
					}
					vs, in = vs2, in2
					compactions++
					if k == 1 {
						twice++
					}
				}
			}
			for range 1 + rng.IntN(3) {
				p := rng.IntN(len(in))
				in[p] = !in[p]
			}
			if !c.sync(in) {
				t.Fatalf("seed %d round %d: sync failed", seed, round)
			}
			checkBorderFresh(t, c, eps, round)
			checkActiveChol(t, c, in, vs, eps, rng, round)
		}
		if !c.blocked || compactions == 0 || twice == 0 || planesDropped == 0 {
			t.Fatalf("seed %d: blocked %v, %d compactions (%d twice in a row), %d border planes dropped: the test misses a case",
				seed, c.blocked, compactions, twice, planesDropped)
		}
	}
}

// checkBorderFresh compares the factor's border, bit by bit, with the one
// formed afresh from its blocks' factors.
func checkBorderFresh(t *testing.T, c *activeChol, eps float64, round int) {
	t.Helper()
	border := c.ord[c.nBlocks():]
	m := len(border)
	if m == 0 {
		return
	}
	g := c.s.gram
	lP := make([]float64, m*m)
	for j, p := range border {
		for k, q := range border {
			lP[j*m+k] = g[p][q]
		}
		lP[j*m+j] += proxEps(eps, g[p][p])
	}
	for bi, b := range c.blocks {
		n := b.n()
		kPR, zT, zz := make([]float64, m*n), make([]float64, m*n), make([]float64, m*m)
		for j, q := range border {
			for a, p := range b.ord {
				kPR[j*n+a] = g[q][p]
			}
			b.forward(zT[j*n:(j+1)*n], kPR[j*n:(j+1)*n])
		}
		blas64.Syrk(blas.NoTrans, 1, blas64.General{Rows: m, Cols: n, Stride: n, Data: zT},
			0, blas64.Symmetric{Uplo: blas.Lower, N: m, Stride: m, Data: zz})
		d := &b.bd
		if !slices.Equal(d.border, border) {
			t.Fatalf("round %d block %d: border part for planes %v, the border is %v", round, bi, d.border, border)
		}
		for _, x := range []struct {
			name      string
			got, want []float64
		}{{"K_PR", d.kPR, kPR}, {"Zᵀ", d.zT, zT}, {"ZᵀZ", d.zz, zz}} {
			for i := range x.want {
				if math.Float64bits(x.got[i]) != math.Float64bits(x.want[i]) {
					t.Fatalf("round %d block %d (n = %d, m = %d): kept %s[%d] = %v, fresh %v", round, bi, n, m, x.name, i, x.got[i], x.want[i])
				}
			}
		}
		floats.Sub(lP, zz)
	}
	lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: m, Stride: m, Data: lP})
	for i := range lP {
		if math.Float64bits(c.lP[i]) != math.Float64bits(lP[i]) {
			t.Fatalf("round %d: L_P[%d] = %v, fresh %v", round, i, c.lP[i], lP[i])
		}
	}
}

// TestCompactGram checks the Gram matrix after compactions, one or two in
// a row, dropping planes and rows singly, in runs and all but a few,
// against the entries of the matrix before (entry (a, b) must be old
// entry (keep[a], keep[b])), dense and lean (only the planes' rows).
func TestCompactGram(t *testing.T) {
	for _, lean := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(17, 3))
		const dim = 12
		s, _ := New(dim, 1)
		if lean {
			s.leanAt = 0
		}
		add := func() {
			a := make([]float64, dim)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			if rng.IntN(3) == 0 {
				s.AddPlane(a, 1)
			} else {
				s.AddRow(a)
			}
		}
		for round := range 60 {
			for range 1 + rng.IntN(8) {
				add()
			}
			for range 1 + rng.IntN(2) { // two compactions in a row at times
				old := make([][]float64, len(s.gram))
				for p, r := range s.gram {
					old[p] = slices.Clone(r)
				}
				n := len(s.vecs)
				drop := make([]bool, n)
				switch round % 3 {
				case 0: // single vectors
					for p := range drop {
						drop[p] = rng.IntN(6) == 0
					}
				case 1: // runs
					for p := rng.IntN(n); p < n; p += 1 + rng.IntN(5) {
						for k := p; k < min(n, p+1+rng.IntN(4)); k++ {
							drop[k] = true
						}
					}
				case 2: // all but a few
					for p := range drop {
						drop[p] = rng.IntN(5) > 0
					}
				}
				var keep []int
				for p := range drop {
					if !drop[p] {
						keep = append(keep, p)
					}
				}
				s.compact(drop)
				if len(s.gram) != len(keep) {
					t.Fatalf("round %d: %d Gram rows, %d kept", round, len(s.gram), len(keep))
				}
				for a, p := range keep {
					if (s.gram[a] == nil) != (old[p] == nil) {
						t.Fatalf("round %d: row %d (was %d) nil %v, was nil %v", round, a, p, s.gram[a] == nil, old[p] == nil)
					}
					if s.gram[a] == nil {
						continue
					}
					if len(s.gram[a]) != len(keep) {
						t.Fatalf("round %d: row %d has %d entries, %d kept", round, a, len(s.gram[a]), len(keep))
					}
					for b, q := range keep {
						if math.Float64bits(s.gram[a][b]) != math.Float64bits(old[p][q]) {
							t.Fatalf("round %d: K[%d][%d] = %v, was K[%d][%d] = %v", round, a, b, s.gram[a][b], p, q, old[p][q])
						}
					}
				}
			}
		}
	}
}
