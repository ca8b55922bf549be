package qp

import (
	"sort"

	"gonum.org/v1/gonum/floats"
)

// vec is one stored constraint vector (a cutting plane's a_j or a hard row's
// g_k), kept dense or sparse as it was given. Fixed coordinates are zeroed in
// every stored vector, so dot products between vectors are already the
// products on the free coordinates.
type vec struct {
	dense []float64 // non-nil for a dense vector of length dim
	idx   []int     // sparse: strictly increasing coordinates
	val   []float64 // sparse: values at idx
	// bent caches the vector's entries on the sign-bounded coordinates as
	// work.rowEnt holds them; valid while bver == Solver.bver+1 (the set
	// of bounds has not changed since).
	bent []entry
	bver int
}

// at returns the coordinate i of v.
func (v *vec) at(i int) float64 {
	if v.dense != nil {
		return v.dense[i]
	}
	k := sort.SearchInts(v.idx, i)
	if k < len(v.idx) && v.idx[k] == i {
		return v.val[k]
	}
	return 0
}

// zero sets coordinate i of v to zero.
func (v *vec) zero(i int) {
	if v.dense != nil {
		v.dense[i] = 0
		return
	}
	k := sort.SearchInts(v.idx, i)
	if k < len(v.idx) && v.idx[k] == i {
		v.val[k] = 0
	}
}

// addTo adds s·v to the dense vector w.
func (v *vec) addTo(w []float64, s float64) {
	if s == 0 {
		return
	}
	if v.dense != nil {
		floats.AddScaled(w, s, v.dense)
		return
	}
	for k, i := range v.idx {
		w[i] += s * v.val[k]
	}
}

// dotDense returns v·w for a dense w.
func (v *vec) dotDense(w []float64) float64 {
	if v.dense != nil {
		return floats.Dot(v.dense, w) // assembly kernel: the Gram update's hot loop
	}
	var s float64
	for k, i := range v.idx {
		s += v.val[k] * w[i]
	}
	return s
}

// dot returns u·v for any mix of dense and sparse vectors.
func dot(u, v *vec) float64 {
	switch {
	case u.dense != nil:
		return v.dotDense(u.dense)
	case v.dense != nil:
		return u.dotDense(v.dense)
	}
	var s float64
	a, b := 0, 0
	for a < len(u.idx) && b < len(v.idx) {
		switch {
		case u.idx[a] < v.idx[b]:
			a++
		case u.idx[a] > v.idx[b]:
			b++
		default:
			s += u.val[a] * v.val[b]
			a++
			b++
		}
	}
	return s
}
