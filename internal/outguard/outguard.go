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
// one path. Empty paths are
// skipped, so optional flags can be passed as they are. The error is an
// *Error.
func Check(outputs, inputs []Path) error {
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		ro, err := resolve(o.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", o, err)
		}
		ost, oerr := os.Stat(o.Path)
		for _, in := range inputs {
			if in.Path == "" {
				continue
			}
			ri, err := resolve(in.Path)
			if err != nil {
				return fmt.Errorf("%s: %w", in, err)
			}
			if ist, err := os.Stat(in.Path); err == nil && oerr == nil && os.SameFile(ost, ist) {
				why := "is the same file as"
				if ro != ri {
					why = "is the same file (a hard or symbolic link) as"
				}
				if in.Dir {
					why = "is the folder"
				}
				return &Error{Out: o, In: in, Why: why}
			}
			switch {
			case ro == ri && in.Dir:
				return &Error{Out: o, In: in, Why: "is the folder"}
			case ro == ri:
				return &Error{Out: o, In: in, Why: "is the same file as"}
			case in.Dir && within(ro, ri):
				return &Error{Out: o, In: in, Why: "is inside the folder"}
			}
		}
	}
	return distinct(outputs)
}

// distinct refuses two outputs at one path (in any spelling, or links to
// one file), checked before any work: otherwise the second is found to be
// the first's (a folder where a file goes) only when it is written, after
// the work.
func distinct(outputs []Path) error {
	for i, a := range outputs {
		if a.Path == "" {
			continue
		}
		ra, err := resolve(a.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", a, err)
		}
		ast, aerr := os.Stat(a.Path)
		for _, b := range outputs[i+1:] {
			if b.Path == "" {
				continue
			}
			rb, err := resolve(b.Path)
			if err != nil {
				return fmt.Errorf("%s: %w", b, err)
			}
			bst, berr := os.Stat(b.Path)
			if ra == rb || (aerr == nil && berr == nil && os.SameFile(ast, bst)) {
				return &Error{Out: b, In: a, Both: true}
			}
		}
	}
	return nil
}

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
