package viz

import (
	"cmp"
	"fmt"
	"html"
	"os"
	"strings"
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
	r := h.Run
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s\n\n%s\n\n", h.Title, h.Reproduces, ProfileNote(r.Profile))
	cell := strings.NewReplacer("|", "\\|", "\n", " ").Replace
	date := "unknown"
	if !r.Date.IsZero() {
		date = r.Date.UTC().Format("2006-01-02 15:04 UTC")
	}
	fmt.Fprintf(&b, "| | |\n|---|---|\n| data | %s |\n| profile | `%s` (set by `scripts/reproduce --quick/--full`, env `PSUB_PROFILE`) |\n| commit | `%s` |\n| date | %s |\n| machine | %s |\n",
		cell(h.Data), cmp.Or(r.Profile, "unknown"), cmp.Or(r.Commit, "unknown"), date, cell(cmp.Or(r.Machine, "unknown")))
	return b.String()
}

// ProfileNote is the line the header shows for profile ("quick" or "full";
// "" when the notebook did not say).
func ProfileNote(profile string) string {
	switch profile {
	case "":
		return "> **Profile not stated:** the notebook passed no run to viz.Header " +
			"(`Run: runenv.Current()` states the profile, commit and machine)."
	case runenv.FullProfile:
		return "> **Full profile:** the notebook's full settings, the paper's protocol where it " +
			"reproduces an experiment of the paper (its text says where it departs). The tables and " +
			"figures on this page come from this run (commit and date below), and every measured " +
			"number in its text is printed by the run."
	}
	return "> **Quick profile: a reduced run, not the paper's protocol.** Fewer images, folds, " +
		"values of C or iterations than the full profile (the parameters cell says which), so that " +
		"the notebook runs in minutes; the tables and figures on this page come from this reduced " +
		"run, and every measured number in its text is printed by this run, not the full one. " +
		"`scripts/reproduce --full` renders the full profile."
}

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
