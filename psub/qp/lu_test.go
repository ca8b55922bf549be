package qp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestDenseLU checks the polish's small LU against gonum's on random
// systems, including ones whose first pivot is zero (the bordered KKT
// matrices have a zero diagonal entry for ξ).
func TestDenseLU(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(40)
		a := make([]float64, n*n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		if trial%3 == 0 {
			a[0] = 0
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		var want mat.VecDense
		if err := want.SolveVec(mat.NewDense(n, n, append([]float64(nil), a...)), mat.NewVecDense(n, b)); err != nil {
			continue // singular or near it: not a useful comparison
		}
		var f denseLU
		if !f.factorize(append([]float64(nil), a...), n) {
			t.Fatalf("trial %d: factorize failed on a regular matrix", trial)
		}
		x := make([]float64, n)
		f.solve(x, b)
		for i := range x {
			if d := math.Abs(x[i] - want.AtVec(i)); d > 1e-8*math.Max(1, math.Abs(want.AtVec(i))) {
				t.Fatalf("trial %d (n=%d): x[%d] = %v, gonum %v", trial, n, i, x[i], want.AtVec(i))
			}
		}
	}
	var f denseLU
	if f.factorize([]float64{1, 2, 2, 4}, 2) {
		t.Fatal("singular matrix factorised")
	}
}

// BenchmarkDenseLU factors the regularised Gram matrix of random vectors,
// the polish's system, at the sizes it meets (cows: ~100; multi-label
// with hundreds of active hard rows: ~700).
func BenchmarkDenseLU(b *testing.B) {
	for _, n := range []int{100, 700} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(n), 1))
			a := make([]float64, n*n)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			m := make([]float64, n*n)
			blas64.Gemm(blas.NoTrans, blas.Trans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: a},
				blas64.General{Rows: n, Cols: n, Stride: n, Data: a}, 0, blas64.General{Rows: n, Cols: n, Stride: n, Data: m})
			work := make([]float64, n*n)
			var f denseLU
			for b.Loop() {
				copy(work, m)
				if !f.factorize(work, n) {
					b.Fatal("singular")
				}
			}
		})
	}
}
