// Package viz draws plain values for the notebooks: static charts with
// gonum.org/v1/plot (PNG/SVG, saved in the notebook and rendered on GitHub),
// interactive charts with go-echarts that work offline, HTML tables, and an
// in-place progress line for long cells. The echarts JavaScript comes from
// the npm package installed by scripts/setup and lives once beside the
// notebooks, in assets/echarts.min.js (EchartsAsset); Header loads it by that
// relative URL, which the rendered site's pages share, so no saved notebook
// carries the library itself.
//
// viz knows no algorithm: it takes numbers, strings and images. Functions
// that build something (PNG bytes, HTML) are separate from the Show*
// functions that display it through GoNB's gonbui, so they can be tested
// and used outside a notebook. Outside a notebook, Show* functions write a
// short text note to standard output instead.
package viz
