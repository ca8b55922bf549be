package notebooks_test

import (
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/internal/modroot"
	_ "github.com/probably-submodular/crf/notebooks/cows"
	_ "github.com/probably-submodular/crf/notebooks/efficiency"
	_ "github.com/probably-submodular/crf/notebooks/mito"
	_ "github.com/probably-submodular/crf/notebooks/multilabel"
	"github.com/probably-submodular/crf/notebooks/protocol"
	_ "github.com/probably-submodular/crf/notebooks/retina"
	_ "github.com/probably-submodular/crf/notebooks/samplecomplexity"
	_ "github.com/probably-submodular/crf/notebooks/tradeoff"
)

// copyModule copies the module's non-test Go source, go.mod, go.sum and
// data/checksums (embedded) into a temporary folder, with the assembly files.
func copyModule(t *testing.T) string {
	t.Helper()
	src, err := modroot.Find("")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		name := d.Name()
		if d.IsDir() {
			if p != src && (name == "testdata" || name == "out" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		keep := rel == "go.mod" || rel == "go.sum" || filepath.Dir(rel) == filepath.Join("data", "checksums") ||
			strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, ".s")
		if !keep {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// edit replaces old (which must occur once) by new in the slash path file
// of the module at root, and gofmt's the result (an edit must leave the
// file as gofmt writes it, as every file of the module is).
func edit(t *testing.T, root, file, old, new string) {
	t.Helper()
	editRaw(t, root, file, old, new)
	p := filepath.Join(root, filepath.FromSlash(file))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	out, err := format.Source(b)
	if err != nil {
		t.Fatalf("%s after the edit: %v", file, err)
	}
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCodeFollowsTheFit: a protocol's code version (Code) changes with the
// code its fits execute and only with it. On a copy of the module: a
// comment edit in the learner, a reformatting and a function moved to
// another file keep every protocol's version; a constant the learner
// uses changes the version of the protocols that train; a change in the
// multi-label loader changes the multi-label protocol's only; changes in
// a table function or in viz change none.
func TestCodeFollowsTheFit(t *testing.T) {
	if testing.Short() {
		t.Skip("copies and hashes the module several times")
	}
	root := copyModule(t)
	versions := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, p := range protocol.All() {
			roots, stops := protocol.CodeRoots(p)
			h, err := codever.SourceAt(root, roots, stops)
			if err != nil {
				t.Fatalf("%s: %v", p.Name(), err)
			}
			out[p.Name()] = h
		}
		return out
	}
	base := versions()
	if len(base) != len(protocol.All()) {
		t.Fatalf("versions %v", base)
	}
	before := base
	step := func(what string, want []string, edits func()) {
		t.Helper()
		edits()
		after := versions()
		var got []string
		for n, h := range after {
			if h != before[n] {
				got = append(got, n)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s changed the versions of %v, want %v", what, got, want)
		}
		before = after
	}
	none := []string(nil)
	step("a comment edit in psub/learner.go", none, func() {
		edit(t, root, "psub/learner.go", "func relGap(primal, dual float64) float64 {",
			"// relGap is the relative gap (a comment added by a test).\nfunc relGap(primal, dual float64) float64 { // and another")
		edit(t, root, "psub/learner.go", "func resizeInts(s []int, n int) []int {", "/* a block comment */ func resizeInts(s []int, n int) []int {")
	})
	step("reformatting psub/learner.go", none, func() {
		edit(t, root, "psub/learner.go", "return math.Max(0, dual-primal)", "return math.Max(\n0,\n\ndual-primal,\n)")
		edit(t, root, "psub/learner.go", "func relGap(primal, dual float64) float64 {", "func relGap(\nprimal,\ndual float64,\n) float64 {\n\n")
	})
	step("moving resizeInts to another file of psub", none, func() {
		edit(t, root, "psub/learner.go", "func resizeInts(s []int, n int) []int {", "func resizeIntsGone(s []int, n int) []int {")
		edit(t, root, "psub/learner.go", "func resizeIntsGone(", "func resizeInts(")
		p := filepath.Join(root, "psub", "learner.go")
		b, _ := os.ReadFile(p)
		fn := "func resizeInts(s []int, n int) []int {\n\tif cap(s) < n {\n\t\treturn make([]int, n)\n\t}\n\treturn s[:n]\n}\n"
		if !strings.Contains(string(b), fn) {
			t.Fatalf("psub/learner.go has no %q: update the test", fn)
		}
		os.WriteFile(p, []byte(strings.Replace(string(b), fn, "", 1)), 0o644)
		os.WriteFile(filepath.Join(root, "psub", "moved.go"), []byte("package psub\n\n// Moved here by a test.\n"+fn), 0o644)
	})
	step("a table function of the cows", none, func() {
		edit(t, root, "notebooks/cows/cows_tables.go", "func (Experiment) AccuracyBars(final []protocol.Row, s protocol.SegmentationSettings, loss string) protocol.Bars {",
			"func (Experiment) AccuracyBars(final []protocol.Row, s protocol.SegmentationSettings, loss string) protocol.Bars {\n\tloss = loss + \"\"")
	})
	step("viz", none, func() {
		b, err := os.ReadFile(filepath.Join(root, "viz", "chart", "chart.go"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, "viz", "chart", "chart.go"), append(b, "\nvar addedByATest = 1\n"...), 0o644)
	})
	step("the multi-label loader", []string{"multilabel"}, func() {
		edit(t, root, "data/multilabel_data.go", "dir, err := Find(path, sp.dir)", "dir, err := Find(path, sp.dir+\"\")")
	})
	// The learner's refresh of its working set: every protocol trains
	// with psub.Train.
	step("a constant of the learner", []string{"cows", "efficiency", "mito", "multilabel", "retina", "sample-complexity", "tradeoff"}, func() {
		edit(t, root, "psub/learner.go", "const refreshRounds = 64", "const refreshRounds = 65")
	})
	// SLIC's colour conversion: only the protocols on images reach it (not
	// the multi-label data, nor the tradeoff's synthetic grids).
	step("a constant of SLIC", []string{"cows", "efficiency", "mito", "retina", "sample-complexity"}, func() {
		edit(t, root, "psub/slic/lab.go", "const lutSize = 16384", "const lutSize = 16383")
	})
	// SLIC's kernels in assembly: the Go declarations have no body, so
	// the package's .s files count, without their comments and layout.
	asm := "psub/slic/kernels_amd64.s"
	step("a comment and layout in SLIC's assembly", none, func() {
		editRaw(t, root, asm, "TEXT ·convRowsSSE(SB), NOSPLIT, $0-80", "// a comment added by a test\n\nTEXT  ·convRowsSSE(SB),   NOSPLIT, $0-80 /* and another */")
	})
	step("an instruction of SLIC's assembly", []string{"cows", "efficiency", "mito", "retina", "sample-complexity"}, func() {
		editRaw(t, root, asm, "NOSPLIT, $0-80 /* and another */", "NOSPLIT, $0-80\n\tNOP")
	})
}

// editRaw replaces old (which must occur once) by new in file, as it is
// (edit then gofmt's a Go file; an assembly file stays as written).
func editRaw(t *testing.T, root, file, old, new string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(file))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		t.Fatalf("%s holds %q %d times, want once: update the test's edit", file, old, n)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCodeDecls: each protocol's version hashes part of the module, not
// all of it: none reaches viz or another protocol's Run, the cows do not
// reach the multi-label loader, and no protocol reaches the runner.
func TestCodeDecls(t *testing.T) {
	all := map[string][]string{}
	for _, p := range protocol.All() {
		roots, stops := protocol.CodeRoots(p)
		decls, err := codever.CodeDecls(roots, stops)
		if err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		all[p.Name()] = decls
		t.Logf("%s: %d declarations", p.Name(), len(decls))
		for _, d := range decls {
			if strings.HasPrefix(d, "viz/") || d == "notebooks/grid.Run" || d == "notebooks/protocol.RunStaged" || d == "internal/codever.CodeOf" {
				t.Errorf("%s reaches %s", p.Name(), d)
			}
			pkg := func(d string) string { return d[:strings.Index(d, ".")] }
			if strings.HasSuffix(d, ".Run") && strings.HasPrefix(d, "notebooks/") && pkg(d) != pkg(roots[0]) &&
				d != "notebooks/protocol.SegmentationExperiment.Run" {
				t.Errorf("%s reaches another protocol's %s", p.Name(), d)
			}
		}
	}
	if slices.Contains(all["cows"], "data.loadMultiLabel") || !slices.Contains(all["multilabel"], "data.loadMultiLabel") {
		t.Error("the multi-label loader is reached by the cows, or not by the multi-label protocol")
	}
	if !slices.Contains(all["cows"], "psub.Train") || !slices.Contains(all["cows"], "psub.const refreshRounds") {
		t.Errorf("the cows do not reach the learner: %d declarations", len(all["cows"]))
	}
}
