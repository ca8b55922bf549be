package psub

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelSeal: a sealed model file refuses any change of a value, names
// how to re-seal, and ResealFile accepts a deliberate edit; version 1
// files (no seal) still load; formatting changes that keep every value
// (indentation, a number's spelling) keep the seal.
func TestModelSeal(t *testing.T) {
	m := &Model{Layout: Layout{Labels: 2, UnaryDim: 1, PairwiseDim: 1}, W: []float64{0.25, -1, 0.5, 0, 0, 0.125}, Set: "C4", C: 1, Loss: "hamming", HardTol: 1e-9, Description: "seal <&> test"}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	sealed := buf.String()
	if !strings.Contains(sealed, `"version": 2`) || !strings.Contains(sealed, `"sha256": "`) {
		t.Fatalf("Save wrote no seal:\n%s", sealed)
	}
	edit := func(old, new string) string {
		if !strings.Contains(sealed, old) {
			t.Fatalf("%q not in the file", old)
		}
		return strings.Replace(sealed, old, new, 1)
	}
	// The file without its last field: what a version 1 file holds.
	unsealed := strings.Replace(sealed, sealed[strings.Index(sealed, `,
 "sha256"`):strings.LastIndex(sealed, "}")], "\n", 1)
	v1 := strings.Replace(unsealed, `"version": 2`, `"version": 1`, 1)
	for _, c := range []struct {
		name, file string
		edited     bool   // refused with ErrModelEdited
		want       string // other error; "" = loads
	}{
		{"as written", sealed, false, ""},
		{"one digit of a weight", edit("0.125", "0.126"), true, ""},
		{"sign of a weight", edit("-1", "1"), true, ""},
		{"C", edit(`"c": 1`, `"c": 2`), true, ""},
		{"loss", edit(`"hamming"`, `"hammong"`), true, ""},
		{"hard_tol", edit(`1e-9`, `2e-9`), true, ""},
		{"description", edit("seal", "seel"), true, ""},
		{"tied", edit(`"tied": false`, `"tied": true`), false, "weights"}, // layout checks first
		{"the seal itself", edit(`"sha256": "`, `"sha256": "0`), true, ""},
		{"seal removed", unsealed, true, ""},
		{"version 1 with a seal", edit(`"version": 2`, `"version": 1`), false, "have no seal"},
		{"version 1 without a seal (committed models)", v1, false, ""},
		{"reindented", strings.ReplaceAll(sealed, "\n ", "\n\t"), false, ""},
		{"a number spelled otherwise", edit("0.125", "1.25e-1"), false, ""},
		{"version 3", edit(`"version": 2`, `"version": 3`), false, "version 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(strings.NewReader(c.file))
			switch {
			case c.edited:
				if !errors.Is(err, ErrModelEdited) || !strings.Contains(err.Error(), "psub model -reseal") {
					t.Fatalf("error %v, want ErrModelEdited with how to re-seal", err)
				}
			case c.want == "":
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
			default:
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want one that says %q", err, c.want)
				}
			}
		})
	}

	// ResealFile accepts a deliberate edit, and seals a version 1 file.
	dir := t.TempDir()
	for name, file := range map[string]string{"edited.json": edit("0.125", "0.375"), "v1.json": v1} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := ResealFile(path); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := LoadFile(path)
		if err != nil {
			t.Fatalf("%s after ResealFile: %v", name, err)
		}
		if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(`"version": 2`)) {
			t.Errorf("%s: not sealed after ResealFile", name)
		}
		if name == "edited.json" && got.W[5] != 0.375 {
			t.Errorf("resealed weight %v, want the edited 0.375", got.W[5])
		}
	}
	// ResealFile still checks everything but the seal.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(edit("0.125", "NaN")), 0o644)
	if err := ResealFile(bad); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("ResealFile of a file that is no model: %v", err)
	}
}

// FuzzLoad: no model file panics or allocates beyond a small budget, and
// every accepted model is consistent and survives Save and Load exactly.
func FuzzLoad(f *testing.F) {
	f.Setenv("PSUB_MAX_MEMORY", "64MB")
	m := &Model{Layout: Layout{Labels: 3, UnaryDim: 1, PairwiseDim: 1, Tied: true}, W: []float64{1, 2, 3, 0.5, -0.5, 0, 0, 1, 2}, Set: "C4", C: 1, Loss: "hamming"}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"version":1,"labels":2,"unary_dim":1,"pairwise_dim":0,"tied":false,"w":[1,2],"set":"C0","c":1,"loss":"hamming"}`))
	f.Add([]byte(`{"version":1,"labels":4611686018427387904,"unary_dim":1,"pairwise_dim":1,"w":[]}`))
	f.Add([]byte(`{"version":2,"labels":2,"unary_dim":0,"pairwise_dim":0,"w":[],"sha256":"00"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Load(bytes.NewReader(b))
		if err != nil {
			return
		}
		if m.Labels < 2 || len(m.W) != m.Dim() {
			t.Fatalf("accepted an inconsistent model: labels %d, %d weights for Dim %d", m.Labels, len(m.W), m.Dim())
		}
		var out bytes.Buffer
		if err := m.Save(&out); err != nil {
			t.Fatalf("cannot save what was loaded: %v", err)
		}
		again, err := Load(&out)
		if err != nil {
			t.Fatalf("cannot load what was saved: %v", err)
		}
		if again.Layout != m.Layout || len(again.W) != len(m.W) {
			t.Fatal("layout changed in a round trip")
		}
		for i := range m.W {
			if math.Float64bits(again.W[i]) != math.Float64bits(m.W[i]) {
				t.Fatalf("w[%d] %v became %v", i, m.W[i], again.W[i])
			}
		}
	})
}
