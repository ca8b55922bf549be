package browser

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SiteCopy is the result of CopySite.
type SiteCopy struct {
	Pages  []string // the *.html files at the top of the site, sorted
	Copied []string // the asset files and folders copied besides the pages
	// Problems are references that make the folder depend on something
	// outside it: paths climbing out of it, symbolic links leading out of it.
	Problems []string
}

// CopySite copies a rendered site to dst as a reader would take it away: the
// *.html pages at the top of src and every file or top-level folder they
// refer to by a relative URL (the whole folder, since scripts such as
// MathJax and require.js load more files from theirs). Nothing else of src
// comes along. References to files that do not exist are left for the
// browser to report.
func CopySite(src, dst string) (SiteCopy, error) {
	var sc SiteCopy
	pages, err := filepath.Glob(filepath.Join(src, "*.html"))
	if err != nil {
		return sc, err
	}
	tops := map[string]bool{}
	for _, p := range pages {
		name := filepath.Base(p)
		sc.Pages = append(sc.Pages, name)
		b, err := os.ReadFile(p)
		if err != nil {
			return sc, err
		}
		for _, r := range Refs(string(b)) {
			lp, ok, escapes := LocalPath(r.URL)
			if !ok {
				continue
			}
			if escapes {
				sc.Problems = append(sc.Problems, fmt.Sprintf("%s: <%s %s=%q> points outside the site folder", name, r.Tag, r.Attr, r.URL))
				continue
			}
			top := strings.SplitN(lp, "/", 2)[0]
			if top == "." || (strings.HasSuffix(top, ".html") && !strings.Contains(lp, "/")) {
				continue // the page itself or another page: copied anyway
			}
			tops[top] = true
		}
	}
	sort.Strings(sc.Pages)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return sc, err
	}
	for _, p := range sc.Pages {
		if err := copyFile(filepath.Join(src, p), filepath.Join(dst, p)); err != nil {
			return sc, err
		}
	}
	var names []string
	for t := range tops {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		from := filepath.Join(src, filepath.FromSlash(t))
		if _, err := os.Stat(from); err != nil {
			continue // missing: the browser reports the failed load
		}
		probs, err := copyTree(src, from, filepath.Join(dst, filepath.FromSlash(t)))
		if err != nil {
			return sc, err
		}
		sc.Problems = append(sc.Problems, probs...)
		sc.Copied = append(sc.Copied, t)
	}
	return sc, nil
}

// copyTree copies the file or folder from to to, following symbolic links
// (their targets are copied), and reports links that lead outside root:
// such a folder breaks when it is moved to another machine.
func copyTree(root, from, to string) ([]string, error) {
	var probs []string
	absRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{} // real folders being copied (ancestors): links may loop
	var walk func(from, to string) error
	walk = func(from, to string) error {
		li, err := os.Lstat(from)
		if err != nil {
			return err
		}
		if li.Mode()&os.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(from)
			if err != nil {
				probs = append(probs, fmt.Sprintf("%s: broken symbolic link", rel(root, from)))
				return nil
			}
			if real != absRoot && !strings.HasPrefix(real, absRoot+string(filepath.Separator)) {
				probs = append(probs, fmt.Sprintf("%s is a symbolic link to %s, outside the site folder", rel(root, from), real))
			}
		}
		st, err := os.Stat(from)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return copyFile(from, to)
		}
		real, err := filepath.EvalSymlinks(from)
		if err != nil {
			return err
		}
		if seen[real] {
			probs = append(probs, fmt.Sprintf("%s: symbolic link loop", rel(root, from)))
			return nil
		}
		seen[real] = true
		if err := os.MkdirAll(to, 0o755); err != nil {
			return err
		}
		ents, err := os.ReadDir(from)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := walk(filepath.Join(from, e.Name()), filepath.Join(to, e.Name())); err != nil {
				return err
			}
		}
		delete(seen, real)
		return nil
	}
	return probs, walk(from, to)
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return r
	}
	return p
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
