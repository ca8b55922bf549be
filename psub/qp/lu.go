package qp

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// denseLU is an LU factorisation with partial pivoting of a small dense
// row-major n×n matrix, factored in place. The active-set polish solves
// systems of a few dozen to a few hundred unknowns thousands of times per
// training run; at that size gonum's general LU (condition estimate, BLAS
// level-3 triangular solves for one right-hand side) costs several times
// more than the arithmetic, so this one does only the arithmetic.
type denseLU struct {
	n   int
	a   []float64 // L below the diagonal (unit diagonal implied), U on and above
	piv []int     // row i of the factors is row piv[i] of the input
}

// factorize factors the n×n row-major matrix a in place (a is kept). It
// returns false when a pivot is exactly zero or not finite (singular).
func (f *denseLU) factorize(a []float64, n int) bool {
	f.n, f.a = n, a
	if cap(f.piv) < n {
		f.piv = make([]int, n)
	}
	f.piv = f.piv[:n]
	for i := range f.piv {
		f.piv[i] = i
	}
	for k := 0; k < n; k++ {
		p, best := k, math.Abs(a[k*n+k])
		for i := k + 1; i < n; i++ {
			if v := math.Abs(a[i*n+k]); v > best {
				p, best = i, v
			}
		}
		if best == 0 || math.IsNaN(best) || math.IsInf(best, 0) {
			return false
		}
		if p != k {
			rk, rp := a[k*n:(k+1)*n], a[p*n:(p+1)*n]
			for j := range rk {
				rk[j], rp[j] = rp[j], rk[j]
			}
			f.piv[k], f.piv[p] = f.piv[p], f.piv[k]
		}
		inv := 1 / a[k*n+k]
		rk := a[k*n+k+1 : (k+1)*n]
		for i := k + 1; i < n; i++ {
			l := a[i*n+k] * inv
			a[i*n+k] = l
			if l == 0 {
				continue
			}
			// gonum's assembly axpy: the O(n³) loop of the factorisation.
			floats.AddScaled(a[i*n+k+1:(i+1)*n], -l, rk)
		}
	}
	return true
}

// solve sets x = A⁻¹b (x and b may not alias).
func (f *denseLU) solve(x, b []float64) {
	n, a := f.n, f.a
	for i := 0; i < n; i++ {
		s := b[f.piv[i]]
		row := a[i*n : i*n+i]
		for j, v := range row {
			s -= v * x[j]
		}
		x[i] = s
	}
	for i := n - 1; i >= 0; i-- {
		s := x[i]
		row := a[i*n+i+1 : (i+1)*n]
		for j, v := range row {
			s -= v * x[i+1+j]
		}
		x[i] = s / a[i*n+i]
	}
}
