package data

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/probably-submodular/crf/internal/modroot"
)

// EnvVar names the environment variable that points at the data folder (the
// folder holding yeast/, scene/, tud_cows/, ...), e.g. PSUB_DATA=../shared/data.
const EnvVar = "PSUB_DATA"

// DefaultRelDir is where the data folder is looked for when neither an
// explicit path nor EnvVar is given, relative to the module root (the
// directory holding this module's go.mod).
const DefaultRelDir = "../shared/data"

// ErrNotFound is wrapped by every error of Locator.Find when a data set is
// missing, so tests can skip with errors.Is(err, data.ErrNotFound).
var ErrNotFound = errors.New("data set not found")

// Locator finds the folder of a data set. The zero value reads the process
// environment and working directory. The order is:
//
//  1. Path, when set, is authoritative: the data set must be in it, or Path
//     must be the data set's own folder (a path given by the user is never
//     silently replaced by another copy);
//  2. the folder named by $PSUB_DATA, which must exist: a $PSUB_DATA that
//     names no folder (a typo, an unmounted disk) is an error, never
//     silently replaced by the next place; when the folder exists but
//     lacks the data set, the search goes on and a warning naming
//     $PSUB_DATA and the folder used is written to Warn;
//  3. ../shared/data relative to the module root, found by walking up from
//     the working directory to go.mod (so it works from notebooks/ under
//     GoNB and from a package directory under go test).
//
// Image and volume loaders reuse it with their own sub-folder names.
type Locator struct {
	Path    string              // explicit data folder; "" to search
	Getenv  func(string) string // nil means os.Getenv
	WorkDir string              // "" means os.Getwd
	Warn    io.Writer           // nil means os.Stderr
}

// Find returns the folder sub (e.g. "yeast") inside the first data folder of
// the search order that has it. The error lists every place looked at and how
// to get the data.
func (l Locator) Find(sub string) (string, error) {
	var looked []string
	check := func(root, why string) (string, bool) {
		dir := filepath.Join(root, sub)
		st, err := os.Stat(dir)
		switch {
		case err == nil && st.IsDir():
			return dir, true
		case err == nil:
			looked = append(looked, fmt.Sprintf("%s (%s): not a directory", dir, why))
		default:
			looked = append(looked, fmt.Sprintf("%s (%s): does not exist", dir, why))
		}
		return "", false
	}
	if l.Path != "" {
		if dir, ok := check(l.Path, "explicit path"); ok {
			return dir, nil
		}
		// Also accept the data set's own folder (…/data/yeast for "yeast").
		if filepath.Base(filepath.Clean(l.Path)) == sub {
			if st, err := os.Stat(l.Path); err == nil && st.IsDir() {
				return l.Path, nil
			}
		}
		return "", l.notFound(sub, looked)
	}
	getenv := l.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	env := getenv(EnvVar)
	if env != "" {
		if st, err := os.Stat(env); err != nil || !st.IsDir() {
			why := "does not exist"
			if err == nil {
				why = "is not a folder"
			} else if !errors.Is(err, fs.ErrNotExist) {
				why = err.Error()
			}
			looked = append(looked, fmt.Sprintf("$%s=%s: %s (the other places are not searched: fix or unset $%s)", EnvVar, env, why, EnvVar))
			return "", l.notFound(sub, looked)
		}
		if dir, ok := check(env, "$"+EnvVar); ok {
			return dir, nil
		}
	} else {
		looked = append(looked, "$"+EnvVar+": not set")
	}
	root, err := l.ModuleRoot()
	if err != nil {
		looked = append(looked, fmt.Sprintf("%s relative to the module root: %v", DefaultRelDir, err))
	} else if dir, ok := check(filepath.Join(root, DefaultRelDir), DefaultRelDir+" relative to the module root "+root); ok {
		if env != "" {
			w := l.Warn
			if w == nil {
				w = os.Stderr
			}
			fmt.Fprintf(w, "warning: data set %q is not in $%s=%s; using %s\n", sub, EnvVar, env, dir)
		}
		return dir, nil
	}
	return "", l.notFound(sub, looked)
}

func (l Locator) notFound(sub string, looked []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%q: %v; looked in:", sub, ErrNotFound)
	for _, s := range looked {
		b.WriteString("\n  - " + s)
	}
	fmt.Fprintf(&b, "\nto get it: run scripts/fetch-data %s (downloads the originals and checks their sha256), "+
		"then pass the data folder explicitly or set %s to it", sub, EnvVar)
	return &notFoundError{msg: b.String()}
}

type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

// ModuleRoot walks up from l.WorkDir (the working directory when empty) to
// the directory whose go.mod declares this module (internal/modroot).
func (l Locator) ModuleRoot() (string, error) { return modroot.Find(l.WorkDir) }

// Find is Locator{Path: path}.Find(sub): the folder of data set sub, from an
// explicit data folder path ("" to search $PSUB_DATA, then ../shared/data).
func Find(path, sub string) (string, error) { return Locator{Path: path}.Find(sub) }

// OutDir returns the default folder for results, out/ under the module root
// (or under the working directory when no go.mod is found).
func OutDir() string {
	root, err := Locator{}.ModuleRoot()
	if err != nil {
		return "out"
	}
	return filepath.Join(root, "out")
}

// ResultsPath returns out/<name> under the module root (see OutDir), the
// default place of results files (grid.Options.Results).
func ResultsPath(name string) string { return filepath.Join(OutDir(), name) }
