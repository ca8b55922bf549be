package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"html"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/probably-submodular/crf/internal/safefile"
)

// Row is one notebook of the index.
type Row struct {
	Name     string // NN-name
	Title    string
	Page     string // NN-name.html, when rendered
	Log      string // logs/nb-NN-name.log, when present
	Profile  string
	Data     string
	Seconds  float64 // < 0: unknown
	Status   string  // "ok", "failed", "needs-data" or "" (no record)
	Errors   string  // what failed
	Headline string
	Earlier  string // when the row is from another run than the newest: its date and commit
}

// Site is what the index shows.
type Site struct {
	Rows     []Row
	Run      *Record // the newest record: date, commit, machine of the run
	Warnings []string
}

// Counts summarises the statuses.
func (s Site) Counts() string {
	n := map[string]int{}
	for _, r := range s.Rows {
		n[r.Status]++
	}
	c := fmt.Sprintf("%d ok, %d failed", n["ok"], n["failed"])
	if n[NeedsDataStatus] > 0 {
		c += fmt.Sprintf(", %d need data", n[NeedsDataStatus])
	}
	if n[""] > 0 {
		c += fmt.Sprintf(", %d without a run record", n[""])
	}
	return c
}

// LoadSite reads outDir/notebooks: every executed notebook NAME.ipynb and
// every run record NAME.run.json gives a row; a notebook that failed
// before nbconvert wrote it still has its record.
func LoadSite(outDir string) (Site, error) {
	var s Site
	dir := filepath.Join(outDir, "notebooks")
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		return s, err
	}
	names := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") || e.IsDir() {
			continue
		}
		if b, ok := strings.CutSuffix(n, ".run.json"); ok {
			names[b] = true
		} else if b, ok := strings.CutSuffix(n, ".ipynb"); ok {
			names[b] = true
		}
	}
	records := map[string]*Record{}
	for n := range names {
		r, err := ReadRecord(recordPath(outDir, n))
		if err != nil {
			s.Warnings = append(s.Warnings, err.Error())
		}
		records[n] = r
		if r != nil && (s.Run == nil || r.Finished.After(s.Run.Finished)) {
			s.Run = r
		}
	}
	for n := range names {
		s.Rows = append(s.Rows, s.row(outDir, n, records[n]))
	}
	sort.Slice(s.Rows, func(i, j int) bool { return s.Rows[i].Name < s.Rows[j].Name })
	return s, nil
}

func (s *Site) row(outDir, name string, rec *Record) Row {
	r := Row{Name: name, Title: name, Seconds: -1}
	exists := func(rel string) bool {
		_, err := os.Stat(filepath.Join(outDir, filepath.FromSlash(rel)))
		return err == nil
	}
	if exists(name + ".html") {
		r.Page = name + ".html"
	}
	if l := "logs/nb-" + name + ".log"; exists(l) {
		r.Log = l
	}
	executed := filepath.Join(outDir, "notebooks", name+".ipynb")
	sum, err := ReadSummary(executed)
	switch {
	case err == nil:
	case os.IsNotExist(err) && rec != nil:
		// Never written (the run stopped early): take only the title from
		// the source notebook (its committed outputs are another run's).
		// rec.Notebook is relative to the project root, out/'s parent.
		src, _ := ReadSummary(filepath.Join(filepath.Dir(filepath.Clean(outDir)), filepath.FromSlash(rec.Notebook)))
		sum = Summary{Title: src.Title}
	default:
		s.Warnings = append(s.Warnings, err.Error())
	}
	s.Warnings = append(s.Warnings, sum.Warnings...)
	if sum.Title != "" {
		r.Title = sum.Title
	}
	r.Data, r.Profile = sum.Data, sum.Profile
	r.Headline = strings.Join(sum.Headlines, "; ")
	if rec != nil {
		r.Status, r.Seconds, r.Errors = rec.Status, rec.Seconds, rec.Errors
		if r.Profile == "" {
			r.Profile = rec.Profile
		}
		if s.Run != nil && rec.Run != s.Run.Run {
			r.Earlier = fmt.Sprintf("earlier run: %s, commit %s", rec.Finished.Format("2006-01-02 15:04 UTC"), rec.Commit)
		}
	}
	return r
}

// WriteIndex writes outDir/index.html atomically.
func WriteIndex(outDir string, s Site) error {
	var b bytes.Buffer
	if err := indexTemplate.Execute(&b, s); err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	return safefile.WriteBytes(filepath.Join(outDir, "index.html"), b.Bytes())
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// inline renders the little markdown the header's data cell uses (`code`).
func inline(s string) template.HTML {
	return template.HTML(codeSpan.ReplaceAllString(html.EscapeString(s), "<code>$1</code>"))
}

// dataLine is the index's one line about a notebook's data: the data sets
// it reads (notebookData; none: synthetic) and the run's size, the first
// clause of its header's data text (before "|" or ";", without the folder
// in parentheses), cut to about 90 characters. The whole text stays on the
// notebook's page and in the cell's title.
func dataLine(name, full string) string {
	first, _, _ := strings.Cut(full, " | ")
	first, _, _ = strings.Cut(first, ";")
	first = folderInParens.ReplaceAllString(first, "")
	first = strings.TrimSpace(strings.Join(strings.Fields(first), " "))
	if r := []rune(first); len(r) > 90 {
		cut := string(r[:90])
		if i := strings.LastIndexByte(cut, ' '); i > 40 {
			cut = cut[:i]
		}
		first = strings.TrimRight(cut, " ,.:(") + "…"
	}
	sets := strings.Join(DataSets(name), ", ")
	if sets == "" {
		sets = "synthetic"
	}
	return sets + " · " + first
}

// folderInParens matches " (/abs/path)", a loader's folder.
var folderInParens = regexp.MustCompile(` \(/[^)]*\)`)

// duration prints a run time for people.
func duration(sec float64) string {
	switch {
	case sec < 0:
		return "—"
	case sec < 60:
		return fmt.Sprintf("%.0f s", sec)
	case sec < 3600:
		return fmt.Sprintf("%d min %02d s", int(sec)/60, int(sec)%60)
	default:
		return fmt.Sprintf("%.1f h", sec/3600)
	}
}

var indexTemplate = template.Must(template.New("index").Funcs(template.FuncMap{
	"inline":   inline,
	"dataLine": dataLine,
	"duration": duration,
	"or": func(s string) string {
		if strings.TrimSpace(s) == "" {
			return "—"
		}
		return s
	},
}).Parse(indexHTML))

// indexHTML is the index page's template.
//
//go:embed index.html.tmpl
var indexHTML string
