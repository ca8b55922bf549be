package grid

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
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
	// with "+dirty" when the source below differs from it.
	Commit string `json:"commit"`
	// Source is the first 16 hex digits of the sha256 of the module's
	// library source (see CurrentCode); "" when it could not be read.
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
var sourceDirs = []string{"psub", "data"}

var (
	codeOnce sync.Once
	codeVal  CodeVersion
	codeErr  error
)

// CurrentCode returns the version of the code running: the sha256 of every
// non-test .go file under psub/ and data/ (testdata excluded) and of go.mod
// and go.sum, read from the module's source, and the git commit of that
// checkout. It is computed once per process.
//
// The source is found from this file's compile-time path (a go run, go test
// or GoNB cell compiles the source it then runs, so the files on disk are
// the ones running), else from the module root above the working
// directory. When neither holds the module, the error says so and the
// version has an empty Source, which matches nothing: results are then
// never reused (unless stale reuse is asked for).
func CurrentCode() (CodeVersion, error) {
	codeOnce.Do(func() {
		root, err := sourceRoot()
		if err != nil {
			codeVal, codeErr = CodeVersion{Commit: "unknown"}, err
			return
		}
		h, err := hashSource(root, sourceDirs)
		if err != nil {
			codeVal, codeErr = CodeVersion{Commit: "unknown"}, err
			return
		}
		codeVal = CodeVersion{Commit: gitCommit(root, append(sourceDirs, "go.mod", "go.sum")), Source: h}
	})
	return codeVal, codeErr
}

// HashSource is the hash CurrentCode computes, of other parts of the
// module's source: paths are slash paths from the module root, a folder
// standing for its non-test .go files (recursively, testdata excluded), a
// file for itself; go.mod and go.sum always count. Caches whose entries
// depend on less than the whole library key on it (package data's segment
// cache).
func HashSource(paths []string) (string, error) {
	root, err := sourceRoot()
	if err != nil {
		return "", err
	}
	return hashSource(root, paths)
}

// sourceRoot is the root of this module's source.
func sourceRoot() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		// This file is data/grid/version.go.
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
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
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
func gitCommit(root string, paths []string) string {
	run := func(args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		return cmd.Output()
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
			if hashedFile(strings.Trim(p, `"`)) {
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
