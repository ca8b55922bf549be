package psub

import (
	"bytes"
	"strings"
	"testing"
)

// TestLoadBOMAndNaN: a model file that an editor saved with a UTF-8
// byte-order mark loads (the seal covers the values, not the text), and a
// NaN weight is explained rather than reported as "invalid character 'N'".
func TestLoadBOMAndNaN(t *testing.T) {
	m := &Model{Layout: Layout{Labels: 2, UnaryDim: 1, PairwiseDim: 1}}
	m.W = make([]float64, m.Dim())
	m.W[0] = 0.5
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bytes.NewReader(append([]byte("\xef\xbb\xbf"), b.Bytes()...))); err != nil {
		t.Fatalf("a model with a BOM: %v", err)
	}
	nan := strings.Replace(b.String(), "0.5", "NaN", 1)
	if _, err := Load(strings.NewReader(nan)); err == nil || !strings.Contains(err.Error(), "NaN and Infinity are not JSON numbers") {
		t.Fatalf("NaN weight: %v", err)
	}
}
