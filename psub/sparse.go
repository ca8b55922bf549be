package psub

import (
	"fmt"
	"math"
)

// SparseRows is a matrix of feature rows in compressed sparse row form:
// row r has the non-zero values Val[Start[r]:Start[r+1]] at the columns
// Idx[Start[r]:Start[r+1]], in increasing column order, each below Dim.
// An Instance holds its unary or pairwise rows in this form
// (Instance.UnarySparse, Instance.PairwiseSparse) when most features are
// zero: the multi-label graphs' Kronecker rows 1(e) ⊗ R(x) keep 20 of 3 640
// entries on yeast.
type SparseRows struct {
	Dim   int       `json:"dim"`
	Start []int     `json:"start"`
	Idx   []int32   `json:"idx"`
	Val   []float64 `json:"val"`
}

// NewSparseRows stores the non-zeros of rows (each of length dim).
func NewSparseRows(rows [][]float64, dim int) *SparseRows {
	nnz := 0
	for _, r := range rows {
		for _, v := range r {
			if v != 0 {
				nnz++
			}
		}
	}
	s := &SparseRows{Dim: dim, Start: make([]int, 1, len(rows)+1), Idx: make([]int32, 0, nnz), Val: make([]float64, 0, nnz)}
	for _, r := range rows {
		s.AppendDense(r)
	}
	return s
}

// AppendDense appends a row given densely, keeping its non-zeros.
func (s *SparseRows) AppendDense(row []float64) {
	if s.Start == nil {
		s.Start = []int{0}
	}
	for j, v := range row {
		if v != 0 {
			s.Idx = append(s.Idx, int32(j))
			s.Val = append(s.Val, v)
		}
	}
	s.Start = append(s.Start, len(s.Idx))
}

// AppendRow appends a row given by its non-zeros (columns increasing).
func (s *SparseRows) AppendRow(idx []int32, val []float64) {
	if s.Start == nil {
		s.Start = []int{0}
	}
	s.Idx = append(s.Idx, idx...)
	s.Val = append(s.Val, val...)
	s.Start = append(s.Start, len(s.Idx))
}

// Rows is the number of rows.
func (s *SparseRows) Rows() int {
	if s == nil || len(s.Start) == 0 {
		return 0
	}
	return len(s.Start) - 1
}

// Row returns the columns and values of row r's non-zeros (shared, not
// copies).
func (s *SparseRows) Row(r int) ([]int32, []float64) {
	lo, hi := s.Start[r], s.Start[r+1]
	return s.Idx[lo:hi:hi], s.Val[lo:hi:hi]
}

// Dense returns the rows as dense vectors of length Dim.
func (s *SparseRows) Dense() [][]float64 {
	out := make([][]float64, s.Rows())
	buf := make([]float64, s.Rows()*s.Dim)
	for r := range out {
		out[r] = buf[r*s.Dim : (r+1)*s.Dim : (r+1)*s.Dim]
		idx, val := s.Row(r)
		for t, j := range idx {
			out[r][j] = val[t]
		}
	}
	return out
}

// check returns a description of the first structural fault of the rows
// (a row count or offsets out of order, a column out of range or not
// increasing, a value not finite), naming the row with what; "" if none.
func (s *SparseRows) check(what, feature string) string {
	if s.Dim < 0 {
		return fmt.Sprintf("sparse %ss: negative dimension %d", feature, s.Dim)
	}
	if len(s.Start) == 0 || s.Start[0] != 0 || s.Start[len(s.Start)-1] != len(s.Idx) || len(s.Idx) != len(s.Val) {
		return fmt.Sprintf("sparse %ss: %d indices, %d values and row offsets %s: not a valid sparse matrix", feature, len(s.Idx), len(s.Val), Brief(fmt.Sprint(s.Start), 40))
	}
	for r := 0; r < s.Rows(); r++ {
		if s.Start[r+1] < s.Start[r] {
			return fmt.Sprintf("%s %d: row offsets decrease", what, r)
		}
		idx, val := s.Row(r)
		for t, j := range idx {
			switch {
			case j < 0 || int(j) >= s.Dim:
				return fmt.Sprintf("%s %d: %s index %d outside [0,%d)", what, r, feature, j, s.Dim)
			case t > 0 && j <= idx[t-1]:
				return fmt.Sprintf("%s %d: %s index %d after %d (indices must increase)", what, r, feature, j, idx[t-1])
			case math.IsNaN(val[t]) || math.IsInf(val[t], 0):
				return fmt.Sprintf("%s %d: %s %d is %v", what, r, feature, j, val[t])
			}
		}
	}
	return ""
}

// featRows is a read-only view of one feature matrix of an instance, dense
// or sparse, with the products the learner needs computed in the same
// order of floating-point operations either way (zeros add nothing), so
// that both forms train the same weights bit for bit.
type featRows struct {
	d [][]float64
	s *SparseRows
}

func (in *Instance) unaryRows() featRows    { return featRows{in.Unary, in.UnarySparse} }
func (in *Instance) pairwiseRows() featRows { return featRows{in.Pairwise, in.PairwiseSparse} }

// n is the number of rows.
func (f featRows) n() int {
	if f.s != nil {
		return f.s.Rows()
	}
	return len(f.d)
}

// rowLen is the dimension of row r.
func (f featRows) rowLen(r int) int {
	if f.s != nil {
		return f.s.Dim
	}
	return len(f.d[r])
}

// row returns row r densely: the row itself, or buf (length ≥ its
// dimension) filled from the sparse form.
func (f featRows) row(r int, buf []float64) []float64 {
	if f.s == nil {
		return f.d[r]
	}
	buf = buf[:f.s.Dim]
	clear(buf)
	idx, val := f.s.Row(r)
	for t, j := range idx {
		buf[j] = val[t]
	}
	return buf
}

// each calls fn on the non-zeros of row r (and, dense, on its zeros too:
// callers use it only where a zero contributes nothing).
func (f featRows) each(r int, fn func(j int, v float64)) {
	if f.s == nil {
		for j, v := range f.d[r] {
			fn(j, v)
		}
		return
	}
	idx, val := f.s.Row(r)
	for t, j := range idx {
		fn(int(j), val[t])
	}
}

// dot is ⟨w, row r⟩ (w may be longer), with dot's partial sums: the sparse
// form adds each non-zero to the partial sum the dense loop adds it to.
func (f featRows) dot(w []float64, r int) float64 {
	if f.s == nil {
		return dot(w, f.d[r])
	}
	idx, val := f.s.Row(r)
	n := int32(f.s.Dim &^ 3)
	var s [4]float64
	for t, j := range idx {
		k := j & 3
		if j >= n {
			k = 0 // dot's tail loop adds into its first sum
		}
		s[k] += w[j] * val[t]
	}
	return (s[0] + s[1]) + (s[2] + s[3])
}

// norm is ‖row r‖ as norm computes it.
func (f featRows) norm(r int) float64 {
	if f.s == nil {
		return norm(f.d[r])
	}
	idx, val := f.s.Row(r)
	n := int32(f.s.Dim &^ 3)
	var s [4]float64
	for t, j := range idx {
		k := j & 3
		if j >= n {
			k = 0
		}
		s[k] += val[t] * val[t]
	}
	return math.Sqrt((s[0] + s[1]) + (s[2] + s[3]))
}

// axpy does dst[j] += s·x_j for row x = r (dst may be longer).
func (f featRows) axpy(dst []float64, r int, s float64) {
	if f.s == nil {
		axpy(dst, s, f.d[r])
		return
	}
	idx, val := f.s.Row(r)
	for t, j := range idx {
		dst[j] += s * val[t]
	}
}

// csr returns the rows in the learner's compressed form.
func (f featRows) csr() csr {
	if f.s == nil {
		return newCSR(f.d)
	}
	c := csr{start: make([]int32, len(f.s.Start)), idx: f.s.Idx, val: f.s.Val}
	for r, s := range f.s.Start {
		c.start[r] = int32(s)
	}
	return c
}

// sparseBytes and denseBytes are the memory of the two forms of a matrix
// with rows rows of dimension dim and nnz non-zeros (slice headers
// included).
func sparseBytes(rows, nnz int) int { return 8*(rows+1) + 12*nnz + 72 }
func denseBytes(rows, dim int) int  { return rows * (24 + 8*dim) }

// Compact stores each feature matrix of the instance sparsely when that
// takes at most half the memory of the dense form (fewer than about a
// third of the features non-zero), densely otherwise. The instance trains,
// predicts and is written the same either way.
func (in *Instance) Compact() {
	in.Unary, in.UnarySparse = compactRows(in.Unary, in.UnarySparse)
	in.Pairwise, in.PairwiseSparse = compactRows(in.Pairwise, in.PairwiseSparse)
}

// Sparsify stores both feature matrices sparsely.
func (in *Instance) Sparsify() {
	if in.UnarySparse == nil {
		in.UnarySparse, in.Unary = NewSparseRows(in.Unary, in.UnaryDim()), nil
	}
	if in.PairwiseSparse == nil {
		in.PairwiseSparse, in.Pairwise = NewSparseRows(in.Pairwise, in.PairwiseDim()), nil
	}
}

// Densify stores both feature matrices densely (rows of their dimension).
func (in *Instance) Densify() {
	if in.UnarySparse != nil {
		in.Unary, in.UnarySparse = in.UnarySparse.Dense(), nil
	}
	if in.PairwiseSparse != nil {
		in.Pairwise, in.PairwiseSparse = in.PairwiseSparse.Dense(), nil
	}
}

// DenseUnary returns the unary rows densely: Unary itself, or a dense
// copy of UnarySparse.
func (in *Instance) DenseUnary() [][]float64 {
	if in.UnarySparse != nil {
		return in.UnarySparse.Dense()
	}
	return in.Unary
}

// DensePairwise returns the pairwise rows densely: Pairwise itself, or a
// dense copy of PairwiseSparse.
func (in *Instance) DensePairwise() [][]float64 {
	if in.PairwiseSparse != nil {
		return in.PairwiseSparse.Dense()
	}
	return in.Pairwise
}

func compactRows(d [][]float64, s *SparseRows) ([][]float64, *SparseRows) {
	if s != nil {
		if 2*sparseBytes(s.Rows(), len(s.Val)) > denseBytes(s.Rows(), s.Dim) {
			return s.Dense(), nil
		}
		return nil, s
	}
	if len(d) == 0 {
		return d, nil
	}
	nnz, dim := 0, len(d[0])
	for _, r := range d {
		for _, v := range r {
			if v != 0 {
				nnz++
			}
		}
	}
	if 2*sparseBytes(len(d), nnz) <= denseBytes(len(d), dim) {
		return nil, NewSparseRows(d, dim)
	}
	return d, nil
}
