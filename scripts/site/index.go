package main

import (
	"bytes"
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
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>psub: the paper's experiments, reproduced</title>
<link rel="icon" href="data:,">
<style>
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1d2329; margin: 2em auto; max-width: 1200px; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
p.run { color: #4a5560; margin-top: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .45em .6em; border-bottom: 1px solid #dde2e6; }
th { background: #f3f5f7; font-weight: 600; white-space: nowrap; }
td.num, td.profile { white-space: nowrap; }
td.status { min-width: 5em; max-width: 16em; }
td.num { text-align: right; }
td.data { font-size: .88em; color: #4a5560; max-width: 26em; }
td.headline { min-width: 16em; max-width: 34em; }
td .name { display: block; font-size: .82em; color: #6a747e; }
.ok { color: #1a7f37; font-weight: 600; }
.failed { color: #c62828; font-weight: 600; }
.needs { color: #9a6700; font-weight: 600; }
.note { display: block; font-size: .82em; color: #6a747e; font-weight: normal; overflow-wrap: anywhere; }
code { font-size: .92em; background: #f3f5f7; padding: 0 .2em; border-radius: 3px; }
a { color: #0b5cad; }
footer { margin-top: 1.5em; font-size: .85em; color: #6a747e; }
</style>
</head>
<body>
<h1>psub: the paper's experiments, reproduced</h1>
<p class="run">
{{- with .Run}}Run of {{.Finished.Format "2006-01-02 15:04 UTC"}} · commit <code>{{.Commit}}</code> · {{.Machine}}{{else}}No run records (pages rendered by an older scripts/reproduce){{end}} · {{len .Rows}} notebooks: {{.Counts}}</p>
<table>
<thead><tr><th>notebook</th><th>profile</th><th>data</th><th>run time</th><th>status</th><th>paper vs ours</th></tr></thead>
<tbody>
{{- range .Rows}}
<tr id="{{.Name}}">
<td>{{if .Page}}<a href="{{.Page}}">{{.Title}}</a>{{else}}{{.Title}}{{end}}<span class="name">{{.Name}}</span></td>
<td class="profile">{{or .Profile}}</td>
<td class="data"{{if .Data}} title="{{.Data}}"{{end}}>{{if .Data}}{{inline (dataLine .Name .Data)}}{{else}}—{{end}}</td>
<td class="num">{{duration .Seconds}}</td>
<td class="status">{{if eq .Status "ok"}}<span class="ok">ok</span>{{else if eq .Status "failed"}}<span class="failed">failed</span>{{if .Errors}}<span class="note" title="{{.Errors}}">{{printf "%.80s" .Errors}}</span>{{end}}{{if .Log}}<a class="note" href="{{.Log}}">log</a>{{end}}{{else if eq .Status "needs-data"}}<span class="needs">needs data</span>{{if .Errors}}<span class="note">{{inline .Errors}}</span>{{end}}{{else}}—<span class="note">no run record</span>{{end}}{{if .Earlier}}<span class="note">{{.Earlier}}</span>{{end}}</td>
<td class="headline">{{or .Headline}}</td>
</tr>
{{- end}}
</tbody>
</table>
<footer>Written by <code>scripts/reproduce</code> (<code>scripts/site</code>) from the executed notebooks in <code>notebooks/</code> beside this page. Every page works offline: MathJax and require.js are in <code>static/</code>, charts and images are inside the pages.</footer>
</body>
</html>
`))
