package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/probably-submodular/crf/psub"
)

// jsonSparse is the sparse form of a feature matrix on disk (data/FORMATS.md,
// "Sparse features"): the dimension, and per row the increasing indices of
// its non-zero entries and their values.
type jsonSparse struct {
	Dim *int         `json:"dim"`
	Idx *[][]int64   `json:"idx"`
	Val *[][]float64 `json:"val"`
}

// decodeRows decodes the value of the feature field name ("unary" or
// "pairwise"): an array of dense rows, or a sparse object. Problems are
// added to v with the line; ok is false when there were any.
func decodeRows(raw json.RawMessage, name string, line int, v *violations) (dense [][]float64, sparse *psub.SparseRows, ok bool) {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		if err := json.Unmarshal(raw, &dense); err != nil {
			addDecodeError(v, line, name, err)
			return nil, nil, false
		}
		return dense, nil, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var js jsonSparse
	if err := dec.Decode(&js); err != nil {
		addDecodeError(v, line, name, err)
		return nil, nil, false
	}
	switch {
	case js.Dim == nil || js.Idx == nil || js.Val == nil:
		v.add(line, "field %q: a sparse matrix needs \"dim\", \"idx\" and \"val\" (see data/FORMATS.md)", name)
		return nil, nil, false
	case *js.Dim < 0 || *js.Dim > math.MaxInt32:
		v.add(line, "field %q: dimension %d outside [0, 2³¹)", name, *js.Dim)
		return nil, nil, false
	case len(*js.Idx) != len(*js.Val):
		v.add(line, "field %q: %d rows of indices but %d rows of values", name, len(*js.Idx), len(*js.Val))
		return nil, nil, false
	}
	row := "edge" // a row of the field, in messages
	if name == "unary" {
		row = "node"
	}
	total := 0
	for _, idx := range *js.Idx {
		total += len(idx)
	}
	// Exact capacities: appending would leave up to half of them unused.
	sp := &psub.SparseRows{Dim: *js.Dim, Start: make([]int, 1, len(*js.Idx)+1), Idx: make([]int32, 0, total), Val: make([]float64, 0, total)}
	var idx32 []int32
	var nz []float64
	for r, idx := range *js.Idx {
		val := (*js.Val)[r]
		if len(idx) != len(val) {
			v.add(line, "field %q: %s %d: %d indices but %d values", name, row, r, len(idx), len(val))
			return nil, nil, false
		}
		idx32, nz = idx32[:0], nz[:0]
		for t, j := range idx {
			if j < 0 || j >= int64(*js.Dim) {
				v.add(line, "field %q: %s %d: index %d outside [0,%d)", name, row, r, j, *js.Dim)
				return nil, nil, false
			}
			if val[t] != 0 { // explicit zeros are dropped, as from dense rows
				idx32, nz = append(idx32, int32(j)), append(nz, val[t])
			}
		}
		sp.AppendRow(idx32, nz)
	}
	return nil, sp, true
}

// addDecodeError reports a decoding error inside field name as decodeLine
// reports the line's own.
func addDecodeError(v *violations, line int, name string, err error) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		v.add(line, "field %q: %s where %s expected", name, psub.Brief(te.Value, 40), jsonExpected(te.Type))
		return
	}
	v.add(line, "field %q: %s", name, psub.Brief(err.Error(), 120))
}

// rowsJSON returns the value to write for one feature matrix (dense d or
// sparse s): the dense array of rows, or the sparse object when that is
// shorter. Both forms carry the same float64 values in the same shortest
// form, so the choice is by the bytes they differ in: a dense zero costs
// "0," (2 bytes), a sparse entry its index and a comma, a sparse row the
// brackets and comma of its index list and of its value list.
func rowsJSON(d [][]float64, s *psub.SparseRows) any {
	if s == nil {
		if len(d) == 0 {
			return [][]float64{}
		}
		dim, zeros, extra := len(d[0]), 0, 0
		for _, r := range d {
			for j, x := range r {
				if x == 0 {
					zeros++
				} else {
					extra += len(strconv.Itoa(j)) + 1
				}
			}
		}
		if sparseHeader(dim)+3*len(d)+extra >= 2*zeros {
			return d
		}
		s = psub.NewSparseRows(d, dim)
	} else {
		dense, extra := 0, 0
		for r := 0; r < s.Rows(); r++ {
			idx, _ := s.Row(r)
			for _, j := range idx {
				extra += len(strconv.Itoa(int(j))) + 1
			}
			dense += 2 * (s.Dim - len(idx))
		}
		if sparseHeader(s.Dim)+3*s.Rows()+extra >= dense {
			return s.Dense()
		}
	}
	out := struct {
		Dim int         `json:"dim"`
		Idx [][]int32   `json:"idx"`
		Val [][]float64 `json:"val"`
	}{Dim: s.Dim, Idx: make([][]int32, s.Rows()), Val: make([][]float64, s.Rows())}
	for r := range out.Idx {
		out.Idx[r], out.Val[r] = s.Row(r)
		if len(out.Idx[r]) == 0 { // [] rather than null
			out.Idx[r], out.Val[r] = []int32{}, []float64{}
		}
	}
	return out
}

// sparseHeader is the length of {"dim":D,"idx":[],"val":[]} beyond "[]".
func sparseHeader(dim int) int { return len(`{"dim":,"idx":[],"val":}`) + len(strconv.Itoa(dim)) }
