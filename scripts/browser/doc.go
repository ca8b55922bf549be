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
// checks) live in its _test.go files, as nothing else imports them.
package browser
