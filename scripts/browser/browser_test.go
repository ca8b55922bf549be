// Package browser holds the project's browser tests: headless Chromium,
// driven from Go with github.com/chromedp/chromedp, looks at what a reader
// sees (each test's comment says what it checks):
//
//   - TestLiveNotebook opens notebooks/00-quickstart.ipynb in Jupyter started
//     as the README says (scripts/notebook), checks that it opens trusted
//     with its saved charts, images and header (and that an edited copy does
//     not; and every other committed notebook), then runs every cell.
//   - TestSitePages opens every page of the rendered site in out/, copied and
//     served with the network blocked: everything loads, charts draw, MathJax
//     typesets, no page points at file:// or the network.
//   - TestLiveControls and TestLiveYourImages run notebooks 07 and 09 and work
//     their live controls as a student would.
//
// They need a browser (and the live ones Jupyter with the gonb kernel), so
// they run only when PSUB_BROWSER=1:
//
//	PSUB_BROWSER=1 go test -count=1 -run 'TestLiveNotebook|TestSitePages|TestLiveControls|TestLiveYourImages' -v ./scripts/browser/
//
// The browser is $PSUB_CHROMIUM, else chromium or chromium-browser on PATH,
// else /usr/bin/chromium (Debian: apt-get install chromium). Screenshots go to
// out/browser/. The pure checks (URL references in HTML, TeX detection, blank
// canvases, error text in cell output) have ordinary unit tests that always
// run. The package is tests only: its helpers (Chromium, Jupyter, the page
// checks) and this comment live in its _test.go files, as nothing else
// imports them.
package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/runenv"
)

const runHint = "PSUB_BROWSER=1 go test -count=1 -run 'TestLiveNotebook|TestSitePages|TestLiveControls' -v ./scripts/browser/"

// needBrowser skips the test unless PSUB_BROWSER=1 and a Chromium is found,
// and returns the Chromium to use.
func needBrowser(t *testing.T) string {
	t.Helper()
	if os.Getenv("PSUB_BROWSER") != "1" {
		t.Skip("browser test, off by default; run it with: " + runHint)
	}
	exe, tried := FindChromium()
	if exe == "" {
		t.Skipf("PSUB_BROWSER=1 but no Chromium found (looked for %s): install it with 'apt-get install chromium' or point PSUB_CHROMIUM at one",
			strings.Join(tried, ", "))
	}
	return exe
}

// startBrowser starts a headless Chromium that the test closes at its end.
func startBrowser(t *testing.T, exe string, blockNetwork bool) *Browser {
	t.Helper()
	b, err := Start(exe, Options{BlockNetwork: blockNetwork})
	if err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// moduleRoot returns the module root and its out/ folder.
func moduleRoot(t *testing.T) (root, out string) {
	t.Helper()
	root, err := runenv.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root, filepath.Join(root, "out")
}

// checkCharts reports every chart that did not draw and returns how many
// charts there are.
func checkCharts(t *testing.T, p *Page, where string) int {
	t.Helper()
	charts, err := p.Charts()
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return 0
	}
	for _, c := range charts {
		if c.Problem != "" {
			t.Errorf("%s: echarts chart #%s did not draw: %s", where, c.ID, c.Problem)
		} else {
			t.Logf("%s: chart #%s drew on %d canvas(es), %.1f%% of pixels inked", where, c.ID, c.Canvases, 100*c.Ink)
		}
	}
	return len(charts)
}

// checkImages reports every image that did not load and returns how many
// images and how many PNG images match the selector.
func checkImages(t *testing.T, p *Page, where, selector string) (all, pngs int) {
	t.Helper()
	imgs, err := p.Images(selector)
	if err != nil {
		t.Errorf("%s: %v", where, err)
		return 0, 0
	}
	for _, im := range imgs {
		if !im.Complete || im.Width == 0 {
			t.Errorf("%s: image did not load (complete %v, naturalWidth %d): %s", where, im.Complete, im.Width, im.Src)
		}
		if im.PNG {
			pngs++
		}
	}
	return len(imgs), pngs
}
