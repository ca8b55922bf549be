package codever

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A synthetic module: package lib (two files) and package app, whose Fit
// is the root.
var reachModule = map[string]string{
	"go.mod": "module " + modulePath + "\n\ngo 1.26\n\nrequire (\n\tgonum.org/v1/gonum v0.17.0\n\texample.com/unused v1.0.0\n)\n",
	"lib/a.go": `package lib

import "gonum.org/v1/gonum/floats"

// Scale multiplies by the learner's factor.
func Scale(x []float64) float64 { return factor * floats.Sum(x) }

const factor = 2

// Unused is reached by nothing.
func Unused() int { return 1 }

type Model struct {
	W    []float64
	Name string
}

// Name is a method named as a field of Model; no fit calls it.
func (m *Model) Label() string { return "model" }

func (m *Model) String() string { return "model" }

func (m *Model) Predict() float64 { return Scale(m.W) }

type Kind int

const (
	KindA Kind = iota
	KindB
)

var registry = map[string]int{}

func init() { registry["x"] = 1 }

func init() { other = 3 }

var other int

func Lookup(k string) int { return registry[k] }

//go:embed table.txt
var table string

func Table() string { return table }
`,
	"lib/b.go": `package lib

func helper() int { return 7 }

func Describe(m *Model) string { return m.Name }
`,
	"lib/table.txt": "1 2 3\n",
	"app/app.go": `package app

import "` + modulePath + `/lib"

func Fit(x []float64) float64 {
	m := &lib.Model{W: x}
	_ = m.Name
	return m.Predict() + float64(lib.KindB) + float64(lib.Lookup("x"))
}

func FitTable() string { return lib.Table() }

func Stop() int { return 1 }

func FitStopped() int { return Stop() }

func Other(v interface{ Label() string }) string { return v.Label() }
`,
}

// reachHash is the hash of the module at root from roots (stops: app.Stop).
func reachHash(t *testing.T, root string, roots ...string) string {
	t.Helper()
	h, err := SourceAt(root, roots, []string{"app.Stop"})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func reachDecls(t *testing.T, root string, roots ...string) []string {
	t.Helper()
	m, err := newModSource(os.DirFS(root).(source))
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.reached(roots, []string{"app.Stop"})
	if err != nil {
		t.Fatal(err)
	}
	return r.decls()
}

func TestReachedDecls(t *testing.T) {
	root := fakeModule(t, reachModule)
	got := reachDecls(t, root, "app.Fit")
	want := []string{
		"app.Fit",
		"lib.Kind", "lib.Lookup", "lib.Model", "lib.Model.Predict", "lib.Model.String", // String: fmt calls it
		"lib.Scale", "lib.const factor", "lib.const(KindA,KindB)", "lib.init", "lib.var registry",
	}
	if !slices.Equal(got, want) {
		t.Errorf("reached %v\nwant     %v", got, want)
	}
	// A method called through an interface is reached by its name.
	if got := reachDecls(t, root, "app.Other", "app.Fit"); !slices.Contains(got, "lib.Model.Label") {
		t.Errorf("Label called through an interface is not reached: %v", got)
	}
	if got := reachDecls(t, root, "app.FitStopped"); !slices.Equal(got, []string{"app.FitStopped"}) {
		t.Errorf("a stop was followed: %v", got)
	}
	if _, err := SourceAt(root, []string{"app.Missing"}, nil); err == nil || !strings.Contains(err.Error(), "Missing") {
		t.Errorf("a missing root: %v", err)
	}
	// An external test package's type (its path names no directory).
	if _, err := SourceAt(root, []string{"app_test.T.Run"}, nil); !errors.Is(err, ErrUndeclared) {
		t.Errorf("a root in an external test package: %v, want ErrUndeclared", err)
	}
	if _, err := SourceAt(root, []string{"lib.Model.Missing"}, nil); err == nil {
		t.Error("a missing method root: no error")
	}
}

// TestReachedHash: what changes the hash of app.Fit and what does not.
func TestReachedHash(t *testing.T) {
	for _, c := range []struct {
		name    string
		file    string
		old     string
		new     string
		changes bool
	}{
		{"a comment", "lib/a.go", "// Scale multiplies by the learner's factor.", "// Scale multiplies (edited).", false},
		{"a comment in a body", "lib/a.go", "{ return Scale(m.W) }", "{ /* why */ return Scale(m.W) // because\n}", false},
		{"layout", "lib/a.go", "func Scale(x []float64) float64 { return factor * floats.Sum(x) }",
			"func Scale(\n\tx []float64,\n) float64 {\n\n\treturn factor *\n\t\tfloats.Sum(\n\t\t\tx,\n\t\t)\n}", false},
		{"an unreached function", "lib/a.go", "func Unused() int { return 1 }", "func Unused() int { return 2 }", false},
		{"an unreached file", "lib/b.go", "return 7", "return 8", false},
		{"a method not called", "lib/a.go", `func (m *Model) Label() string { return "model" }`, `func (m *Model) Label() string { return "m" }`, false},
		{"an init that touches no reached variable", "lib/a.go", "other = 3", "other = 4", false},
		{"an unused module's version", "go.mod", "example.com/unused v1.0.0", "example.com/unused v1.1.0", false},
		{"a constant", "lib/a.go", "const factor = 2", "const factor = 3", true},
		{"a reached function", "app/app.go", `lib.Lookup("x")`, `lib.Lookup("y")`, true},
		{"a method called", "lib/a.go", "{ return Scale(m.W) }", "{ return Scale(m.W) + 1 }", true},
		{"an implicit method", "lib/a.go", `func (m *Model) String() string { return "model" }`, `func (m *Model) String() string { return "M" }`, true},
		{"an iota group's order", "lib/a.go", "KindA Kind = iota\n\tKindB", "KindB Kind = iota\n\tKindA", true},
		{"a field of a reached type", "lib/a.go", "Name string\n", "Name string\n\tTag  string\n", true},
		{"an init that writes a reached variable", "lib/a.go", `registry["x"] = 1`, `registry["x"] = 2`, true},
		{"a used module's version", "go.mod", "gonum.org/v1/gonum v0.17.0", "gonum.org/v1/gonum v0.16.0", true},
		{"the go directive", "go.mod", "go 1.26", "go 1.27", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := fakeModule(t, reachModule)
			h0 := reachHash(t, root, "app.Fit")
			p := filepath.Join(root, filepath.FromSlash(c.file))
			b, _ := os.ReadFile(p)
			if !strings.Contains(string(b), c.old) {
				t.Fatalf("%s has no %q", c.file, c.old)
			}
			writeFile(t, p, strings.Replace(string(b), c.old, c.new, 1))
			if h := reachHash(t, root, "app.Fit"); (h != h0) != c.changes {
				t.Errorf("hash changed %v, want %v", h != h0, c.changes)
			}
		})
	}
}

// TestReachedLayoutFree: moving declarations between files, or the package
// to another directory, keeps the hash; an embedded file counts when the
// variable is reached.
func TestReachedLayoutFree(t *testing.T) {
	root := fakeModule(t, reachModule)
	h0 := reachHash(t, root, "app.Fit")
	// Predict moves from a.go to b.go.
	a, _ := os.ReadFile(filepath.Join(root, "lib", "a.go"))
	pred := "func (m *Model) Predict() float64 { return Scale(m.W) }\n"
	writeFile(t, filepath.Join(root, "lib", "a.go"), strings.Replace(string(a), pred, "", 1))
	b, _ := os.ReadFile(filepath.Join(root, "lib", "b.go"))
	writeFile(t, filepath.Join(root, "lib", "b.go"), string(b)+"\n"+pred)
	if h := reachHash(t, root, "app.Fit"); h != h0 {
		t.Error("moving a method to another file changed the hash")
	}
	// lib moves to internal/lib (same package name).
	if err := os.MkdirAll(filepath.Join(root, "internal"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "lib"), filepath.Join(root, "internal", "lib")); err != nil {
		t.Fatal(err)
	}
	app, _ := os.ReadFile(filepath.Join(root, "app", "app.go"))
	writeFile(t, filepath.Join(root, "app", "app.go"), strings.Replace(string(app), modulePath+"/lib", modulePath+"/internal/lib", 1))
	if h := reachHash(t, root, "app.Fit"); h != h0 {
		t.Error("moving the package to another directory changed the hash")
	}
	// The embedded file.
	t0 := reachHash(t, root, "app.FitTable")
	writeFile(t, filepath.Join(root, "internal", "lib", "table.txt"), "1 2 4\n")
	if reachHash(t, root, "app.FitTable") == t0 {
		t.Error("editing an embedded file kept the hash of the code that reads it")
	}
	if reachHash(t, root, "app.Fit") != h0 {
		t.Error("editing an embedded file changed the hash of code that does not read it")
	}
}

// TestReachedCommit: the commit is "+dirty" only when the reached code
// differs from the commit's, not for comments or other code.
func TestReachedCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := fakeModule(t, reachModule)
	_, head := gitCommitted(t, root)
	version := func(roots ...string) CodeVersion {
		t.Helper()
		if len(roots) == 0 {
			roots = []string{"app.Fit"}
		}
		// Afresh: the process caches parsed trees by module root.
		workTree, headTrees = &parsedTrees{m: map[string]*modSource{}}, &parsedTrees{m: map[string]*modSource{}}
		v, err := codeAt(root, roots, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	clean := version()
	if clean.Commit != head {
		t.Fatalf("a clean checkout: %+v, want commit %s", clean, head)
	}
	edit := func(file, old, new string) {
		p := filepath.Join(root, filepath.FromSlash(file))
		b, _ := os.ReadFile(p)
		writeFile(t, p, strings.Replace(string(b), old, new, 1))
	}
	edit("lib/a.go", "// Scale multiplies", "// Scale, edited, multiplies")
	edit("lib/b.go", "return 7", "return 8")
	writeFile(t, filepath.Join(root, "lib", "new.go"), "package lib\n\nfunc New() int { return 1 }\n")
	if v := version(); v != clean {
		t.Errorf("a comment, an unreached function and a new file: %+v, want %+v", v, clean)
	}
	edit("lib/a.go", "const factor = 2", "const factor = 3")
	if v := version(); v.Commit != head+"+dirty" || v.Source == clean.Source {
		t.Errorf("a reached constant edited: %+v, want commit %s+dirty and a new source", v, head)
	}
	if v := version("app.FitTable"); v.Commit != head {
		t.Errorf("nothing FitTable reaches changed: %+v, want commit %s", v, head)
	}
	writeFile(t, filepath.Join(root, "lib", "table.txt"), "changed\n")
	if v := version("app.FitTable"); v.Commit != head+"+dirty" {
		t.Errorf("an embedded file edited: %+v, want commit %s+dirty", v, head)
	}
	workTree, headTrees = &parsedTrees{m: map[string]*modSource{}}, &parsedTrees{m: map[string]*modSource{}}
}

// pool is a type with a pointer method, for TestFuncDecl.
type pool struct{ n int }

func (p *pool) Len() int { return p.n }

func TestFuncDecl(t *testing.T) {
	s := &pool{}
	for _, c := range []struct {
		fn   any
		want string
	}{
		{CodeOf, "internal/codever.CodeOf"},
		{CodeVersion.String, "internal/codever.CodeVersion.String"},
		{s.Len, "internal/codever.pool.Len"},
		{(*pool).Len, "internal/codever.pool.Len"},
		{os.ReadFile, ""},
		{nil, ""},
		{3, ""},
	} {
		if got := FuncDecl(c.fn); got != c.want {
			t.Errorf("FuncDecl(%T) = %q, want %q", c.fn, got, c.want)
		}
	}
	closure := func() string { return "x" }
	if got := FuncDecl(closure); got != "internal/codever.TestFuncDecl" {
		t.Errorf("a closure's declaration: %q", got)
	}
	// A closure inlined into another function is named after both; the
	// pair names the outer function when it is no method.
	root := fakeModule(t, reachModule)
	if a, b := reachHash(t, root, "app.Fit.Inlined"), reachHash(t, root, "app.Fit"); a != b {
		t.Error("app.Fit.Inlined does not name app.Fit")
	}
	if got := MethodDecl(CodeVersion{}, "String"); got != "internal/codever.CodeVersion.String" {
		t.Errorf("MethodDecl: %q", got)
	}
	if got := MethodDecl(s, "Len"); got != "internal/codever.pool.Len" {
		t.Errorf("MethodDecl of a pointer: %q", got)
	}
	if got := MethodDecl(s, "Nope"); got != "" {
		t.Errorf("MethodDecl of a missing method: %q", got)
	}
}

// BenchmarkCodeOf measures a protocol's code version on this checkout:
// "fresh" parses what the cows protocol reaches and hashes it (the first
// version of a process), "parsed" only reaches and hashes (every further
// protocol of the process), "head" reads and parses HEAD's tree through git
// (when git status lists changes in the reached packages).
func BenchmarkCodeOf(b *testing.B) {
	root, err := sourceRoot()
	if err != nil {
		b.Skip(err)
	}
	roots, stops := []string{"notebooks/cows.Experiment.Run"}, append([]string{"notebooks/protocol.RunStaged", "data.BuilderSource"}, selfStops()...)
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			m, err := newModSource(os.DirFS(root).(source))
			if err != nil {
				b.Fatal(err)
			}
			r, err := m.reached(roots, stops)
			if err != nil {
				b.Fatal(err)
			}
			r.hash()
		}
	})
	b.Run("parsed", func(b *testing.B) {
		m, _ := newModSource(os.DirFS(root).(source))
		for b.Loop() {
			r, err := m.reached(roots, stops)
			if err != nil {
				b.Fatal(err)
			}
			r.hash()
		}
	})
	b.Run("head", func(b *testing.B) {
		if _, err := exec.LookPath("git"); err != nil {
			b.Skip("no git")
		}
		for b.Loop() {
			m, err := headTrees.load(root)
			if err != nil {
				b.Skip(err)
			}
			if _, err := m.reached(roots, stops); err != nil {
				b.Fatal(err)
			}
			headTrees = &parsedTrees{m: map[string]*modSource{}}
		}
	})
}

// TestModuleDecls logs how many declarations the module has, for the
// share a protocol's version hashes.
func TestModuleDecls(t *testing.T) {
	root, err := sourceRoot()
	if err != nil {
		t.Skip(err)
	}
	m, err := newModSource(os.DirFS(root).(source))
	if err != nil {
		t.Fatal(err)
	}
	n, pkgs := 0, 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "out") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			rel = ""
		}
		pk, err := m.load(filepath.ToSlash(rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
		}
		if pk == nil {
			return nil
		}
		n += len(pk.units)
		pkgs++
		return nil
	})
	t.Logf("%d declarations in %d packages", n, pkgs)
}
