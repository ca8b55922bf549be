package codever

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/modroot"
)

// fakeModule writes a module tree under a temporary folder.
func fakeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, content)
	}
	return root
}

func TestHashSource(t *testing.T) {
	root := fakeModule(t, map[string]string{
		"go.mod":               "module " + modulePath + "\n",
		"go.sum":               "",
		"psub/a.go":            "package psub\n// a comment\n",
		"psub/a_test.go":       "package psub\n",
		"psub/inner/b.go":      "package inner\n",
		"psub/testdata/x.go":   "package x\n",
		"psub/README.md":       "docs\n",
		"data/c.go":            "package data\n",
		"internal/i/i.go":      "package i\n",
		"notebooks/cows/c.go":  "package cows\n",
		"viz/d.go":             "package viz\n",
		"psub/.hidden/e.go":    "package e\n",
		"notebooks/n.ipynb":    "{}",
		"data/testdata/t.json": "{}",
	})
	h0, err := hashSource(root, sourceDirs)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(h0) {
		t.Fatalf("hash %q", h0)
	}
	for _, c := range []struct {
		file, content string
		changes       bool
	}{
		{"psub/a.go", "package psub\n// a comment, touched\n", true},
		{"psub/inner/b.go", "package inner // x\n", true},
		{"data/c.go", "package data\n\n", true},
		{"go.mod", "module " + modulePath + "\n\ngo 1.26\n", true},
		{"go.sum", "example.com/x v1.0.0 h1:abc=\n", true},
		{"psub/new.go", "package psub\n", true},
		{"psub/a_test.go", "package psub // test\n", false},
		{"psub/testdata/x.go", "package y\n", false},
		{"psub/README.md", "more docs\n", false},
		{"viz/d.go", "package viz // drawing\n", false},
		{"psub/.hidden/e.go", "package f\n", false},
	} {
		p := filepath.Join(root, filepath.FromSlash(c.file))
		old, readErr := os.ReadFile(p)
		writeFile(t, p, c.content)
		h, err := hashSource(root, sourceDirs)
		if err != nil {
			t.Fatal(err)
		}
		if (h != h0) != c.changes {
			t.Errorf("editing %s: hash changed %v, want %v", c.file, h != h0, c.changes)
		}
		if readErr == nil {
			writeFile(t, p, string(old))
		} else {
			os.Remove(p)
		}
		if h, _ := hashSource(root, sourceDirs); h != h0 {
			t.Fatalf("undoing the edit of %s did not restore the hash", c.file)
		}
	}
	// Moving a file (same bytes) changes the hash.
	os.Rename(filepath.Join(root, "psub/inner/b.go"), filepath.Join(root, "psub/b.go"))
	if h, _ := hashSource(root, sourceDirs); h == h0 {
		t.Error("moving a file kept the hash")
	}
}

func TestCurrentCode(t *testing.T) {
	v, err := CurrentCode()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(v.Source) || v.Commit == "" {
		t.Fatalf("version %+v", v)
	}
	root, err := sourceRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "codever", "version.go")); err != nil || !modroot.Is(root) {
		t.Fatalf("source root %s is not this module: %v", root, err)
	}
	if w, _ := CurrentCode(); w != v {
		t.Fatal("CurrentCode changed within a process")
	}
}

func TestGitCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := fakeModule(t, map[string]string{"go.mod": "module " + modulePath + "\n", "psub/a.go": "package psub\n", "README.md": "x\n"})
	if c := gitCommit(root, []string{"psub", "go.mod"}); c != "unknown" {
		t.Fatalf("outside a checkout: %q", c)
	}
	git, head := gitCommitted(t, root)
	if c := gitCommit(root, []string{"psub", "go.mod"}); c != head {
		t.Fatalf("clean checkout: %q, want %q", c, head)
	}
	writeFile(t, filepath.Join(root, "README.md"), "changed\n")
	writeFile(t, filepath.Join(root, "psub", "new_test.go"), "package psub\n")
	writeFile(t, filepath.Join(root, "psub", "testdata", "x.go"), "package x\n")
	writeFile(t, filepath.Join(root, "psub", "NOTES.md"), "x\n")
	if c := gitCommit(root, []string{"psub", "go.mod"}); c != head {
		t.Fatalf("changes outside the hashed source: %q, want %q", c, head)
	}
	writeFile(t, filepath.Join(root, "psub", "a.go"), "package psub // edited\n")
	if c := gitCommit(root, []string{"psub", "go.mod"}); c != head+"+dirty" {
		t.Fatalf("an edited source file: %q, want %q", c, head+"+dirty")
	}
	git("add", ".")
	git("commit", "-q", "-m", "y")
	head = git("rev-parse", "--short=12", "HEAD")
	writeFile(t, filepath.Join(root, "psub", "new.go"), "package psub\n")
	if c := gitCommit(root, []string{"psub", "go.mod"}); c != head+"+dirty" {
		t.Fatalf("an untracked source file: %q, want %q", c, head+"+dirty")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitCommitted makes root a git checkout with everything committed, and
// returns a runner of git commands in it and the short commit.
func gitCommitted(t *testing.T, root string) (git func(args ...string) string, head string) {
	t.Helper()
	git = func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "x")
	return git, git("rev-parse", "--short=12", "HEAD")
}
