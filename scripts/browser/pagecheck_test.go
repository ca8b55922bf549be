package browser

import (
	"fmt"
	"time"
)

// chartsJS finds the echarts charts a page should show: every element id
// passed to echarts.init in a script (viz.EChartHTML writes one such script
// per chart) or in the HTML outputs that Jupyter's notebook model holds (its
// UI may not keep script elements in the DOM), plus every element echarts
// has already initialised. For each it returns the canvases as PNG data
// URLs, so that Go decides whether they are blank.
const chartsJS = `(() => {
  const ids = new Set();
  const re = /echarts\.init\(\s*document\.getElementById\(\s*["']([^"']+)["']/g;
  const scan = (s) => { let m; re.lastIndex = 0; while ((m = re.exec(s))) ids.add(m[1]); };
  for (const s of document.querySelectorAll('script')) scan(s.textContent);
  if (window.Jupyter && Jupyter.notebook) {
    for (const c of Jupyter.notebook.get_cells()) {
      for (const o of (c.output_area ? c.output_area.outputs : [])) {
        const h = o.data && o.data['text/html'];
        if (h) scan(Array.isArray(h) ? h.join('') : h);
      }
    }
  }
  for (const el of document.querySelectorAll('[_echarts_instance_]')) if (el.id) ids.add(el.id);
  return [...ids].map(id => {
    const el = document.getElementById(id);
    if (!el) return {id: id, found: false, canvases: []};
    return {id: id, found: true, canvases: [...el.querySelectorAll('canvas')].map(c => {
      try { return {w: c.width, h: c.height, url: c.toDataURL('image/png')}; }
      catch (e) { return {w: c.width, h: c.height, err: String(e)}; }
    })};
  });
})()`

type jsCanvas struct {
	W, H int
	URL  string
	Err  string
}

type jsChart struct {
	ID       string
	Found    bool
	Canvases []jsCanvas
}

// Chart is what one echarts chart of the page shows.
type Chart struct {
	ID       string
	Canvases int
	Ink      float64 // the largest ink fraction over its canvases
	Problem  string  // why it counts as not drawn, or ""
}

// Charts reads every echarts chart of the page (see chartsJS).
func (p *Page) Charts() ([]Chart, error) {
	raw, err := Eval[[]jsChart](p, chartsJS, time.Minute)
	if err != nil {
		return nil, fmt.Errorf("reading the charts: %w", err)
	}
	var out []Chart
	for _, r := range raw {
		c := Chart{ID: r.ID, Canvases: len(r.Canvases)}
		var errs []string
		for _, cv := range r.Canvases {
			if cv.Err != "" {
				errs = append(errs, cv.Err)
				continue
			}
			img, err := decodeDataURL(cv.URL)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			c.Ink = max(c.Ink, Ink(img))
		}
		switch {
		case !r.Found:
			c.Problem = "no element with this id in the page"
		case len(r.Canvases) == 0:
			c.Problem = "no canvas: echarts never drew it"
		case c.Ink < blankInk:
			c.Problem = fmt.Sprintf("canvas is blank (%.4f%% of pixels differ from the background)", 100*c.Ink)
			if len(errs) > 0 {
				c.Problem += "; " + fmt.Sprint(errs)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// chartsSettledJS is true once every chart the page declares has a canvas
// (the charts' scripts poll for the echarts library before drawing).
const chartsSettledJS = `(() => {
  const cs = ` + chartsJS + `;
  return cs.every(c => c.found && c.canvases.length > 0);
})()`

// WaitCharts waits until every declared chart has a canvas, or the timeout
// passes (the caller then reports the charts that never drew).
func (p *Page) WaitCharts(timeout time.Duration) {
	_ = p.WaitFor("charts to draw", chartsSettledJS, timeout, 500*time.Millisecond)
	// echarts animates its first draw; let it finish before reading pixels.
	time.Sleep(1500 * time.Millisecond)
}

// Image is one <img> of the page.
type Image struct {
	Src      string // at most 80 characters
	Complete bool
	Width    int // natural width, 0 when it did not load
	PNG      bool
}

// Images reads the <img> elements that match the CSS selector.
func (p *Page) Images(selector string) ([]Image, error) {
	js := fmt.Sprintf(`[...document.querySelectorAll(%q)].map(i => {
  const s = i.getAttribute('src') || '';
  return {src: s.slice(0, 80), complete: i.complete, width: i.naturalWidth,
          png: s.startsWith('data:image/png') || /\.png([?#]|$)/i.test(s)};
})`, selector)
	imgs, err := Eval[[]Image](p, js, time.Minute)
	if err != nil {
		return nil, fmt.Errorf("reading the images: %w", err)
	}
	return imgs, nil
}

// WaitImages waits until every matching image finished loading (or failed).
func (p *Page) WaitImages(selector string, timeout time.Duration) {
	_ = p.WaitFor("images to load", fmt.Sprintf(`[...document.querySelectorAll(%q)].every(i => i.complete)`, selector), timeout, 500*time.Millisecond)
}

// mathJS counts what MathJax typeset (MathJax 2's output classes and
// MathJax 3's elements) and the TeX errors it showed.
const mathJS = `(() => ({
  defined: typeof window.MathJax !== 'undefined',
  typeset: document.querySelectorAll('.MathJax, .MathJax_Display, .MathJax_CHTML, .MathJax_SVG, mjx-container').length,
  errors: [...document.querySelectorAll('.MathJax_Error, merror, .mjx-merror, mjx-merror')].map(e => e.textContent.slice(0, 120))
}))()`

// Math is what MathJax did on the page.
type Math struct {
	Defined bool
	Typeset int
	Errors  []string
}

// MathJax waits up to timeout for MathJax to be defined and, when
// typeset is true (the page holds TeX), to typeset something; then it
// reports what MathJax did.
func (p *Page) MathJax(typeset bool, timeout time.Duration) (Math, error) {
	cond := `(` + mathJS + `).defined`
	if typeset {
		cond = `(` + mathJS + `).typeset > 0`
	}
	_ = p.WaitFor("MathJax", cond, timeout, 500*time.Millisecond)
	return Eval[Math](p, mathJS, time.Minute)
}

// clippedJS lists what a page shows cut off: an SVG text (a chart's label
// or legend) that runs past its drawing's edge, and a code or output
// block whose lines run past its box without a way to scroll to them
// (overflow visible spills them over the page's edge, hidden cuts them).
// Each entry says where, with the text clipped to 80 characters.
const clippedJS = `(() => {
  const out = [];
  const cut = (s) => s.replace(/\s+/g, ' ').trim().slice(0, 80);
  for (const t of document.querySelectorAll('svg text')) {
    const svg = t.ownerSVGElement;
    if (!svg || !t.getClientRects().length) continue;
    const a = t.getBoundingClientRect(), b = svg.getBoundingClientRect();
    if (a.width === 0) continue;
    if (a.left < b.left - 1 || a.right > b.right + 1 || a.top < b.top - 1 || a.bottom > b.bottom + 1)
      out.push('SVG text "' + cut(t.textContent) + '" runs past its drawing (' + Math.round(a.right - b.right) + ' px right, ' + Math.round(b.left - a.left) + ' px left)');
  }
  for (const p of document.querySelectorAll('pre')) {
    if (!p.getClientRects().length || p.scrollWidth <= p.clientWidth + 1) continue;
    const ov = getComputedStyle(p).overflowX;
    let scrolls = ov === 'auto' || ov === 'scroll';
    for (let e = p.parentElement; e && !scrolls; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX;
      if (o === 'auto' || o === 'scroll') scrolls = e.scrollWidth > e.clientWidth;
      if (o === 'hidden') break;
    }
    if (!scrolls) out.push('code block "' + cut(p.textContent) + '" is ' + p.scrollWidth + ' px wide in a ' + p.clientWidth + ' px box that neither wraps nor scrolls');
  }
  return out;
})()`

// Clipped lists what the page shows cut off (see clippedJS).
func (p *Page) Clipped() ([]string, error) {
	return Eval[[]string](p, clippedJS, time.Minute)
}
