package viz

import (
	_ "embed"
	"fmt"
	"html"
	"os"
	"strings"
	"text/template"
	"time"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/probably-submodular/crf/internal/runenv"
)

// InNotebook reports whether the program runs inside a GoNB cell.
func InNotebook() bool { return gonbui.IsNotebook }

// ShowHTML displays HTML in the notebook (outside: prints a text note).
func ShowHTML(h string) {
	show(func() { gonbui.DisplayHTML(h) }, fmt.Sprintf("[html output, %d bytes]", len(h)))
}

// ShowMarkdown displays markdown in the notebook (outside: prints it).
func ShowMarkdown(md string) { show(func() { gonbui.DisplayMarkdown(md) }, md) }

// ShowPNG displays PNG bytes in the notebook (outside: prints a text note).
func ShowPNG(png []byte) {
	show(func() { gonbui.DisplayPNG(png) }, fmt.Sprintf("[png image, %d bytes]", len(png)))
}

// show runs display in a notebook and waits for GoNB to take it, else
// prints outside.
func show(display func(), outside string) {
	if !InNotebook() {
		fmt.Println(outside)
		return
	}
	display()
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

// HeaderInfo is what every notebook states at its top.
type HeaderInfo struct {
	Title      string // notebook title
	Reproduces string // what of the paper it reproduces
	Data       string // which data it ran on, said plainly
	// Run is the run that made the page (profile, commit, machine, date):
	// runenv.Current() in a notebook. viz draws it as given.
	Run runenv.Run
}

// HeaderMarkdown renders the notebook header: title, what it reproduces, a
// line saying which profile produced this page and how to read its prose,
// then the data, the profile, the commit, the date and the machine of h.Run
// (what h.Run leaves empty shows as unknown).
//
// Notebook prose is written once and shown beside the outputs of either
// profile, so it never claims which profile the page shows; the header does.
// In the quick profile it says plainly that the tables are from a reduced
// run and that prose quoting numbers describes the full run it names.
func HeaderMarkdown(h HeaderInfo) string {
	var b strings.Builder
	if err := headerTemplate.Execute(&b, h); err != nil {
		panic(err) // a HeaderInfo always fits the template
	}
	return b.String()
}

//go:embed header.md
var headerText string

var headerTemplate = template.Must(template.New("header").Funcs(template.FuncMap{
	"cell": strings.NewReplacer("|", "\\|", "\n", " ").Replace, // in a table cell
	"full": func(profile string) bool { return profile == runenv.FullProfile },
	"date": func(t time.Time) string {
		if t.IsZero() {
			return "unknown"
		}
		return t.UTC().Format("2006-01-02 15:04 UTC")
	},
}).Parse(headerText))

// Header displays the notebook header, then loads the echarts library for
// the interactive charts of this notebook: it makes sure the library is in
// assets/ beside the notebook (EchartsAsset) and shows the one script tag
// that loads it, so the saved notebook carries a reference, not the 0.7 MB
// library (a note says so when the library is missing).
func Header(h HeaderInfo) {
	// The marker (an HTML comment) lets the rendered site's index read the
	// title, data and profile without parsing the table's wording.
	ShowMarkdown(HeaderMarkdown(h) + HeaderMarker(h))
	if !InNotebook() {
		return
	}
	lib, err := EchartsLibrary()
	if err == nil {
		_, err = WriteEchartsAsset(notebookDir(), lib)
	}
	if err != nil {
		ShowHTML("<p><i>" + html.EscapeString(err.Error()) + "</i></p>")
		return
	}
	ShowHTML(EchartsLoader())
}

// notebookDir is the folder of the running notebook: GoNB runs a cell's
// program in a scratch folder and names the kernel's folder, the notebook's,
// in $GONB_DIR.
func notebookDir() string {
	if d := os.Getenv("GONB_DIR"); d != "" {
		return d
	}
	d, _ := os.Getwd()
	return d
}
