package inference

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzMethods decodes an energy from bytes (sizes, edges and costs may all
// be wrong or extreme) and checks that every method either returns an error
// or a labelling whose Energy is its Eval — never a panic.
func FuzzMethods(f *testing.F) {
	f.Add([]byte{3, 2, 2, 0, 1, 1, 2, 10, 20, 30, 40, 50, 60, 70, 80})
	f.Add([]byte{4, 3, 3, 0, 1, 1, 2, 2, 3, 255, 0, 7})
	f.Add([]byte{2, 2, 1, 0, 0, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		n, L, m := int(data[0]%9), int(data[1]%4), int(data[2]%12)
		data = data[3:]
		next := func() byte {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return b
		}
		edges := make([][2]int, m)
		for j := range edges {
			edges[j] = [2]int{int(next()%10) - 1, int(next() % 10)}
		}
		cost := func() float64 {
			var b [8]byte
			for k := range b {
				b[k] = next()
			}
			switch b[0] % 4 {
			case 0: // arbitrary bits, including NaN, Inf and huge values
				return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
			default:
				return float64(int8(b[1])) / 4
			}
		}
		e := &Energy{Labels: L, Edges: edges}
		nu := n * L
		if next()%8 == 0 {
			nu++ // a size mismatch now and then
		}
		for k := 0; k < nu; k++ {
			e.Unary = append(e.Unary, cost())
		}
		for k := 0; k < m*L*L; k++ {
			e.Pairwise = append(e.Pairwise, cost())
		}
		valid := e.Validate() == nil
		for _, meth := range []Method{BruteForce{}, ICM{}, TRWS{MaxIter: 5}, GraphCut{}, TruncatedGraphCut{},
			QPBO{}, AlphaExpansion{}, AlphaBetaSwap{}} {
			r, err := meth.Minimize(e)
			if err != nil {
				continue
			}
			if !valid {
				t.Fatalf("%s accepted an energy Validate rejects", meth.Name())
			}
			if e.CheckLabels(r.Labels) != nil {
				t.Fatalf("%s: bad labelling %v", meth.Name(), r.Labels)
			}
			if v := e.Eval(r.Labels); v != r.Energy && !(math.IsNaN(v) && math.IsNaN(r.Energy)) {
				t.Fatalf("%s: Energy %v, Eval %v", meth.Name(), r.Energy, v)
			}
		}
	})
}
