// Package browser holds the project's browser tests: headless Chromium,
// driven from Go with github.com/chromedp/chromedp, looks at what a reader
// sees.
//
//   - TestLiveNotebook starts Jupyter the way the README tells users to,
//     through scripts/notebook (--no-setup, a folder of its own, 127.0.0.1),
//     and checks that the URL it prints answers. It opens
//     notebooks/00-quickstart.ipynb (a byte-identical copy: the committed
//     notebook is never served, so Jupyter cannot save over it) and checks
//     what a reader sees before running anything: Jupyter trusts it (the
//     signature scripts/setup stored covers the copy; nbformat's notary,
//     asked directly, is the oracle), its saved echarts charts drew, its
//     saved PNGs loaded and the header's markdown table shows. Its subtest
//     "unsigned" opens a copy with one markdown cell changed and checks that
//     the same check fails there: not trusted, charts not drawn, no table.
//     Its subtest "committed" opens every other committed notebook and checks
//     each as opened in the same way (their charts load echarts from
//     notebooks/assets/, which scripts/setup writes).
//     Then it clears the outputs, runs every cell through the notebook UI and
//     checks that no cell failed, that every echarts chart drew and that
//     every PNG image loaded.
//   - TestSitePages copies the rendered site in out/ (the HTML pages and the
//     asset folders they reference) to a fresh folder, serves it with net/http
//     on 127.0.0.1 and opens every page with the network blocked: nothing may
//     fail to load, no script may throw, charts must draw, images must load,
//     MathJax must typeset the pages that carry TeX, and no page may point at
//     file:// or http(s):// for its scripts, styles or images.
//   - TestLiveControls runs a copy of notebooks/07-tradeoff.ipynb in the
//     same way, then moves its live controls (model C1, then C4 with C = 10,
//     then TGC) and checks that every redraw shows the new setting, that the
//     accuracy and objective change, that the previous values stay as a trace,
//     that TGC's non-submodular edges are drawn, and that the stop button ends
//     the cell without an error.
//   - TestLiveYourImages runs notebooks/09-your-images.ipynb the same way
//     (startLiveSection): every cell passes, the live section draws C4 at
//     C = 1, picking C0 redraws it with a lower held-out accuracy, and stop
//     ends the cell.
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
