package datadir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "cows", "images"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PSUB_DATA", root)
	if dir, looked := Find("cows/images"); dir != filepath.Join(root, "cows", "images") || looked != nil {
		t.Errorf("Find with $PSUB_DATA = %q, %v", dir, looked)
	}
	// Missing: "" and every place looked at, $PSUB_DATA first.
	dir, looked := Find("no/such/set")
	if dir != "" || len(looked) < 2 || !strings.Contains(looked[0], "$PSUB_DATA") ||
		!strings.Contains(strings.Join(looked, ";"), "shared") {
		t.Errorf("Find of a missing folder = %q, %v", dir, looked)
	}
}
