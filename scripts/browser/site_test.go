package browser

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// notebookPage is the name of a rendered notebook page, NN-name.html.
var notebookPage = regexp.MustCompile(`^[0-9][0-9]-[^/]*\.html$`)

// TestSitePages checks the rendered site in out/ as a reader gets it: the
// pages and what they reference are copied to a fresh folder (proving the
// folder is self-contained), served from 127.0.0.1, and opened with the
// network blocked.
func TestSitePages(t *testing.T) {
	chromium := needBrowser(t)
	t0 := time.Now()
	_, out := moduleRoot(t)
	shots := filepath.Join(out, "browser")
	if d := os.Getenv("PSUB_SITE_DIR"); d != "" {
		out = d // another rendering of the site, e.g. to try a change
	}
	if !exists(filepath.Join(out, "index.html")) {
		t.Errorf("%s/index.html does not exist: render the site first (scripts/reproduce)", out)
	}
	site := filepath.Join(t.TempDir(), "site")
	sc, err := CopySite(out, site)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Pages) == 0 {
		t.Fatalf("no *.html page in %s: render the site first (scripts/reproduce)", out)
	}
	t.Logf("copied %d pages and %v from %s to %s", len(sc.Pages), sc.Copied, out, site)
	for _, pr := range sc.Problems {
		t.Errorf("not portable: %s", pr)
	}

	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()
	b := startBrowser(t, chromium, true)

	for _, name := range sc.Pages {
		t.Run(strings.TrimSuffix(name, ".html"), func(t *testing.T) {
			tp := time.Now()
			doc, err := os.ReadFile(filepath.Join(site, name))
			if err != nil {
				t.Fatal(err)
			}
			checkRefs(t, name, string(doc), site)

			p, err := b.NewPage()
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			shot := filepath.Join(shots, "site-"+strings.TrimSuffix(name, ".html")+".png")
			if err := p.Navigate(srv.URL+"/"+name, time.Minute); err != nil {
				t.Errorf("%s: loading: %v; page problems: %v", name, err, p.Problems())
				shoot(t, p, shot, "")
				return
			}
			p.WaitCharts(20 * time.Second)
			p.WaitImages("img", 20*time.Second)
			charts := checkCharts(t, p, name)
			imgs, _ := checkImages(t, p, name, "img")
			tex := HasTeX(string(doc))
			if tex || loadsMathJax(string(doc)) {
				m, err := p.MathJax(tex, 15*time.Second)
				switch {
				case err != nil:
					t.Errorf("%s: reading MathJax's state: %v", name, err)
				case !m.Defined:
					t.Errorf("%s: the page loads MathJax but MathJax is not defined (its script did not load or run)", name)
				case tex && m.Typeset == 0:
					t.Errorf("%s: the page holds TeX but MathJax typeset nothing in 15 s", name)
				}
				for _, e := range m.Errors {
					t.Errorf("%s: MathJax shows a TeX error: %q", name, e)
				}
				t.Logf("%s: MathJax defined %v, %d typeset elements", name, m.Defined, m.Typeset)
			}
			clipped, err := p.Clipped()
			if err != nil {
				t.Errorf("%s: reading the layout: %v", name, err)
			}
			for _, c := range clipped {
				t.Errorf("%s: %s", name, c)
			}
			for _, pr := range p.Problems() {
				t.Errorf("%s: %v", name, pr)
			}
			shoot(t, p, shot, "")
			t.Logf("%s: %d charts, %d images, TeX %v; %.1fs", name, charts, imgs, tex, time.Since(tp).Seconds())
		})
	}
	t.Logf("TestSitePages took %.1fs", time.Since(t0).Seconds())
}

// checkRefs reports a page's scripts, styles and images that do not come
// from the site folder, and links to files that are not in it; the index
// must link at least one notebook page.
func checkRefs(t *testing.T, name, doc, site string) {
	t.Helper()
	pages := 0
	for _, r := range Refs(doc) {
		if r.IsAsset() {
			if why := NonPortable(r.URL); why != "" {
				t.Errorf("%s: <%s %s=%q>: %s", name, r.Tag, r.Attr, clip(r.URL, 120), why)
				continue
			}
		}
		lp, ok, escapes := LocalPath(r.URL)
		if !ok || escapes {
			continue // escapes: CopySite reported it
		}
		if !exists(filepath.Join(site, filepath.FromSlash(lp))) {
			t.Errorf("%s: <%s %s=%q> names %s, which is not in the site folder", name, r.Tag, r.Attr, clip(r.URL, 120), lp)
		}
		if r.Tag == "a" && notebookPage.MatchString(lp) {
			pages++
		}
	}
	if name == "index.html" {
		if pages == 0 {
			t.Errorf("index.html links no notebook page (NN-name.html)")
		} else {
			t.Logf("index.html links %d notebook pages", pages)
		}
	}
}

// loadsMathJax reports whether the page has a script whose URL names MathJax.
func loadsMathJax(doc string) bool {
	for _, r := range Refs(doc) {
		if r.Tag == "script" && strings.Contains(strings.ToLower(r.URL), "mathjax") {
			return true
		}
	}
	return false
}
