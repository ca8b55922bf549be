// Command site turns scripts/reproduce's output folder (out/) into a
// self-contained rendered site: pages that work offline, copied to another
// directory or machine, or served by any static web server. Its commands
// (go run ./scripts/site help) copy MathJax, require.js and echarts beside
// the pages, point nbconvert at them, record each notebook's run, write the
// index and check that no page loads anything from this machine or the
// network.
//
// nbconvert 6.5's HTML template loads MathJax (v2, TeX-AMS_CHTML-full,Safe)
// and require.js from file:///usr/share/javascript/..., which breaks on any
// other machine; the pages instead load the npm copies installed by
// scripts/assets through relative URLs. Only the MathJax files that
// configuration loads are copied (121 files, 1.4 MB of the package's 73 MB).
//
// The index has one row per notebook: title, link to its page, profile,
// data, run time, status and the headline (paper vs ours). Title, data and
// profile come from viz.Header's output (its marker, or else its table),
// the headline from viz.Headline's marker in the executed notebook, status
// and time from the run records that scripts/reproduce writes with
// `site record`. Every file is written atomically (temporary name, rename).
package main
