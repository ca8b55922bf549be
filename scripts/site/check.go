package main

import (
	"fmt"
	"html"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Problem is a reference that stops a page from working elsewhere.
type Problem struct {
	File string
	Line int
	What string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.What) }

// CheckSite checks the site's pages, outDir/*.html (other folders of out/
// hold MathJax's files, logs and other tools' output), and returns how many
// it read.
func CheckSite(outDir string) (int, []Problem, error) {
	all, err := filepath.Glob(filepath.Join(outDir, "*.html"))
	if err != nil {
		return 0, nil, err
	}
	pages := slices.DeleteFunc(all, func(p string) bool { return strings.HasPrefix(filepath.Base(p), ".") }) // a temporary file being written
	slices.Sort(pages)
	root, err := filepath.Abs(outDir)
	if err != nil {
		return 0, nil, err
	}
	var problems []Problem
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, nil, err
		}
		dir := filepath.Dir(p)
		problems = append(problems, CheckPage(p, b, func(ref string) string {
			target, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(ref)))
			if err != nil {
				return err.Error()
			}
			if rel, err := filepath.Rel(root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return "points outside " + outDir
			}
			if _, err := os.Stat(target); err != nil {
				return "missing in " + outDir
			}
			return ""
		})...)
	}
	return len(pages), problems, nil
}

// CheckPage reports what in page would fail away from this machine or
// offline: a file: URL anywhere in an attribute, style or script; a network
// URL (http:, https:, //host) that a script, stylesheet, image, frame or
// font is loaded from; a root-absolute path; and, through local (nil to
// skip), relative references (also links) that do not resolve. local
// returns why a relative path is broken, or "".
func CheckPage(file string, page []byte, local func(ref string) string) []Problem {
	c := checker{file: file, s: string(page), local: local}
	c.lower = asciiLower(c.s)
	c.scan()
	return c.problems
}

type checker struct {
	file     string
	s        string
	lower    string // s with ASCII letters lowered (same offsets)
	local    func(string) string
	problems []Problem
}

// report adds a problem at byte pos (pages rarely have any: counting the
// lines again for each is cheap).
func (c *checker) report(pos int, format string, args ...any) {
	line := strings.Count(c.s[:min(pos, len(c.s))], "\n") + 1
	c.problems = append(c.problems, Problem{File: c.file, Line: line, What: fmt.Sprintf(format, args...)})
}

// scan walks the tags; script and style bodies are checked as such and
// never parsed as HTML (a script may well contain "<img src=").
func (c *checker) scan() {
	s := c.s
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return
		}
		i += j
		if strings.HasPrefix(s[i:], "<!--") {
			k := strings.Index(s[i+4:], "-->")
			if k < 0 {
				return
			}
			i += 4 + k + 3
			continue
		}
		n := i + 1
		for n < len(s) && (isAlnum(s[n]) || s[n] == '-' || s[n] == ':') {
			n++
		}
		if n == i+1 { // "</x", "<!DOCTYPE", a lone '<'
			i++
			continue
		}
		tag := asciiLower(s[i+1 : n])
		attrs, end := parseAttrs(s, n)
		for _, a := range attrs {
			c.attr(tag, a)
		}
		i = end
		if tag == "script" || tag == "style" {
			k := strings.Index(c.lower[i:], "</"+tag)
			if k < 0 {
				k = len(s) - i
			}
			if tag == "script" {
				c.script(s[i:i+k], i)
			} else {
				c.css("style", s[i:i+k], i)
			}
			i += k
		}
	}
}

type attr struct {
	name, value string
	pos         int
}

// parseAttrs reads attributes from s[i:] up to the tag's '>' and returns
// them with the offset just past it.
func parseAttrs(s string, i int) ([]attr, int) {
	var as []attr
	for i < len(s) {
		for i < len(s) && (isSpace(s[i]) || s[i] == '/') {
			i++
		}
		if i >= len(s) || s[i] == '>' {
			return as, i + 1
		}
		start := i
		for i < len(s) && !isSpace(s[i]) && s[i] != '=' && s[i] != '>' && s[i] != '/' {
			i++
		}
		a := attr{name: asciiLower(s[start:i]), pos: start}
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '=' {
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i < len(s) && (s[i] == '"' || s[i] == '\'') {
				q := s[i]
				k := strings.IndexByte(s[i+1:], q)
				if k < 0 {
					k = len(s) - i - 1
				}
				a.value = s[i+1 : i+1+k]
				i += k + 2
			} else {
				v := i
				for i < len(s) && !isSpace(s[i]) && s[i] != '>' {
					i++
				}
				a.value = s[v:i]
			}
			a.value = html.UnescapeString(a.value)
		}
		if start == i { // stray character
			i++
		}
		as = append(as, a)
	}
	return as, len(s)
}

// attr checks one attribute of tag.
func (c *checker) attr(tag string, a attr) {
	if strings.HasPrefix(a.name, "xmlns") {
		return // namespace names are not fetched
	}
	what := "<" + tag + " " + a.name + ">"
	switch {
	case a.name == "style":
		c.css(what, a.value, a.pos)
	case a.name == "srcset":
		for _, part := range strings.Split(a.value, ",") {
			if f := strings.Fields(part); len(f) > 0 {
				c.ref(what, f[0], a.pos, true)
			}
		}
	case a.name == "src" || a.name == "poster" || a.name == "background" || a.name == "xlink:href" ||
		(a.name == "data" && tag == "object") ||
		(a.name == "href" && (tag == "link" || tag == "image" || tag == "use" || tag == "feimage")):
		c.ref(what, a.value, a.pos, true)
	case a.name == "href":
		c.ref(what, a.value, a.pos, false) // a link: may point to the network
	default:
		if strings.HasPrefix(asciiLower(strings.TrimSpace(a.value)), "file:") {
			c.report(a.pos, "%s %q: file URL (exists only on this machine)", what, clip(a.value))
		}
	}
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// ref checks a URL that the page loads (load) or links to.
func (c *checker) ref(what, u string, pos int, load bool) {
	u = strings.TrimSpace(u)
	l := asciiLower(u)
	switch {
	case u == "" || strings.HasPrefix(u, "#"):
	case strings.HasPrefix(l, "file:"):
		c.report(pos, "%s %q: file URL (exists only on this machine)", what, clip(u))
	case isNetwork(l):
		if load {
			c.report(pos, "%s %q: network URL (fails offline)", what, clip(u))
		}
	case schemeRE.MatchString(u): // data:, blob:, mailto:, javascript:, about:
	case strings.HasPrefix(u, "/"):
		c.report(pos, "%s %q: root-absolute path (breaks unless the site is served at the server's root)", what, clip(u))
	case c.local != nil:
		p := u
		if k := strings.IndexAny(p, "?#"); k >= 0 {
			p = p[:k]
		}
		if q, err := url.PathUnescape(p); err == nil {
			p = q
		}
		if p == "" {
			return
		}
		if why := c.local(path.Clean(p)); why != "" {
			c.report(pos, "%s %q: %s", what, clip(u), why)
		}
	}
}

func isNetwork(l string) bool {
	return slices.ContainsFunc([]string{"http:", "https:", "//", "ws:", "wss:", "ftp:"}, func(p string) bool { return strings.HasPrefix(l, p) })
}

var (
	cssURL    = regexp.MustCompile(`(?i)url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)`)
	cssImport = regexp.MustCompile(`(?i)@import\s+(?:"([^"]*)"|'([^']*)')`)
	// A quoted absolute URL of a script, style or font inside a script:
	// code that would load it (by require.js, a script tag, fetch).
	scriptURL = regexp.MustCompile(`(?i)["'` + "`" + `]((?:https?:)?//[^"'` + "`" + `\s]+?\.(?:js|mjs|css|woff2?|ttf|otf))(?:\?[^"'` + "`" + `\s]*)?["'` + "`" + `]`)
	fileURL   = regexp.MustCompile(`(?i)file:/[^"'` + "`" + `\s)<>]*`)
)

// css checks a style sheet or style attribute.
func (c *checker) css(what, body string, pos int) {
	for _, re := range []*regexp.Regexp{cssURL, cssImport} {
		for _, m := range re.FindAllStringSubmatchIndex(body, -1) {
			for g := 1; g < len(m)/2; g++ {
				if m[2*g] >= 0 {
					c.ref(what+" url()", body[m[2*g]:m[2*g+1]], pos+m[0], true)
					break
				}
			}
		}
	}
}

// script checks a script's body: file URLs anywhere, and network URLs of
// scripts, styles and fonts.
func (c *checker) script(body string, pos int) {
	for _, m := range fileURL.FindAllStringIndex(body, -1) {
		c.report(pos+m[0], "<script> %q: file URL (exists only on this machine)", clip(body[m[0]:m[1]]))
	}
	for _, m := range scriptURL.FindAllStringSubmatchIndex(body, -1) {
		c.report(pos+m[0], "<script> %q: network URL of a script, style or font (fails offline)", clip(body[m[2]:m[3]]))
	}
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' }

// asciiLower lowers ASCII letters only, so offsets stay valid.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
