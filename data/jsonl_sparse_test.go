package data

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub"
)

// kroneckerSet is shaped like the multi-label graphs: every unary row holds
// x in its node's block, every pairwise row r in its edge's block.
func kroneckerSet(rng *rand.Rand, n, nodes, d int) []psub.Instance {
	set := make([]psub.Instance, n)
	for i := range set {
		in := psub.Instance{Name: "k", Labels: make([]int, nodes)}
		for k := range nodes {
			u := make([]float64, nodes*d)
			for j := range d {
				u[k*d+j] = rng.NormFloat64()
			}
			in.Unary = append(in.Unary, u)
			in.Labels[k] = rng.IntN(2)
		}
		m := nodes * (nodes - 1) / 2
		for a := range nodes {
			for b := a + 1; b < nodes; b++ {
				p := make([]float64, m*d)
				for j := range d {
					p[len(in.Edges)*d+j] = max(0, rng.NormFloat64())
				}
				in.Edges = append(in.Edges, [2]int{a, b})
				in.Pairwise = append(in.Pairwise, p)
			}
		}
		set[i] = in
	}
	return set
}

func densified(set []psub.Instance) []psub.Instance {
	out := make([]psub.Instance, len(set))
	for i := range set {
		out[i] = set[i]
		out[i].Densify()
	}
	return out
}

// TestJSONLSparseRoundTrip: mostly-zero features are written sparsely, in
// a file several times smaller than the dense form, read back sparse, and
// hold the same values bit for bit.
func TestJSONLSparseRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 4))
	set := kroneckerSet(rng, 5, 6, 4)
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, set); err != nil {
		t.Fatal(err)
	}
	dense, err := json.Marshal(set[0].Pairwise)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(buf.String(), "\n")
	if !strings.Contains(first, `"pairwise":{"dim":60,"idx":[[`) {
		t.Fatalf("pairwise rows not written sparsely: %.200s", first)
	}
	if len(first) > len(dense) {
		t.Fatalf("a sparse line of %d bytes is longer than its dense pairwise rows alone (%d)", len(first), len(dense))
	}
	got, err := ReadJSONL(&buf, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i].UnarySparse == nil || got[i].PairwiseSparse == nil {
			t.Fatalf("instance %d read back dense", i)
		}
	}
	if !reflect.DeepEqual(densified(got), set) {
		t.Fatal("values differ after the round trip")
	}
	// Written again from the sparse form: the same bytes.
	var again, once bytes.Buffer
	if err := WriteJSONL(&again, got); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&once, set); err != nil {
		t.Fatal(err)
	}
	if again.String() != once.String() {
		t.Fatal("writing the sparse form gives other bytes than writing the dense form")
	}
}

// TestJSONLDenseAndSparseLinesAgree: the two forms of the same line, and a
// line mixing them, read to the same instance, and a dense file written
// before sparse features existed still reads as it did.
func TestJSONLDenseAndSparseLinesAgree(t *testing.T) {
	lines := []string{
		`{"unary":[[1,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,2.5]],"edges":[[0,1]],"pairwise":[[0,0,0,0,0,0,0,-3,0]],"labels":[0,1]}`,
		`{"unary":{"dim":9,"idx":[[0],[8]],"val":[[1],[2.5]]},"edges":[[0,1]],"pairwise":{"dim":9,"idx":[[7]],"val":[[-3]]},"labels":[0,1]}`,
		`{"unary":[[1,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,2.5]],"edges":[[0,1]],"pairwise":{"dim":9,"idx":[[2,7]],"val":[[0,-3]]},"labels":[0,1]}`,
	}
	var want psub.Instance
	for i, l := range lines {
		set, err := ReadJSONL(strings.NewReader(l+"\n"), 2)
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		set = densified(set)
		if i == 0 {
			want = set[0]
			continue
		}
		if !reflect.DeepEqual(set[0], want) {
			t.Fatalf("line %d reads as %+v, line 0 as %+v", i, set[0], want)
		}
	}
	set, err := ReadJSONL(strings.NewReader(strings.Join(lines, "\n")+"\n"), 2)
	if err != nil || len(set) != 3 {
		t.Fatalf("the three forms in one file: %v", err)
	}
	// A dense file as every earlier writer wrote it: dense rows stay dense.
	old := `{"name":"a","unary":[[0.5,1],[2,0.25]],"edges":[[0,1]],"pairwise":[[1,0.5,0.75]],"labels":[1,0]}` + "\n"
	set, err = ReadJSONL(strings.NewReader(old), 2)
	if err != nil {
		t.Fatal(err)
	}
	if set[0].UnarySparse != nil || !reflect.DeepEqual(set[0].Pairwise, [][]float64{{1, 0.5, 0.75}}) {
		t.Fatalf("the dense file read as %+v", set[0])
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, set); err != nil || buf.String() != old {
		t.Fatalf("the dense file is written back as %q (%v)", buf.String(), err)
	}
}

// TestJSONLSparseMalformed: a malformed sparse matrix is an error naming
// the line, the field and the node or edge.
func TestJSONLSparseMalformed(t *testing.T) {
	good := `{"unary":[[1,2],[3,4]],"edges":[[0,1]],"pairwise":[[0.5,0,0]],"labels":[0,1]}`
	cases := []struct {
		name, line string
		want       []string
	}{
		{"no dim", `{"unary":{"idx":[[0],[1]],"val":[[1],[2]]},"edges":[],"pairwise":[]}`, []string{"line 2:", `field "unary": a sparse matrix needs "dim"`}},
		{"rows", `{"unary":{"dim":2,"idx":[[0],[1]],"val":[[1]]},"edges":[],"pairwise":[]}`, []string{"line 2:", `field "unary": 2 rows of indices but 1 rows of values`}},
		{"row length", `{"unary":[[1,2],[3,4]],"edges":[[0,1]],"pairwise":{"dim":3,"idx":[[0,1]],"val":[[1]]}}`, []string{"line 2:", `field "pairwise": edge 0: 2 indices but 1 values`}},
		{"index range", `{"unary":{"dim":2,"idx":[[0],[2]],"val":[[1],[2]]},"edges":[],"pairwise":[]}`, []string{"line 2:", `field "unary": node 1: index 2 outside [0,2)`}},
		{"order", `{"unary":[[1,2],[3,4]],"edges":[[0,1]],"pairwise":{"dim":3,"idx":[[2,0]],"val":[[1,1]]}}`, []string{"line 2:", `edge 0: pairwise feature index 0 after 2`}},
		{"dimension", `{"unary":[[1,2],[3,4]],"edges":[[0,1]],"pairwise":{"dim":4,"idx":[[0]],"val":[[1]]}}`, []string{"line 2:", `edge 0: pairwise feature dimension 4, expected 3`}},
		{"unknown field", `{"unary":{"dim":2,"idx":[[0],[1]],"val":[[1],[2]],"rows":2},"edges":[],"pairwise":[]}`, []string{"line 2:", `field "unary"`, `"rows"`}},
		{"string value", `{"unary":{"dim":2,"idx":[[0],[1]],"val":[["a"],[2]]},"edges":[],"pairwise":[]}`, []string{"line 2:", `field "unary": string where a number`}},
		{"float index", `{"unary":{"dim":2,"idx":[[0.5],[1]],"val":[[1],[2]]},"edges":[],"pairwise":[]}`, []string{"line 2:", `field "unary": number 0.5 where an integer`}},
		{"dense string", `{"unary":[["a",1],[1,2]],"edges":[],"pairwise":[]}`, []string{"line 2:", `field "unary": string where a number`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, err := ReadJSONL(strings.NewReader(good+"\n"+c.line+"\n"), 2)
			if err == nil || set != nil {
				t.Fatalf("accepted (%d instances)", len(set))
			}
			msg, at := err.Error(), 0
			for _, w := range c.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q", msg, w)
				}
				at += i + len(w)
			}
		})
	}
}
