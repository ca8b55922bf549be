package browser

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestRefs(t *testing.T) {
	doc := `<html><head>
<script src="file:///usr/share/javascript/requirejs/require.min.js"></script>
<script type="text/javascript" src='assets/mathjax/MathJax.js?config=TeX'></script>
<link rel="stylesheet" href=style.css>
<!-- <img src="commented.png"> -->
<script>var s = '<img src="' + x + '">'; var t = "<a href='nope'>";</script>
<style>.a { background: url(x.png) } /* <img src="style.png"> */</style>
</head><body>
<IMG data-src="lazy.png" SRC="data:image/png;base64,AAAA" alt="x">
<a href="01-cows.html#top">cows</a> <a href="https://example.org/paper.pdf">paper</a>
<a href="a&amp;b.html">amp</a>
</body></html>`
	got := Refs(doc)
	want := []Ref{
		{"script", "src", "file:///usr/share/javascript/requirejs/require.min.js"},
		{"script", "src", "assets/mathjax/MathJax.js?config=TeX"},
		{"link", "href", "style.css"},
		{"img", "src", "data:image/png;base64,AAAA"},
		{"a", "href", "01-cows.html#top"},
		{"a", "href", "https://example.org/paper.pdf"},
		{"a", "href", "a&b.html"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Refs:\n got %q\nwant %q", got, want)
	}
}

func TestNonPortable(t *testing.T) {
	for u, bad := range map[string]bool{
		"file:///usr/share/javascript/mathjax/MathJax.js": true,
		"FILE:///x":                  true,
		"http://cdn.example/x.js":    true,
		"https://cdn.example/x.js":   true,
		"//cdn.example/x.js":         true,
		"/usr/share/javascript/x.js": true,
		"javascript:void(0)":         true,
		"assets/require.min.js":      false,
		"./assets/x.js?v=1":          false,
		"data:image/png;base64,AAAA": false,
		"img/a:b.png":                false, // a colon after a slash is no scheme
		"../shared/x.js":             false, // relative: CopySite reports the escape
	} {
		if got := NonPortable(u) != ""; got != bad {
			t.Errorf("NonPortable(%q) = %q, want non-portable %v", u, NonPortable(u), bad)
		}
	}
}

func TestLocalPath(t *testing.T) {
	type res struct {
		p           string
		ok, escapes bool
	}
	for u, want := range map[string]res{
		"assets/mathjax/MathJax.js?config=TeX": {"assets/mathjax/MathJax.js", true, false},
		"./01-cows.html#sec":                   {"01-cows.html", true, false},
		"a%20b/c.png":                          {"a b/c.png", true, false},
		"x/../../etc/passwd":                   {"../etc/passwd", true, true},
		"#top":                                 {"", false, false},
		"":                                     {"", false, false},
		"data:image/png;base64,AAAA":           {"", false, false},
		"https://example.org/":                 {"", false, false},
		"/abs/path.js":                         {"", false, false},
	} {
		p, ok, esc := LocalPath(u)
		if (res{p, ok, esc}) != want {
			t.Errorf("LocalPath(%q) = %q %v %v, want %v", u, p, ok, esc, want)
		}
	}
}

func TestHasTeX(t *testing.T) {
	for doc, want := range map[string]bool{
		`<p>weights in $C_2$ are submodular</p>`:                                true,
		`<p>$$\sum_i x_i$$</p>`:                                                 true,
		`<p>inline \(a^2\) math</p>`:                                            true,
		`<div>\begin{align} a &= b \end{align}</div>`:                           true,
		`<p>it costs $5 and $6 today</p>`:                                       false,
		`<p>price $5</p>`:                                                       false,
		`<pre>go work use . "${GONB_DIR}/.."</pre>`:                             false,
		`<p>run <code>echo $HOME $PATH</code></p>`:                              false,
		`<script>var a = "$x$";</script><p>plain</p>`:                           false,
		`<p>no math here</p>`:                                                   false,
		`<p>a $x$2 b</p>`:                                                       false, // digit after the closing $
		`<p>C2 ⊂ C4, <em>and</em> $\bar{C}_4$</p>`:                              true,
		`<div class="highlight"><pre><span>$</span>x<span>$</span></pre></div>`: false,
	} {
		if got := HasTeX(doc); got != want {
			t.Errorf("HasTeX(%q) = %v, want %v", doc, got, want)
		}
	}
}

func TestStreamError(t *testing.T) {
	for text, want := range map[string]string{
		"":                   "",
		"training... done\n": "",
		"panic: runtime error: index out of range [3]\n\ngoroutine 1 [running]:\n": "panic: runtime error: index out of range [3]",
		"something failed\nexit status 1\n":                                        "exit status 1",
		"the exit status 1 of a subprocess\n":                                      "", // not GoNB's line
		"warning: deprecated\n":                                                    "",
	} {
		if got := StreamError(text); got != want {
			t.Errorf("StreamError(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestInkAndBlank(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 100, 50))
	if Ink(img) != 0 || !Blank(img) {
		t.Fatalf("a transparent canvas: Ink %v, Blank %v; want 0, true", Ink(img), Blank(img))
	}
	white := color.RGBA{255, 255, 255, 255}
	for y := 0; y < 50; y++ {
		for x := 0; x < 100; x++ {
			img.Set(x, y, white)
		}
	}
	if !Blank(img) {
		t.Error("a uniformly white canvas is not blank")
	}
	// One stray pixel is not a chart.
	img.Set(3, 3, color.RGBA{0, 0, 0, 255})
	if !Blank(img) {
		t.Errorf("one pixel of 5000 (ink %v) counts as drawn", Ink(img))
	}
	// An axis line across the canvas (100 of 5000 pixels = 2 %) is.
	for x := 0; x < 100; x++ {
		img.Set(x, 40, color.RGBA{84, 112, 198, 255})
	}
	if got, want := Ink(img), 101.0/5000; got != want {
		t.Errorf("Ink = %v, want %v", got, want)
	}
	if Blank(img) {
		t.Error("a canvas with a line across counts as blank")
	}
	if !Blank(image.NewRGBA(image.Rect(0, 0, 0, 0))) {
		t.Error("an empty canvas is not blank")
	}
}

func TestCopySite(t *testing.T) {
	src, dst, outside := t.TempDir(), filepath.Join(t.TempDir(), "site"), t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(src, "index.html"), `<a href="00-a.html">a</a><link href="style.css" rel="stylesheet">`)
	write(filepath.Join(src, "00-a.html"), `<script src="assets/js/require.js"></script><img src="../up.png"><script src="missing/x.js"></script>`)
	write(filepath.Join(src, "style.css"), `body{}`)
	write(filepath.Join(src, "assets/js/require.js"), `//`)
	write(filepath.Join(src, "assets/js/more/module.js"), `//`) // loaded at run time: the whole folder comes
	write(filepath.Join(src, "notebooks/00-a.ipynb"), `{}`)     // not referenced: stays behind
	write(filepath.Join(src, "results.jsonl"), `{}`)
	write(filepath.Join(outside, "mathjax/MathJax.js"), `//`)
	if err := os.Symlink(filepath.Join(outside, "mathjax"), filepath.Join(src, "assets/mathjax")); err != nil {
		t.Fatal(err)
	}

	sc, err := CopySite(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"00-a.html", "index.html"}; !reflect.DeepEqual(sc.Pages, want) {
		t.Errorf("Pages = %q, want %q", sc.Pages, want)
	}
	if want := []string{"assets", "style.css"}; !reflect.DeepEqual(sc.Copied, want) {
		t.Errorf("Copied = %q, want %q", sc.Copied, want)
	}
	var got []string
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			r, _ := filepath.Rel(dst, p)
			got = append(got, filepath.ToSlash(r))
		}
		return nil
	})
	sort.Strings(got)
	want := []string{"00-a.html", "assets/js/more/module.js", "assets/js/require.js", "assets/mathjax/MathJax.js", "index.html", "style.css"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("copied files %q, want %q", got, want)
	}
	probs := strings.Join(sc.Problems, "\n")
	if len(sc.Problems) != 2 || !strings.Contains(probs, `"../up.png"> points outside`) ||
		!strings.Contains(probs, "assets/mathjax is a symbolic link to "+outside) {
		t.Errorf("Problems = %q, want the ../up.png escape and the assets/mathjax link", sc.Problems)
	}
}
