package browser

import (
	"html"
	"image"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// Ref is a URL that an HTML tag refers to.
type Ref struct {
	Tag  string // lower case: script, link, img, a, iframe, source, embed
	Attr string // src or href
	URL  string // as written, HTML entities decoded
}

var (
	commentRE = regexp.MustCompile(`(?s)<!--.*?-->`)
	// Script and style bodies are not markup (the echarts library holds
	// strings such as "<img src=..."): keep the opening tag, drop the body.
	bodyRE = regexp.MustCompile(`(?is)(<(script|style)\b[^>]*>).*?</(script|style)\s*>`)
	tagRE  = regexp.MustCompile(`(?i)<(script|link|img|a|iframe|source|embed)\b([^>]*)>`)
	attrRE = regexp.MustCompile(`(?i)(?:^|\s)(src|href)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))`)
)

// stripBodies removes comments and the bodies of script and style elements.
func stripBodies(doc string) string {
	doc = commentRE.ReplaceAllString(doc, "")
	return bodyRE.ReplaceAllString(doc, "$1</$2>")
}

// Refs lists the src and href URLs of the tags of an HTML document that load
// or link something: script, link, img, a, iframe, source and embed.
func Refs(doc string) []Ref {
	var refs []Ref
	for _, m := range tagRE.FindAllStringSubmatch(stripBodies(doc), -1) {
		tag := strings.ToLower(m[1])
		for _, a := range attrRE.FindAllStringSubmatch(m[2], -1) {
			v := a[2] + a[3] + a[4] // exactly one alternative matched
			refs = append(refs, Ref{Tag: tag, Attr: strings.ToLower(a[1]), URL: html.UnescapeString(v)})
		}
	}
	return refs
}

// IsAsset reports whether the page loads the reference when it opens (a
// script, a style sheet or icon, an image, a frame) rather than linking to it.
func (r Ref) IsAsset() bool { return r.Tag != "a" }

// NonPortable says why a URL that a page loads ties the page to this machine
// or to the network, or returns "" when the URL is relative or inline (data:).
// A site folder that passes works when copied elsewhere and opened offline.
func NonPortable(u string) string {
	s := strings.TrimSpace(u)
	low := strings.ToLower(s)
	switch {
	case strings.HasPrefix(low, "file:"):
		return "file:// URL (exists only on this machine)"
	case strings.HasPrefix(low, "http:"), strings.HasPrefix(low, "https:"):
		return "network URL (the site must work offline)"
	case strings.HasPrefix(low, "//"):
		return "protocol-relative network URL (the site must work offline)"
	case strings.HasPrefix(low, "/"):
		return "absolute path (breaks when the folder is moved or opened from disk)"
	}
	if i := strings.Index(low, ":"); i > 0 && !strings.ContainsAny(low[:i], "/?#") && low[:i] != "data" {
		return "URL scheme " + low[:i] + ": (not a file of the site)"
	}
	return ""
}

// LocalPath returns the file that a relative URL names, relative to the
// folder of the page (cleaned, query and fragment dropped, %-escapes
// decoded). ok is false for URLs that name no file of the site: other
// schemes, absolute paths, fragment-only links and empty URLs. escapes is
// true when the path climbs out of the page's folder ("../").
func LocalPath(u string) (p string, ok, escapes bool) {
	s := strings.TrimSpace(u)
	if s == "" || strings.HasPrefix(s, "#") || NonPortable(s) != "" || strings.HasPrefix(strings.ToLower(s), "data:") {
		return "", false, false
	}
	pu, err := url.Parse(s)
	if err != nil || pu.Scheme != "" || pu.Host != "" || pu.Path == "" {
		return "", false, false
	}
	p = path.Clean(pu.Path)
	if p == ".." || strings.HasPrefix(p, "../") {
		return p, true, true
	}
	return p, true, false
}

var (
	// Code and preformatted text are not typeset by MathJax.
	codeRE  = regexp.MustCompile(`(?is)<(pre|code|textarea|script|style)\b[^>]*>.*?</(pre|code|textarea|script|style)\s*>`)
	anyTag  = regexp.MustCompile(`(?s)<[^>]*>`)
	texEnvs = regexp.MustCompile(`\$\$[^$]+\$\$|\\\(.+?\\\)|\\\[.+?\\\]|\\begin\{[a-z*]+\}`)
	// Inline $...$ as pandoc reads it: no space just inside the dollars, and
	// no digit right after the closing one ("costs $5 and $6" is not TeX).
	inlineTeX = regexp.MustCompile(`\$[^$\s](?:[^$\n]*[^$\s\\])?\$`)
	digitNext = regexp.MustCompile(`^[0-9]`)
)

// HasTeX reports whether the text of an HTML document (outside code,
// preformatted text, scripts and styles) holds TeX that MathJax would
// typeset: $...$, $$...$$, \(...\), \[...\] or \begin{...}.
func HasTeX(doc string) bool {
	text := commentRE.ReplaceAllString(doc, "")
	text = codeRE.ReplaceAllString(text, " ")
	text = html.UnescapeString(anyTag.ReplaceAllString(text, " "))
	if texEnvs.MatchString(text) {
		return true
	}
	for _, loc := range inlineTeX.FindAllStringIndex(text, -1) {
		if !digitNext.MatchString(text[loc[1]:]) {
			return true
		}
	}
	return false
}

var exitStatusRE = regexp.MustCompile(`(?m)^\s*exit status [0-9]+\s*$`)

// StreamError returns the line of a cell's stderr text that shows the cell
// failed (a Go panic, or GoNB's "exit status N" after a program that
// exited non-zero), or "" when there is none.
func StreamError(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "panic:") {
			return strings.TrimSpace(line)
		}
	}
	if m := exitStatusRE.FindString(text); m != "" {
		return strings.TrimSpace(m)
	}
	return ""
}

// blankInk is the fraction of a canvas's pixels that must differ from its
// most common colour for it to count as drawn. An echarts chart (title,
// axes, labels, series) covers a few percent at least; an initialised chart
// that never drew covers nothing.
const blankInk = 0.002

// Ink returns the fraction of the image's pixels whose colour differs from
// the most common colour (the background).
func Ink(img image.Image) float64 {
	b := img.Bounds()
	n := b.Dx() * b.Dy()
	if n == 0 {
		return 0
	}
	counts := map[[4]uint32]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[[4]uint32{r, g, bl, a}]++
		}
	}
	most := 0
	for _, c := range counts {
		most = max(most, c)
	}
	return float64(n-most) / float64(n)
}

// Blank reports whether an image (a canvas read back from the page) shows
// nothing: fewer than blankInk of its pixels differ from the background.
func Blank(img image.Image) bool { return Ink(img) < blankInk }
