package codever

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/probably-submodular/crf/internal/modroot"
)

// modulePath is the module whose source results depend on.
const modulePath = modroot.Path

// CodeVersion says which code computed a stored result. Source decides
// whether the result is stale; Commit is for people.
type CodeVersion struct {
	// Commit is the git commit of the checkout ("unknown" outside one),
	// with "+dirty" when the code hashed in Source differs from that
	// commit's.
	Commit string `json:"commit"`
	// Source is a 16-hex-digit hash of the code: of the code a fit
	// executes (CodeOf), or of the whole library source (CurrentCode); ""
	// when it could not be read.
	Source string `json:"source"`
}

// IsZero reports whether v records nothing (rows written before code
// versions were recorded).
func (v CodeVersion) IsZero() bool { return v == CodeVersion{} }

// Known reports whether v names a source, so that it can be compared.
func (v CodeVersion) Known() bool { return v.Source != "" }

// Same reports whether results of v and w come from the same source. An
// unknown source is never the same as anything.
func (v CodeVersion) Same(w CodeVersion) bool { return v.Known() && v.Source == w.Source }

func (v CodeVersion) String() string {
	switch {
	case v.IsZero():
		return "no code version"
	case !v.Known():
		return "commit " + v.Commit + ", source unknown"
	}
	return "commit " + v.Commit + ", source " + v.Source
}

// sourceDirs are the library packages whose non-test .go files (with go.mod
// and go.sum) make up the source of CurrentCode: what a result can depend
// on. viz/ draws and scripts/ only call them.
var sourceDirs = []string{"psub", "data", "internal", "notebooks"}

// CurrentCode returns the version of the whole library source: the sha256
// of every non-test .go file under psub/, data/, internal/ and notebooks/
// (testdata excluded) and
// of go.mod and go.sum, bytes and comments included, read from the
// module's source, and the git commit of that checkout ("+dirty" when one
// of those files has uncommitted changes). It is computed once per
// process. It versions the rows of a grid run without Options.Code (a
// JobFunc whose code is unknown), and tells whether a checkout changed at
// all (psub protocol -slurm); CodeOf versions a fit by what it executes.
//
// The source is found from this file's compile-time path (a go run, go test
// or GoNB cell compiles the source it then runs, so the files on disk are
// the ones running), else from the module root above the working
// directory. When neither holds the module, the error says so and the
// version has an empty Source, which matches nothing: results are then
// never reused (unless stale reuse is asked for).
func CurrentCode() (CodeVersion, error) { return currentCode() }

var currentCode = sync.OnceValues(func() (CodeVersion, error) {
	root, err := sourceRoot()
	if err == nil {
		var h string
		if h, err = hashSource(root, sourceDirs); err == nil {
			return CodeVersion{Commit: gitCommit(root, append(sourceDirs, "go.mod", "go.sum")), Source: h}, nil
		}
	}
	return CodeVersion{Commit: "unknown"}, err
})

// sourceRoot is the root of this module's source.
func sourceRoot() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		// This file is internal/codever/version.go.
		if root := filepath.Dir(filepath.Dir(filepath.Dir(file))); modroot.Is(root) {
			return root, nil
		}
	}
	root, err := modroot.Find("")
	if err != nil {
		return "", fmt.Errorf("code version: the source of %s is not found: %w", modulePath, err)
	}
	return root, nil
}

// hashSource hashes the files named by paths under root: a directory
// stands for its non-test .go files, recursively (testdata and hidden
// folders excluded), a file for itself; go.mod and go.sum are always
// included. Each file enters as its slash path, its length and its bytes,
// in path order, so a renamed, moved or edited file changes the hash.
func hashSource(root string, paths []string) (string, error) {
	files := map[string]bool{"go.mod": true}
	if _, err := os.Stat(filepath.Join(root, "go.sum")); err == nil {
		files["go.sum"] = true
	}
	for _, p := range paths {
		full := filepath.Join(root, filepath.FromSlash(p))
		st, err := os.Stat(full)
		if err != nil {
			return "", fmt.Errorf("code version: %w", err)
		}
		if !st.IsDir() {
			files[p] = true
			continue
		}
		err = filepath.WalkDir(full, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path != full && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && d.Type().IsRegular() {
				rel, err := filepath.Rel(root, path)
				if err != nil {
					return err
				}
				files[filepath.ToSlash(rel)] = true
			}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("code version: %w", err)
		}
	}
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			return "", fmt.Errorf("code version: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// gitCommit returns the short commit of the checkout at root, with "+dirty"
// when a file of the hashed source under paths (a non-test .go file outside
// testdata, go.mod, go.sum) has uncommitted changes or is untracked, or
// "unknown" when root is not a git checkout or git is missing. It takes no
// lock on the index (other people commit in the same tree).
func gitCommit(root string, paths []string) string { return gitStatus(root, paths, hashedFile) }

// gitStatus is gitCommit with "+dirty" when a file for which counts
// reports true has changes.
func gitStatus(root string, paths []string, counts func(string) bool) string {
	run := func(args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return git(ctx, root, nil, args...)
	}
	out, err := run("rev-parse", "--short=12", "HEAD")
	if err != nil {
		return "unknown"
	}
	commit := string(bytes.TrimSpace(out))
	status, err := run(append([]string{"status", "--porcelain", "--untracked-files=all", "--"}, paths...)...)
	if err != nil {
		return commit + "+unknown"
	}
	for _, line := range strings.Split(string(status), "\n") {
		if len(line) < 4 {
			continue
		}
		// "XY path", or "XY old -> new" for a rename: either side counts.
		for _, p := range strings.Split(line[3:], " -> ") {
			if counts(strings.Trim(p, `"`)) {
				return commit + "+dirty"
			}
		}
	}
	return commit
}

// hashedFile reports whether the slash path p (relative to the module root)
// is of the kind hashSource reads from a directory, or go.mod or go.sum.
func hashedFile(p string) bool {
	if p == "go.mod" || p == "go.sum" {
		return true
	}
	return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") &&
		!strings.HasPrefix(p, "testdata/") && !strings.Contains(p, "/testdata/")
}

// CodeOf returns the version of the code reached from roots: the
// declarations they name and, transitively, those these refer to in the
// module's non-test Go source (see doc.go, "Stale results"), not
// following stops. A root or stop is written "dir.Name" or
// "dir.Type.Method", dir the package's slash directory in the module
// ("notebooks/cows.Experiment.Run"); FuncDecl gives it for a function value.
// The functions of this file (CodeOf, FuncDecl, CurrentCode, …) are always
// stops: the hashing is not part of what it hashes.
//
// Source hashes the reached declarations without their comments and
// layout, keyed by package name and declaration name (not by file or
// directory), with go.mod's go directive and the versions of the external
// modules they refer to. Commit is the checkout's commit, "+dirty" only
// when the same hash computed from that commit's files differs. A result
// is stale exactly when its version's Source differs.
//
// It is computed once per process for each set of roots and stops; an
// error (the module's source not found, a root not declared) comes with an
// empty Source, which matches nothing.
func CodeOf(roots, stops []string) (CodeVersion, error) {
	key := strings.Join(roots, ",") + "|" + strings.Join(stops, ",")
	v, _ := codeOf.LoadOrStore(key, sync.OnceValues(func() (CodeVersion, error) {
		root, err := sourceRoot()
		if err != nil {
			return CodeVersion{Commit: "unknown"}, err
		}
		return codeAt(root, roots, stops)
	}))
	return v.(func() (CodeVersion, error))()
}

var codeOf sync.Map // roots|stops → func() (CodeVersion, error)

// codeAt is CodeOf of the module whose source is at root.
func codeAt(root string, roots, stops []string) (CodeVersion, error) {
	stops = append(slices.Clip(stops), selfStops()...)
	r, h, err := workTree.hash(root, roots, stops)
	if err != nil {
		return CodeVersion{Commit: "unknown"}, err
	}
	return CodeVersion{Commit: reachedCommit(root, r, h, roots, stops), Source: h}, nil
}

// workTree holds the working tree's packages parsed so far, by module
// root, so that the versions of several protocols in one process parse
// each package once.
var workTree = &parsedTrees{m: map[string]*modSource{}}

type parsedTrees struct {
	mu sync.Mutex
	m  map[string]*modSource
}

func (t *parsedTrees) hash(root string, roots, stops []string) (*reach, string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.m[root]
	if m == nil {
		var err error
		if m, err = newModSource(os.DirFS(root).(source)); err != nil {
			return nil, "", err
		}
		t.m[root] = m
	}
	r, err := m.reached(roots, stops)
	if err != nil {
		return nil, "", err
	}
	h, err := r.hash()
	return r, h, err
}

// selfStops are the declarations of the code versions themselves.
func selfStops() []string {
	dir := strings.TrimPrefix(strings.TrimPrefix(reflect.TypeFor[CodeVersion]().PkgPath(), modulePath), "/")
	return []string{dir + ".CodeOf", dir + ".CodeDecls", dir + ".CurrentCode", dir + ".FuncDecl", dir + ".MethodDecl"}
}

// FuncDecl names the declaration of function fn for CodeOf: "dir.Name" or
// "dir.Type.Method" (a method value's method; a closure's enclosing
// function), dir its package's directory in the module; "" for a function
// outside the module or when fn is not a function.
func FuncDecl(fn any) string {
	v := reflect.ValueOf(fn)
	if v.Kind() != reflect.Func || v.IsNil() {
		return ""
	}
	f := runtime.FuncForPC(v.Pointer())
	if f == nil {
		return ""
	}
	name, ok := strings.CutPrefix(f.Name(), modulePath+"/")
	if !ok {
		return ""
	}
	name = strings.TrimSuffix(name, "-fm")
	// Drop type arguments, and the closures' and wrappers' suffixes
	// (".func1", ".func1.2", ".gowrap1").
	name = typeArgs.ReplaceAllString(name, "")
	slash := strings.LastIndex(name, "/") + 1
	parts := strings.Split(name[slash:], ".")
	for i, p := range parts {
		if i > 0 && (strings.Trim(p, "0123456789") == "" || strings.HasPrefix(p, "func") && strings.Trim(p[4:], "0123456789") == "" ||
			strings.HasPrefix(p, "gowrap")) {
			parts = parts[:i]
			break
		}
	}
	// A closure inlined into another function is named after both
	// ("F.G.func1"): keep two names, which CodeOf reads as the method G of
	// type F, or else as the function F.
	parts = parts[:min(len(parts), 3)]
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(strings.TrimPrefix(p, "(*"), ")")
	}
	return name[:slash] + strings.Join(parts, ".")
}

// typeArgs matches a function name's type arguments: from a "[" to the
// next "]".
var typeArgs = regexp.MustCompile(`\[[^\]]*\]`)

// reachedCommit is the commit of the checkout at root, "+dirty" when the
// hash h of the reached code r differs from the hash of the same roots
// computed from the commit's files. Uncommitted changes elsewhere, or
// only in comments and layout, leave it clean; only when git reports
// changes in the reached packages is the commit's hash computed.
func reachedCommit(root string, r *reach, h string, roots, stops []string) string {
	paths := []string{"go.mod"}
	for _, d := range r.dirs() {
		paths = append(paths, cmp.Or(d, "."))
	}
	// git status lists the folders' subfolders too, and any file (an
	// embedded one may count): a change there costs the commit's hash, and
	// does not make the version dirty.
	commit := gitStatus(root, paths, func(p string) bool {
		return !strings.HasSuffix(p, "_test.go") && !strings.HasPrefix(p, "testdata/") && !strings.Contains(p, "/testdata/")
	})
	base, dirty := strings.CutSuffix(commit, "+dirty")
	if !dirty {
		return commit
	}
	m, err := headTrees.load(root)
	if err != nil {
		return commit
	}
	headTrees.mu.Lock()
	defer headTrees.mu.Unlock()
	rh, err := m.reached(roots, stops)
	if err != nil {
		return commit
	}
	if hh, err := rh.hash(); err == nil && hh == h {
		return base
	}
	return commit
}

// headTrees holds the HEAD commit's packages parsed so far, by module root
// (read once per process: a commit made while it runs is not seen).
var headTrees = &parsedTrees{m: map[string]*modSource{}}

func (t *parsedTrees) load(root string) (*modSource, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m := t.m[root]; m != nil {
		return m, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := git(ctx, root, nil, "rev-parse", "HEAD")
	if err != nil {
		return nil, err
	}
	tree, err := newGitTree(root, strings.TrimSpace(string(out)))
	if err != nil {
		return nil, err
	}
	m, err := newModSource(tree)
	if err != nil {
		return nil, err
	}
	t.m[root] = m
	return m, nil
}

// MethodDecl names, for CodeOf, the declaration of the method of v's
// dynamic type (or of the type it points to): "dir.Type.Method". It is ""
// when the type is not declared in the module or has no such method. (A
// method value taken through an interface is a wrapper that FuncDecl
// cannot see through.)
func MethodDecl(v any, method string) string {
	t := reflect.TypeOf(v)
	if t == nil {
		return ""
	}
	if _, ok := t.MethodByName(method); !ok {
		if _, ok := reflect.PointerTo(t).MethodByName(method); !ok {
			return ""
		}
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	dir, ok := strings.CutPrefix(t.PkgPath(), modulePath+"/")
	if !ok || t.Name() == "" {
		return ""
	}
	return dir + "." + t.Name() + "." + method
}

// CodeDecls lists the declarations CodeOf(roots, stops) hashes, sorted, as
// "dir.Name", "dir.Type.Method", "dir.var a,b", "dir.const X" or
// "dir.const(A,B)" (dir the package's directory in the module): what a
// change must touch to change the version.
func CodeDecls(roots, stops []string) ([]string, error) {
	root, err := sourceRoot()
	if err != nil {
		return nil, err
	}
	r, _, err := workTree.hash(root, roots, append(slices.Clip(stops), selfStops()...))
	if err != nil {
		return nil, err
	}
	return r.decls(), nil
}

// SourceAt is the Source CodeOf(roots, stops) would give for the module
// whose source is at dir, computed afresh each call (no cache, no git):
// for tests and tools that compare copies of the module.
func SourceAt(dir string, roots, stops []string) (string, error) {
	m, err := newModSource(os.DirFS(dir).(source))
	if err != nil {
		return "", err
	}
	r, err := m.reached(roots, append(slices.Clip(stops), selfStops()...))
	if err != nil {
		return "", err
	}
	return r.hash()
}
