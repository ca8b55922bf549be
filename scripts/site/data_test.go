package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
)

// loaders are the calls in a notebook's code that read each data set.
var loaders = map[string]*regexp.Regexp{
	"tud_cows":       regexp.MustCompile(`\b(data\.BuildCows|protocol\.(Cows|Efficiency)|(cows|efficiency|samplecomplexity)\.Experiment)\b`),
	"weizmann_horse": regexp.MustCompile(`\b(data\.BuildHorses\w*|protocol\.Retina|retina\.Experiment)\b`),
	"epfl_mito":      regexp.MustCompile(`\b(data\.BuildMito\w*|protocol\.Mito|mito\.Experiment)\b`),
	"yeast":          regexp.MustCompile(`\b(data\.LoadYeast|multilabel\.Experiment)\b`),
	"scene":          regexp.MustCompile(`\b(data\.LoadScene|multilabel\.Experiment)\b`),
}

// TestNotebookDataMatchesCode: the table notebookData names exactly the
// data sets whose loaders each notebook's code calls.
func TestNotebookDataMatchesCode(t *testing.T) {
	nbs, err := filepath.Glob("../../notebooks/*.ipynb")
	if err != nil || len(nbs) < 9 {
		t.Fatalf("notebooks: %v, %v", nbs, err)
	}
	for _, nb := range nbs {
		b, err := os.ReadFile(nb)
		if err != nil {
			t.Fatal(err)
		}
		var doc notebook
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		var code strings.Builder
		for _, c := range doc.Cells {
			if c.CellType == "code" {
				code.WriteString(string(c.Source) + "\n")
			}
		}
		var uses []string
		for set, re := range loaders {
			if re.MatchString(code.String()) {
				uses = append(uses, set)
			}
		}
		sort.Strings(uses)
		table := append([]string(nil), DataSets(nb)...)
		sort.Strings(table)
		if strings.Join(uses, " ") != strings.Join(table, " ") {
			t.Errorf("%s: its code reads %q, notebookData says %q", nb, uses, table)
		}
	}
	if len(DataSets("notebooks/00-quickstart.ipynb")) != 0 || len(DataSets("07-tradeoff")) != 0 {
		t.Error("00 and 07 run on embedded synthetic data")
	}
}

// TestNeedsDataPage: the page names the set, where it was looked for and
// the command; the record and the index say "needs data", not failed.
func TestNeedsDataPage(t *testing.T) {
	out := copyTree(t, "testdata/out")
	// $PSUB_DATA names a folder without the data set (a missing folder is
	// an error of its own, tested in package data).
	empty := filepath.Join(t.TempDir(), "nothing-here")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PSUB_DATA", empty)
	// A working directory outside the module: no ../shared/data either.
	defer func(l data.Locator) { locator = l }(locator)
	locator = data.Locator{WorkDir: t.TempDir()}
	var stdout, stderr bytes.Buffer
	err := run([]string{"needs-data", "-out", out, "-notebook", "../../notebooks/01-cows.ipynb", "-sets", "tud_cows",
		"-why", "refused (--no-fetch)", "-profile", "quick", "-run", "r1"}, &stdout, &stderr)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	page, err := os.ReadFile(filepath.Join(out, "01-cows.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<code>tud_cows</code>", "nothing-here/tud_cows ($PSUB_DATA): does not exist",
		"<pre>scripts/fetch-data tud_cows</pre>", "refused (--no-fetch)"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(string(page), "panic") {
		t.Error("page mentions a panic")
	}
	rec, err := ReadRecord(recordPath(out, "01-cows"))
	if err != nil || rec == nil || rec.Status != NeedsDataStatus || rec.Errors != "needs data: tud_cows; run `scripts/fetch-data tud_cows`" {
		t.Fatalf("record %+v, %v", rec, err)
	}
	s, err := LoadSite(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Counts(), "1 need data") {
		t.Errorf("counts %q", s.Counts())
	}
	if err := WriteIndex(out, s); err != nil {
		t.Fatal(err)
	}
	idx, _ := os.ReadFile(filepath.Join(out, "index.html"))
	row := string(idx[strings.Index(string(idx), `<tr id="01-cows">`):])
	row = row[:strings.Index(row, "</tr>")]
	if !strings.Contains(row, `<span class="needs">needs data</span>`) || !strings.Contains(row, "<code>scripts/fetch-data tud_cows</code>") ||
		strings.Contains(row, "failed") || !strings.Contains(row, `href="01-cows.html"`) {
		t.Errorf("index row:\n%s", row)
	}
	if pages, problems, err := CheckSite(out); err != nil || len(problems) > 0 || pages == 0 {
		t.Errorf("check: %d pages, %v, %v", pages, problems, err)
	}
}

// TestDataLine: one short line per notebook, from headers as the notebooks
// write them.
func TestDataLine(t *testing.T) {
	for _, c := range []struct{ name, full, want string }{
		{"01-cows", "TU Darmstadt cows (/work/shared/data/tud_cows): 20 of 111 images, half resolution; SLIC ~500 superpixels", "tud_cows · TU Darmstadt cows: 20 of 111 images, half resolution"},
		{"00-quickstart", "embedded synthetic data (seed 1, `20` graphs) | no real data", "synthetic · embedded synthetic data (seed 1, `20` graphs)"},
		{"04-mitochondria", "train on the two x-halves of the training volume (C chosen on one half trained with the other), test on the testing volume. EPFL mitochondria", "epfl_mito · train on the two x-halves of the training volume (C chosen on one half trained with the…"},
	} {
		if got := dataLine(c.name, c.full); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
