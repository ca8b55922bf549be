package data

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/psub"
)

func randomSet(rng *rand.Rand, n int) []psub.Instance {
	du, dp := 1+rng.IntN(4), 1+rng.IntN(3)
	set := make([]psub.Instance, n)
	for i := range set {
		nodes := 1 + rng.IntN(6)
		in := psub.Instance{Name: "g" + strings.Repeat("x", i)}
		for range nodes {
			row := make([]float64, du)
			for j := range row {
				row[j] = rng.NormFloat64() * 1e3
			}
			in.Unary = append(in.Unary, row)
			in.Labels = append(in.Labels, rng.IntN(3))
		}
		for a := range nodes {
			for b := a + 1; b < nodes; b++ {
				if rng.IntN(2) == 0 {
					continue
				}
				in.Edges = append(in.Edges, [2]int{a, b})
				row := make([]float64, dp)
				for j := range row {
					row[j] = rng.ExpFloat64() / 3
				}
				in.Pairwise = append(in.Pairwise, row)
			}
		}
		if i%3 == 2 {
			in.Labels = nil
		}
		set[i] = in
	}
	return set
}

func TestJSONLRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		set := randomSet(rng, 1+rng.IntN(5))
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, set); err != nil {
			t.Fatalf("trial %d: write: %v", trial, err)
		}
		got, err := ReadJSONL(&buf, 3)
		if err != nil {
			t.Fatalf("trial %d: read: %v", trial, err)
		}
		for i := range set { // the writer normalises nil edge lists to []
			if set[i].Edges == nil {
				set[i].Edges, set[i].Pairwise = [][2]int{}, [][]float64{}
			}
		}
		if !reflect.DeepEqual(got, set) {
			t.Fatalf("trial %d: round trip differs:\n got %+v\nwant %+v", trial, got, set)
		}
	}
}

func TestJSONLFileRoundTripAndNumLabels(t *testing.T) {
	set := randomSet(rand.New(rand.NewPCG(3, 4)), 4)
	path := filepath.Join(t.TempDir(), "set.jsonl")
	if err := WriteJSONLFile(path, set); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSONLFile(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, in := range set {
		for _, y := range in.Labels {
			want = max(want, y+1)
		}
	}
	if NumLabels(got) != want {
		t.Fatalf("NumLabels %d, want %d", NumLabels(got), want)
	}
}

func TestJSONLMalformedLines(t *testing.T) {
	good := `{"unary":[[1,2],[3,4]],"edges":[[0,1]],"pairwise":[[0.5]],"labels":[0,1]}`
	cases := []struct {
		name   string
		lines  []string
		labels int
		want   []string // substrings of the error, in order
	}{
		{"syntax", []string{good, `{"unary":[[1,2]],`}, 0, []string{"line 2:", "invalid JSON"}},
		{"unknown field", []string{good, `{"unary":[[1,2]],"edges":[],"pairwise":[],"lables":[0]}`}, 0, []string{"line 2:", `"lables"`}},
		{"missing unary", []string{`{"edges":[],"pairwise":[]}`}, 0, []string{"line 1:", `field "unary": missing`}},
		{"missing pairwise", []string{good, good, `{"unary":[[1,2]],"edges":[]}`}, 0, []string{"line 3:", `field "pairwise": missing`}},
		{"edge arity", []string{`{"unary":[[1,2],[3,4]],"edges":[[0,1,1]],"pairwise":[[1]]}`}, 0, []string{"line 1:", `"edges": edge 0 has 3 node indices`}},
		{"edge out of range", []string{good, `{"unary":[[1,2],[3,4]],"edges":[[0,2]],"pairwise":[[1]]}`}, 0, []string{"line 2:", "edge 0 (0,2): node index out of range"}},
		{"self loop", []string{`{"unary":[[1,2],[3,4]],"edges":[[1,1]],"pairwise":[[1]]}`}, 0, []string{"line 1:", "self-loop"}},
		{"unary dim", []string{good, `{"unary":[[1,2,3]],"edges":[],"pairwise":[]}`}, 0, []string{"line 2:", "node 0: unary feature dimension 3, expected 2"}},
		{"pairwise dim", []string{good, `{"unary":[[1,2],[3,4]],"edges":[[0,1]],"pairwise":[[1,2]]}`}, 0, []string{"line 2:", "pairwise feature dimension 2, expected 1"}},
		{"edges vs pairwise", []string{`{"unary":[[1,2],[3,4]],"edges":[[0,1]],"pairwise":[]}`}, 0, []string{"line 1:", "1 edges but 0 pairwise"}},
		{"label count", []string{`{"unary":[[1,2],[3,4]],"edges":[],"pairwise":[],"labels":[0]}`}, 0, []string{"line 1:", "1 labels for 2 nodes"}},
		{"label range", []string{good, good}, 1, []string{"line 1:", "label 1 outside [0,1)", "line 2:"}},
		{"negative label", []string{`{"unary":[[1]],"edges":[],"pairwise":[],"labels":[-1]}`}, 0, []string{"line 1:", "label -1"}},
		{"float label", []string{`{"unary":[[1]],"edges":[],"pairwise":[],"labels":[0.5]}`}, 0, []string{"line 1:", `field "labels"`}},
		{"string feature", []string{`{"unary":[["a"]],"edges":[],"pairwise":[]}`}, 0, []string{"line 1:", `field "unary"`}},
		{"huge number", []string{`{"unary":[[1e999]],"edges":[],"pairwise":[]}`}, 0, []string{"line 1:", `field "unary"`}},
		{"empty graph", []string{`{"unary":[],"edges":[],"pairwise":[]}`}, 0, []string{"line 1:", "empty graph"}},
		{"two values", []string{good + " {}"}, 0, []string{"line 1:", "more than one JSON value"}},
		{"blank lines counted", []string{good, "", "  ", `[1]`}, 0, []string{"line 4:"}},
		{"empty file", []string{"", ""}, 0, []string{"no instances"}},
		// Issue 32: errors quote user data briefly and name fields, not Go types.
		{"50 kB number", []string{`{"unary":[[1` + strings.Repeat("0", 50000) + `]],"edges":[],"pairwise":[]}`}, 0,
			[]string{"line 1:", `field "unary": number 1000`, `… (50008 characters) where a number (a float64`}},
		{"a number, not an object", []string{`12345`}, 0, []string{"line 1:", "a JSON number where one object"}},
		{"a string label", []string{`{"unary":[[1]],"edges":[],"pairwise":[],"labels":["0"]}`}, 0, []string{"line 1:", `field "labels": string where an integer`}},
		{"duplicate edge", []string{`{"unary":[[1],[2],[3]],"edges":[[0,1],[1,2],[0,1]],"pairwise":[[1],[1],[1]]}`}, 0,
			[]string{"line 1:", "edge 2 (0,1) joins the same nodes as edge 0 (0,1)"}},
		{"reversed duplicate edge", []string{good, `{"unary":[[1,2],[3,4],[5,6]],"edges":[[1,2],[0,1],[2,1]],"pairwise":[[1],[1],[1]]}`}, 0,
			[]string{"line 2:", "edge 2 (2,1) joins the same nodes as edge 0 (1,2)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, err := ReadJSONL(strings.NewReader(strings.Join(c.lines, "\n")+"\n"), c.labels)
			if err == nil {
				t.Fatalf("accepted: %+v", set)
			}
			if set != nil {
				t.Fatalf("returned a partial set of %d instances with the error", len(set))
			}
			msg := err.Error()
			at := 0
			for _, w := range c.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q (after offset %d)", msg, w, at)
				}
				at += i + len(w)
			}
		})
	}
}

func TestJSONLReportsEveryViolation(t *testing.T) {
	bad := `{"unary":[[1]],"edges":[[0,0]],"pairwise":[[1]]}`
	var lines []string
	for range 25 {
		lines = append(lines, bad)
	}
	_, err := ReadJSONLFile(writeTemp(t, strings.Join(lines, "\n")+"\n"), 0)
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	if n := strings.Count(msg, "self-loop"); n != maxReported {
		t.Fatalf("%d violations listed, want %d", n, maxReported)
	}
	// Lines 1-20 are listed, lines 21-25 only counted.
	if !strings.Contains(msg, ".jsonl:20: ") || strings.Contains(msg, ".jsonl:21: ") || !strings.Contains(msg, "and 5 more") {
		t.Fatalf("unexpected error: %s", msg)
	}
}

// A file cut short (a killed writer: issue 32's export) is refused even
// when it ends exactly after a complete instance, and what error messages
// say about a 50 MB run of digits stays short.
func TestJSONLCutShort(t *testing.T) {
	set := randomSet(rand.New(rand.NewPCG(5, 6)), 6)
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, set); err != nil {
		t.Fatal(err)
	}
	whole := buf.Bytes()
	if _, err := ReadJSONL(bytes.NewReader(whole), 3); err != nil {
		t.Fatalf("the whole file: %v", err)
	}
	cuts := 0
	for n := 1; n < len(whole); n++ {
		got, err := ReadJSONL(bytes.NewReader(whole[:n]), 3)
		if err == nil {
			// Only a cut right after a newline is invisible: the file then
			// holds whole lines (which is why writers write atomically).
			if whole[n-1] != '\n' {
				t.Fatalf("cut after %d of %d bytes: read %d instances without an error", n, len(whole), len(got))
			}
			continue
		}
		if whole[n] == '\n' {
			cuts++
			if !strings.Contains(err.Error(), "no newline at the end of the file") {
				t.Fatalf("cut just before newline %d: %v", n, err)
			}
		}
	}
	if cuts != len(set) {
		t.Fatalf("%d cuts exactly after an instance checked, want %d", cuts, len(set))
	}
	huge := `{"unary":[[1` + strings.Repeat("0", 50<<20) + `]],"edges":[],"pairwise":[]}` + "\n"
	_, err := ReadJSONL(strings.NewReader(huge), 0)
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("a 50 MB number: error of %d bytes", len(err.Error()))
	}
}

// WriteJSONLFile replaces a file only when the new one is whole: a failed
// write leaves the old one.
func TestWriteJSONLFileAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "set.jsonl")
	set := randomSet(rand.New(rand.NewPCG(7, 8)), 3)
	if err := WriteJSONLFile(path, set); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	bad := append(randomSet(rand.New(rand.NewPCG(9, 8)), 3), psub.Instance{Unary: [][]float64{{1}}, Edges: [][2]int{{0, 0}}, Pairwise: [][]float64{{1}}})
	if err := WriteJSONLFile(path, bad); err == nil {
		t.Fatal("an invalid set was written")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("a failed write changed the file")
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*")); len(m) != 0 {
		t.Fatalf("temporary files left: %v", m)
	}
}

func writeTemp(t *testing.T, s string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestWriteJSONLRejectsInvalid(t *testing.T) {
	set := []psub.Instance{{Unary: [][]float64{{1}}, Edges: [][2]int{{0, 3}}, Pairwise: [][]float64{{1}}}}
	if err := WriteJSONL(&bytes.Buffer{}, set); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("error %v, want node index out of range", err)
	}
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"unary":[[1,2],[3,4]],"edges":[[0,1]],"pairwise":[[0.5]],"labels":[0,1]}`))
	f.Add([]byte("{\"name\":\"a\",\"unary\":[[1]],\"edges\":[],\"pairwise\":[]}\n\n{\"unary\":[[2]],\"edges\":[],\"pairwise\":[]}"))
	f.Add([]byte(`{"unary":[[1]],"edges":[[0,0,0]],"pairwise":[[1]]}`))
	f.Add([]byte(`{"unary":{"dim":9,"idx":[[0],[8]],"val":[[1],[2.5]]},"edges":[[0,1]],"pairwise":{"dim":9,"idx":[[2,7]],"val":[[0,-3]]},"labels":[0,1]}`))
	f.Add([]byte("\xef\xbb\xbf{\"unary\":[[1],[2]],\"edges\":[[0,1]],\"pairwise\":[[]],\"labels\":[0,100000]}\n"))
	f.Add([]byte(`{"unary":null,"edges":[],"pairwise":[],"labels":[-1]}` + "\n"))
	f.Setenv(membudget.Env, "64MB")
	f.Fuzz(func(t *testing.T, b []byte) {
		set, err := ReadJSONL(bytes.NewReader(b), 0)
		if err != nil {
			if set != nil {
				t.Fatal("partial set returned with an error")
			}
			if errors.Is(err, ErrNotFound) {
				t.Fatal("unexpected error kind")
			}
			return
		}
		if _, _, err := psub.ValidateSet(set, -1); err != nil {
			t.Fatalf("reader accepted an invalid set: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteJSONL(&buf, set); err != nil {
			t.Fatalf("cannot write what was read: %v", err)
		}
		again, err := ReadJSONL(&buf, 0)
		if err != nil {
			t.Fatalf("cannot read what was written: %v", err)
		}
		for i := range set {
			if set[i].Edges == nil || len(set[i].Edges) == 0 {
				set[i].Edges, set[i].Pairwise = again[i].Edges, again[i].Pairwise
			}
		}
		if !reflect.DeepEqual(set, again) {
			t.Fatalf("second round trip differs:\n%+v\n%+v", set, again)
		}
	})
}
