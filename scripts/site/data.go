package main

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/safefile"
)

// notebookData lists the data sets each notebook reads (by its NN prefix);
// a notebook not listed (00, 07) runs on embedded synthetic data.
// TestNotebookDataMatchesCode checks it against the notebooks' code.
var notebookData = map[string][]string{
	"01": {"tud_cows"},
	"02": {"tud_cows"},
	"03": {"weizmann_horse"},
	"04": {"epfl_mito"},
	"05": {"yeast", "scene"},
	"06": {"tud_cows"},
	"08": {"tud_cows"},
}

// DataSets returns the data sets of a notebook (a path or NN-name).
func DataSets(nb string) []string {
	name := filepath.Base(nb)
	if len(name) < 2 {
		return nil
	}
	return notebookData[name[:2]]
}

// NeedsData is what a page says about a notebook that could not run for
// want of data.
type NeedsData struct {
	Name, Title string
	Sets        []SetPlace
	Command     string
	Why         string // why no fetch happened (refused, offline...)
}

// SetPlace is one missing data set and where it was looked for.
type SetPlace struct {
	Set    string
	Looked []string
}

// FetchCommand is the one command that gets the sets.
func FetchCommand(sets []string) string { return "scripts/fetch-data " + strings.Join(sets, " ") }

// locator finds the data sets as the notebooks do (tests change it).
var locator = data.Locator{}

// lookFor says where the loaders looked for set: the Locator's list, or the
// folder found, which then lacks files.
func lookFor(set string) []string {
	dir, err := locator.Find(set)
	if err == nil {
		return []string{dir + ": found, but files are missing or fail verification (scripts/fetch-data --check " + set + " lists them)"}
	}
	var looked []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if s, ok := strings.CutPrefix(l, "  - "); ok {
			looked = append(looked, s)
		}
	}
	if len(looked) == 0 && !errors.Is(err, data.ErrNotFound) {
		looked = append(looked, err.Error())
	}
	return looked
}

// WriteNeedsData writes outDir/NAME.html, a short page in place of the
// notebook's: which data sets, where they were looked for, the command.
func WriteNeedsData(outDir, nb string, sets []string, why string) (NeedsData, error) {
	name := strings.TrimSuffix(filepath.Base(nb), ".ipynb")
	n := NeedsData{Name: name, Title: name, Command: FetchCommand(sets), Why: why}
	if s, err := ReadSummary(nb); err == nil && s.Title != "" {
		n.Title = s.Title
	}
	for _, s := range sets {
		n.Sets = append(n.Sets, SetPlace{Set: s, Looked: lookFor(s)})
	}
	var b bytes.Buffer
	if err := needsDataTemplate.Execute(&b, n); err != nil {
		return n, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return n, err
	}
	return n, safefile.WriteBytes(filepath.Join(outDir, name+".html"), b.Bytes())
}

// Summary is the one line the index and the record keep.
func (n NeedsData) Summary() string {
	var sets []string
	for _, p := range n.Sets {
		sets = append(sets, p.Set)
	}
	return fmt.Sprintf("needs data: %s; run `%s`", strings.Join(sets, ", "), n.Command)
}

var needsDataTemplate = template.Must(template.New("needs").Parse(needsDataHTML))

// needsDataHTML is the template of the page in place of a notebook that
// needs data.
//
//go:embed needsdata.html.tmpl
var needsDataHTML string
