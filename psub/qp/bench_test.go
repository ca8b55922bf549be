package qp

import (
	"math/rand/v2"
	"testing"
	"time"
)

// ssvmLike draws data shaped like the cows problem: dim = 2·fu unary +
// 4·fp pairwise weights; planes are correlated (a shared direction plus
// noise, as successive cutting planes are); rows are submodularity
// constraints (p, −p, −p, p) on the pairwise blocks with p ≥ 0.
type ssvmLike struct {
	rng    *rand.Rand
	fu, fp int
	base   []float64
	scale  float64 // planes are scale·(base + noise); small scale → large w, many active planes
}

func newSSVMLike(seed uint64, fu, fp int) *ssvmLike {
	g := &ssvmLike{rng: rand.New(rand.NewPCG(seed, 99)), fu: fu, fp: fp, scale: 1}
	g.base = make([]float64, 2*fu+4*fp)
	for i := range g.base {
		g.base[i] = g.rng.NormFloat64()
	}
	return g
}

func (g *ssvmLike) dim() int { return len(g.base) }

func (g *ssvmLike) plane() ([]float64, float64) {
	a := make([]float64, len(g.base))
	for i := range a {
		a[i] = g.scale * (g.base[i] + 0.5*g.rng.NormFloat64())
	}
	return a, 0.2 + 0.8*g.rng.Float64()
}

func (g *ssvmLike) row() []float64 {
	r := make([]float64, len(g.base))
	off := 2 * g.fu
	for k := 0; k < g.fp; k++ {
		p := g.rng.Float64()
		if g.rng.IntN(3) == 0 {
			p = 0
		}
		r[off+k] = p         // w_aa
		r[off+g.fp+k] = -p   // w_ab
		r[off+2*g.fp+k] = -p // w_ba
		r[off+3*g.fp+k] = p  // w_bb
	}
	return r
}

// BenchmarkSequence300 is the SSVM pattern: 300 Solve calls, each after
// adding one plane, with 5 hard rows added every 10th call (dim 750).
func BenchmarkSequence300(b *testing.B) {
	cpu0 := cpuSeconds()
	for b.Loop() {
		g := newSSVMLike(1, 125, 125)
		g.scale = 0.003
		s, _ := New(g.dim(), 100)
		sweeps := 0
		for it := range 300 {
			s.AddPlane(g.plane())
			if it%10 == 9 {
				for range 5 {
					s.AddRow(g.row())
				}
			}
			sol, err := s.Solve(Options{Tol: 1e-6})
			if err != nil {
				b.Fatal(err)
			}
			sweeps += sol.Iterations
		}
		b.ReportMetric(float64(sweeps), "sweeps")
		b.ReportMetric(float64(len(s.ActivePlanes(0))), "activeplanes")
		b.ReportMetric(float64(len(s.ActiveRows(0))), "activerows")
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkLarge is one cold solve with 1000 planes and 2000 rows, dim 750.
func BenchmarkLarge(b *testing.B) {
	g := newSSVMLike(2, 125, 125)
	g.scale = 0.003
	s, _ := New(g.dim(), 100)
	t0 := time.Now()
	for range 1000 {
		s.AddPlane(g.plane())
	}
	for range 2000 {
		s.AddRow(g.row())
	}
	build := time.Since(t0)
	cpu0 := cpuSeconds()
	for b.Loop() {
		for p := range s.lam { // cold start every time
			s.lam[p] = 0
		}
		sol, err := s.Solve(Options{Tol: 1e-6})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sol.Iterations), "sweeps")
		b.ReportMetric(float64(len(s.ActiveRows(0))), "activerows")
		b.ReportMetric(float64(len(s.ActivePlanes(0))), "activeplanes")
		b.ReportMetric(build.Seconds(), "build-s")
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkWideCold is one cold solve with 200 planes in dim 17000 (the
// multilabel yeast size), no rows.
func BenchmarkWideCold(b *testing.B) {
	g := newSSVMLike(3, 14*103, 91*40)
	g.scale = 0.003
	s, _ := New(g.dim(), 100)
	for range 200 {
		s.AddPlane(g.plane())
	}
	cpu0 := cpuSeconds()
	for b.Loop() {
		for p := range s.lam {
			s.lam[p] = 0
		}
		sol, err := s.Solve(Options{Tol: 1e-6})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sol.Iterations), "sweeps")
		b.ReportMetric(float64(len(s.ActivePlanes(0))), "activeplanes")
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkAddPlaneWide is the cost of adding one plane to 200 in dim 17000
// (the Gram row: 200 dot products).
func BenchmarkAddPlaneWide(b *testing.B) {
	g := newSSVMLike(4, 14*103, 91*40)
	s, _ := New(g.dim(), 1)
	for range 200 {
		s.AddPlane(g.plane())
	}
	a, off := g.plane()
	cpu0 := cpuSeconds()
	for b.Loop() {
		s.AddPlane(a, off)
		s.RemovePlanes([]int{s.Planes() - 1})
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkSequenceActiveRows is the C4 pattern where submodularity binds:
// the planes push the pairwise weights towards w_ab > w_aa, w_bb, so many
// rows become active (≈ 80 of 500 at the end). 200 warm solves, one plane
// each and 5 rows every other call (dim 750, C = 100).
func BenchmarkSequenceActiveRows(b *testing.B) {
	cpu0 := cpuSeconds()
	for b.Loop() {
		g := newSSVMLike(5, 125, 125)
		g.scale = 0.003
		off := 2 * g.fu
		for k := 0; k < g.fp; k++ {
			g.base[off+k] -= 2
			g.base[off+3*g.fp+k] -= 2
			g.base[off+g.fp+k] += 2
			g.base[off+2*g.fp+k] += 2
		}
		s, _ := New(g.dim(), 100)
		sweeps := 0
		for it := range 200 {
			s.AddPlane(g.plane())
			if it%2 == 0 {
				for range 5 {
					s.AddRow(g.row())
				}
			}
			sol, err := s.Solve(Options{})
			if err != nil {
				b.Fatal(err)
			}
			sweeps += sol.Iterations
		}
		b.ReportMetric(float64(sweeps), "sweeps")
		b.ReportMetric(float64(len(s.ActivePlanes(0))), "activeplanes")
		b.ReportMetric(float64(len(s.ActiveRows(0))), "activerows")
	}
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkConeFaces is constraint generation on yeast C4's shape: 91
// blocks of 40 weights (edges, R(x) of 40 values), one shared cone of 300
// non-negative features, 10 dense planes, 100 rows added per solve until
// none is violated (all solves of one generation, warm-started). It
// measures the polish on a free set of ~850 hard rows, above the dense
// LU's limit of 800: before the Cholesky path took such sets it did not
// finish in 300 s.
func BenchmarkConeFaces(b *testing.B) {
	sh := coneShape{blocks: 91, bdim: 40, feats: 300, planes: 10, addK: 100}
	var s *Solver
	var pr *problem
	var rounds int
	for b.Loop() {
		s, pr, _, rounds = coneFaces(b, sh, 3)
	}
	active := 0
	for _, p := range s.rows {
		if s.lam[p] > 0 {
			active++
		}
	}
	b.ReportMetric(float64(rounds), "solves")
	b.ReportMetric(float64(len(pr.rows)), "rows")
	b.ReportMetric(float64(active), "active")
}

// BenchmarkConeFacesLazy is BenchmarkConeFaces with the planes entering one
// at a time (as 1-slack cutting-plane iterations add them) and the rows of
// the submodularity constraints' shape, b ⊗ f with f of 10 values in blocks
// of 40: after each new plane hundreds of active rows leave the free set at
// once, the case that stalled yeast C4 before the polish's path step.
func BenchmarkConeFacesLazy(b *testing.B) {
	sh := coneShape{blocks: 50, bdim: 40, feats: 300, planes: 10, addK: 100, span: 10, lazyPlanes: true}
	var s *Solver
	var pr *problem
	var rounds int
	for b.Loop() {
		s, pr, _, rounds = coneFaces(b, sh, 2)
	}
	b.ReportMetric(float64(rounds), "solves")
	b.ReportMetric(float64(len(pr.rows)), "rows")
	b.ReportMetric(float64(s.multiDrops), "multi-drops")
	b.ReportMetric(float64(s.gaveUp), "gave-up")
}

// BenchmarkManyRows is the shape of multi-label C4 (yeast: 91 edges of 4
// blocks of 40 pairwise weights, dim 14 760 with the unary part): 40 warm
// solves, one dense plane and 100 sparse rows (160 non-zeros, one edge
// each) per call, 4 000 rows at the end, at the learner's QP tolerance
// for the protocol (1e-4). dense keeps the full Gram matrix, lean goes
// lean past 2048 rows (the default); gram-MB is the Gram storage at the
// end (the capacity of the stored rows).
func BenchmarkManyRows(b *testing.B) {
	for _, tc := range []struct {
		name string
		at   int
	}{{"dense", 1 << 30}, {"lean", leanRows}} {
		b.Run(tc.name, func(b *testing.B) {
			defer setLeanRows(tc.at)()
			cpu0 := cpuSeconds()
			var s *Solver
			sweeps := 0
			for b.Loop() {
				g := &multiLabelLike{rng: rand.New(rand.NewPCG(3, 3)), unary: 200, groups: 91, f: 40, scale: 0.01}
				s, _ = New(g.dim(), 10)
				sweeps = 0
				for range 40 {
					s.AddPlane(g.plane())
					for range 100 {
						s.AddRowSparse(g.row())
					}
					sol, err := s.Solve(Options{Tol: 1e-4})
					if err != nil {
						b.Fatal(err)
					}
					sweeps += sol.Iterations
				}
			}
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(sweeps), "sweeps")
			b.ReportMetric(float64(len(s.ActiveRows(0))), "activerows")
			b.ReportMetric(float64(gramBytes(s))/1e6, "gram-MB")
		})
	}
}

// gramBytes is the storage of s's Gram rows and diagonal.
func gramBytes(s *Solver) int {
	n := cap(s.diag)
	for _, g := range s.gram {
		n += cap(g)
	}
	return 8 * n
}
