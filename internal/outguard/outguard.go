package outguard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A Path is a file or folder named on the command line.
type Path struct {
	// Flag names it for the user: "-o", "-train", or for a positional
	// argument its role ("IMAGE").
	Flag string
	Path string
	// Dir marks a folder: an input folder is read file by file (no output
	// may be inside it); an output folder receives files.
	Dir bool
}

func (p Path) String() string {
	if strings.HasPrefix(p.Flag, "-") {
		return p.Flag + " " + p.Path
	}
	return p.Flag + " (" + p.Path + ")"
}

// Error is Check's refusal: output Out would replace or write into input In.
type Error struct {
	Out, In Path
	Why     string
	// Both is set when In is another output: two outputs of one command
	// share a path (-o X -checkpoint X), and one would replace the other.
	Both bool
}

func (e *Error) Error() string {
	if e.Both {
		return fmt.Sprintf("%s is the same path as %s; two outputs cannot share a path: give %s another path", e.Out, e.In, e.Out.Flag)
	}
	return fmt.Sprintf("%s %s %s; outputs never overwrite inputs: give %s another path", e.Out, e.Why, e.In, e.Out.Flag)
}

// Check refuses, before any work, an output that is one of the inputs or
// lies inside an input folder (see the package doc), and two outputs at
// one path (in any spelling, or links to one file): otherwise the second
// is found to be the first's only when it is written, after the work.
// Empty paths are skipped, so optional flags can be passed as they are.
// The error is an *Error.
func Check(outputs, inputs []Path) error {
	outs, err := locate(outputs)
	if err != nil {
		return err
	}
	ins, err := locate(inputs)
	if err != nil {
		return err
	}
	for _, o := range outs {
		for _, in := range ins {
			why := ""
			switch {
			case (o.real == in.real || sameFile(o, in)) && in.Dir:
				why = "is the folder"
			case o.real == in.real:
				why = "is the same file as"
			case sameFile(o, in):
				why = "is the same file (a hard or symbolic link) as"
			case in.Dir && within(o.real, in.real):
				why = "is inside the folder"
			}
			if why != "" {
				return &Error{Out: o.Path, In: in.Path, Why: why}
			}
		}
	}
	for i, a := range outs {
		for _, b := range outs[i+1:] {
			if a.real == b.real || sameFile(a, b) {
				return &Error{Out: b.Path, In: a.Path, Both: true}
			}
		}
	}
	return nil
}

// located is a Path with its resolved form and, when it exists, its file.
type located struct {
	Path
	real string
	st   os.FileInfo
}

// locate resolves the non-empty paths.
func locate(ps []Path) ([]located, error) {
	var out []located
	for _, p := range ps {
		if p.Path == "" {
			continue
		}
		r, err := resolve(p.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		st, _ := os.Stat(p.Path)
		out = append(out, located{p, r, st})
	}
	return out, nil
}

func sameFile(a, b located) bool { return a.st != nil && b.st != nil && os.SameFile(a.st, b.st) }

// within reports whether path p lies strictly inside folder dir (both
// resolved).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// maxLinks bounds the symbolic links followed, as the kernel does (ELOOP).
const maxLinks = 40

// resolve returns the absolute path with every symbolic link replaced by
// its target, including a final link whose target does not exist yet
// (which a write would create) and folders that do not exist yet.
func resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return resolveAbs(abs, 0)
}

func resolveAbs(p string, hops int) (string, error) {
	if hops > maxLinks {
		return "", errors.New("too many levels of symbolic links")
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r, nil
	}
	st, err := os.Lstat(p)
	if err == nil && st.Mode()&os.ModeSymlink != 0 {
		// A link whose target is missing: follow it by hand.
		t, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		return resolveAbs(filepath.Clean(t), hops+1)
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if dir == p { // the root
		return p, nil
	}
	rd, err := resolveAbs(dir, hops)
	if err != nil {
		return "", err
	}
	return filepath.Join(rd, base), nil
}
