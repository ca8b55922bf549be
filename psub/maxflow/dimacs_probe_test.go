package maxflow

import (
	"strings"
	"testing"
)

// TestDecodeBOM: a DIMACS file an editor saved with a UTF-8 byte-order
// mark reads as without it (before: "unknown line type \ufeffp").
func TestDecodeBOM(t *testing.T) {
	const file = "p max 3 1\nn 1 s\nn 3 t\na 1 3 5\n"
	for _, text := range []string{file, "\ufeff" + file, "\ufeffc comment\n" + file} {
		if _, err := Read(strings.NewReader(text)); err != nil {
			t.Errorf("%q: %v", text[:12], err)
		}
	}
}
