package viz

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
)

// InNotebook reports whether the program runs inside a GoNB cell.
func InNotebook() bool { return gonbui.IsNotebook }

// ShowHTML displays HTML in the notebook (outside: prints a text note).
func ShowHTML(h string) {
	if !InNotebook() {
		fmt.Printf("[html output, %d bytes]\n", len(h))
		return
	}
	gonbui.DisplayHTML(h)
	flush()
}

// ShowMarkdown displays markdown in the notebook (outside: prints it).
func ShowMarkdown(md string) {
	if !InNotebook() {
		fmt.Println(md)
		return
	}
	gonbui.DisplayMarkdown(md)
	flush()
}

// ShowPNG displays PNG bytes in the notebook (outside: prints a text note).
func ShowPNG(png []byte) {
	if !InNotebook() {
		fmt.Printf("[png image, %d bytes]\n", len(png))
		return
	}
	gonbui.DisplayPNG(png)
	flush()
}

// flush waits until GoNB has taken every display message sent so far. GoNB
// stops reading the display pipe when the cell's program exits, so a table
// shown just before the end of a cell could otherwise be lost (it was, once,
// in a headless render of notebook 03). A kernel that never acknowledges
// costs at most flushWait per display instead of a hung cell.
func flush() {
	done := make(chan struct{})
	go func() {
		gonbui.Sync()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(flushWait):
	}
}

const flushWait = 10 * time.Second

// EchartsScript wraps the echarts library so that it always defines the
// global echarts: pages that carry require.js (Jupyter's classic HTML
// export does) would otherwise make its UMD wrapper register an AMD module
// and leave window.echarts undefined.
func EchartsScript(js string) string {
	return "<script>(function(define, module, exports){\n" + js + "\n}).call(window, undefined, undefined, undefined);</script>"
}

// HeaderInfo is what every notebook states at its top.
type HeaderInfo struct {
	Title      string // notebook title
	Reproduces string // what of the paper it reproduces
	Data       string // which data it ran on, said plainly
}

// HeaderMarkdown renders the notebook header: title, what it reproduces, the
// data, the profile, the commit and the machine.
func HeaderMarkdown(h HeaderInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s\n\n", h.Title, h.Reproduces)
	cell := strings.NewReplacer("|", "\\|", "\n", " ").Replace
	fmt.Fprintf(&b, "| | |\n|---|---|\n| data | %s |\n| profile | `%s` (set by `scripts/reproduce --quick/--full`, env `PSUB_PROFILE`) |\n| commit | `%s` |\n| machine | %s |\n",
		cell(h.Data), Profile(), Commit(), cell(Machine()))
	return b.String()
}

// Header displays the notebook header and loads the echarts library once
// for the interactive charts of this notebook (a note says so when it is
// missing).
func Header(h HeaderInfo) {
	ShowMarkdown(HeaderMarkdown(h))
	if js, err := EchartsLibrary(); err == nil {
		ShowHTML(EchartsScript(js))
	} else {
		ShowHTML("<p><i>" + html.EscapeString(err.Error()) + "</i></p>")
	}
}
