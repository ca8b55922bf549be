package modroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A tree with the module at top/, another module's go.mod below it and a
// folder above it without any: Find stops at this module's go.mod only.
func TestFind(t *testing.T) {
	root := t.TempDir()
	top := filepath.Join(root, "top")
	write(t, filepath.Join(top, "go.mod"), "// a comment\nmodule "+Path+"\n\ngo 1.26\n")
	write(t, filepath.Join(top, "other", "go.mod"), "module example.com/other\n")
	write(t, filepath.Join(top, "quoted", "go.mod"), `module "`+Path+`"`+"\n")
	write(t, filepath.Join(top, "prefix", "go.mod"), "module "+Path+"/sub\n")
	deep := filepath.Join(top, "other", "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, want string }{
		{top, top},
		{deep, top},
		{filepath.Join(top, "other"), top},
		{filepath.Join(top, "prefix"), top},
		{filepath.Join(top, "quoted"), filepath.Join(top, "quoted")},
	} {
		if got, err := Find(tc.from); err != nil || got != tc.want {
			t.Errorf("Find(%s) = %q, %v; want %q", tc.from, got, err, tc.want)
		}
	}
	if Is(filepath.Join(top, "other")) || Is(root) || !Is(top) {
		t.Error("Is: wrong answer for other/, the folder above or top/")
	}
	_, err := Find(root)
	if err == nil || !strings.Contains(err.Error(), "no go.mod of module "+Path) || !strings.Contains(err.Error(), root) {
		t.Errorf("Find above the module: %v, want an error naming the module and the start", err)
	}
}

// From the working directory (this package's folder under go test) Find
// reaches this checkout's root, which holds internal/modroot.
func TestFindFromWorkingDirectory(t *testing.T) {
	root, err := Find("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "modroot", "modroot.go")); err != nil {
		t.Errorf("root %s does not hold this package: %v", root, err)
	}
}
