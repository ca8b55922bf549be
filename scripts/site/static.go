package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/internal/safefile"
)

// staticDir is the folder of out/ that holds the pages' JavaScript.
const staticDir = "static"

// The URLs the pages load, relative to out/ (the pages sit in out/).
// nbconvert 6.5's template (base/mathjax.html.j2) configures MathJax v2 with
// TeX-AMS_CHTML-full,Safe; the files below are what that configuration loads.
const (
	mathjaxURL = staticDir + "/mathjax/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
	requireURL = staticDir + "/require.js"
)

// NbconvertFlags point nbconvert's HTMLExporter at the copies in out/static.
func NbconvertFlags() []string {
	return []string{
		"--HTMLExporter.mathjax_url=" + mathjaxURL,
		"--HTMLExporter.require_js_url=" + requireURL,
	}
}

// staticFile is one file or pattern to copy: From is relative to the npm
// prefix's node_modules, To to out/static. A From ending in "/" copies the
// folder's files recursively; one with '*' is a glob.
type staticFile struct{ From, To string }

// staticFiles is what the pages need. MathJax's configuration file bundles
// the TeX input, the MathML element jax, tex2jax, the menu and the
// CommonHTML output; at run time MathJax loads the Safe extension, fonts
// (CommonHTML uses the TeX woff fonts), TeX extensions on demand (\color,
// \cancel, ...), the menu's pieces when a reader opens it, and the
// fast-preview output. The accessibility explorer (a11y/mathjax-sre.js and
// its 2.7 MB of maps), other output jax and font formats are left out.
var staticFiles = []staticFile{
	{"requirejs/require.js", "require.js"},
	{"mathjax/LICENSE", "mathjax/LICENSE"},
	{"mathjax/MathJax.js", "mathjax/MathJax.js"},
	{"mathjax/config/TeX-AMS_CHTML-full.js", "mathjax/config/TeX-AMS_CHTML-full.js"},
	{"mathjax/config/Safe.js", "mathjax/config/Safe.js"}, // ",Safe" names a config file
	{"mathjax/extensions/*.js", "mathjax/extensions/"},
	{"mathjax/extensions/TeX/", "mathjax/extensions/TeX/"},
	{"mathjax/extensions/a11y/accessibility-menu.js", "mathjax/extensions/a11y/accessibility-menu.js"},
	{"mathjax/jax/input/TeX/", "mathjax/jax/input/TeX/"},
	{"mathjax/jax/element/mml/", "mathjax/jax/element/mml/"},
	{"mathjax/jax/output/CommonHTML/", "mathjax/jax/output/CommonHTML/"},
	{"mathjax/jax/output/PreviewHTML/", "mathjax/jax/output/PreviewHTML/"},
	{"mathjax/fonts/HTML-CSS/TeX/woff/", "mathjax/fonts/HTML-CSS/TeX/woff/"},
	{"mathjax/localization/en/", "mathjax/localization/en/"},
}

// StaticStats says what SyncStatic did.
type StaticStats struct {
	Files, Copied, Removed int
	Bytes                  int64
}

// SyncStatic makes outDir/static hold exactly staticFiles, taken from
// npmDir/node_modules: changed or missing files are written atomically,
// files no longer needed are removed.
func SyncStatic(npmDir, outDir string) (StaticStats, error) {
	var st StaticStats
	src := filepath.Join(npmDir, "node_modules")
	want := map[string]string{} // destination (relative to static) -> source
	for _, f := range staticFiles {
		from := filepath.Join(src, filepath.FromSlash(f.From))
		switch {
		case strings.HasSuffix(f.From, "/"):
			err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !d.IsDir() {
					rel, _ := filepath.Rel(from, p)
					want[filepath.Join(filepath.FromSlash(f.To), rel)] = p
				}
				return nil
			})
			if err != nil {
				return st, missing(from, err)
			}
		case strings.Contains(f.From, "*"):
			ms, err := filepath.Glob(from)
			if err != nil || len(ms) == 0 {
				return st, missing(from, err)
			}
			for _, p := range ms {
				want[filepath.Join(filepath.FromSlash(f.To), filepath.Base(p))] = p
			}
		default:
			want[filepath.FromSlash(f.To)] = from
		}
	}
	dst := filepath.Join(outDir, staticDir)
	names := slices.Sorted(maps.Keys(want))
	for _, n := range names {
		b, err := os.ReadFile(want[n])
		if err != nil {
			return st, missing(want[n], err)
		}
		st.Files++
		st.Bytes += int64(len(b))
		to := filepath.Join(dst, n)
		if old, err := os.ReadFile(to); err == nil && bytes.Equal(old, b) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return st, err
		}
		if err := safefile.WriteBytes(to, b); err != nil {
			return st, err
		}
		st.Copied++
	}
	// Remove what is no longer wanted (an older set of files), then empty folders.
	var dirs []string
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dst, p)
		if d.IsDir() {
			dirs = append(dirs, p)
		} else if _, ok := want[rel]; !ok {
			st.Removed++
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	for i := len(dirs) - 1; i > 0; i-- { // deepest first; keep static/ itself
		os.Remove(dirs[i]) // fails, as it should, when not empty
	}
	return st, nil
}

func missing(p string, err error) error {
	if err == nil {
		err = fs.ErrNotExist
	}
	return fmt.Errorf("%s: %v; run scripts/assets, which installs MathJax 2 and require.js with npm into .cache/npm", p, err)
}
