package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/probably-submodular/crf/viz"
)

// text is a notebook string field: nbformat stores it as one string or as
// a list of lines.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = text(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return fmt.Errorf("want a string or a list of strings: %v", err)
	}
	*t = text(strings.Join(lines, ""))
	return nil
}

type notebook struct {
	Cells []struct {
		CellType string `json:"cell_type"`
		Source   text   `json:"source"`
		Outputs  []struct {
			OutputType string                     `json:"output_type"`
			Data       map[string]json.RawMessage `json:"data"`
			Text       text                       `json:"text"`
			Ename      string                     `json:"ename"`
			Evalue     string                     `json:"evalue"`
		} `json:"outputs"`
	} `json:"cells"`
}

// Summary is what the index shows of an executed notebook.
type Summary struct {
	Title     string   // viz.Header's title, else the first markdown heading
	Data      string   // the data it ran on, as its header says
	Profile   string   // the profile, as its header says
	Headlines []string // viz.Headline's lines, in order
	Errors    int      // error outputs (cells that failed)
	Warnings  []string // malformed markers
}

// textTypes are the output types that can hold a marker or the header.
var textTypes = []string{"text/html", "text/markdown"}

// ReadSummary reads an executed notebook.
func ReadSummary(path string) (Summary, error) {
	var s Summary
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		return s, fmt.Errorf("%s: not a notebook: %v", path, err)
	}
	var header *viz.Marker
	var tableTitle, tableData, tableProfile string
	for i, c := range nb.Cells {
		if c.CellType == "markdown" && s.Title == "" {
			s.Title = firstHeading(string(c.Source))
		}
		for _, o := range c.Outputs {
			if o.OutputType == "error" {
				s.Errors++
			}
			for _, mime := range textTypes {
				raw, ok := o.Data[mime]
				if !ok {
					continue
				}
				var t text
				if err := json.Unmarshal(raw, &t); err != nil {
					s.Warnings = append(s.Warnings, fmt.Sprintf("%s: cell %d: %s output: %v", path, i, mime, err))
					continue
				}
				ms, err := viz.ParseMarkers(string(t))
				if err != nil {
					s.Warnings = append(s.Warnings, fmt.Sprintf("%s: cell %d: %v", path, i, err))
				}
				for _, m := range ms {
					switch m.Kind {
					case "headline":
						s.Headlines = append(s.Headlines, m.Text)
					case "header":
						if header == nil {
							header = &m
						}
					}
				}
				if mime == "text/markdown" && tableData == "" && tableProfile == "" {
					tableTitle, tableData, tableProfile = parseHeaderTable(string(t))
				}
			}
		}
	}
	// The header's marker when present; its table otherwise.
	if header != nil {
		tableTitle, tableData, tableProfile = header.Title, header.Data, header.Profile
	}
	if tableTitle != "" {
		s.Title = tableTitle
	}
	s.Data, s.Profile = tableData, tableProfile
	return s, nil
}

// firstHeading returns the text of the first markdown heading.
func firstHeading(md string) string {
	for _, l := range strings.Split(md, "\n") {
		if t := strings.TrimLeft(l, "#"); len(t) < len(l) && strings.HasPrefix(t, " ") {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// parseHeaderTable reads viz.Header's markdown: "## title", then a table
// with rows "| data | … |" and "| profile | `quick` (…) |". Empty strings
// when the output is not a header.
func parseHeaderTable(md string) (title, data, profile string) {
	var heading string
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSpace(l)
		if heading == "" && strings.HasPrefix(l, "#") {
			heading = firstHeading(l)
		}
		cells := splitRow(l)
		if len(cells) < 2 {
			continue
		}
		switch strings.ToLower(cells[0]) {
		case "data":
			data = cells[1]
		case "profile":
			profile = cells[1]
			if m := backquoted.FindStringSubmatch(profile); m != nil {
				profile = m[1]
			} else if f := strings.Fields(profile); len(f) > 0 {
				profile = f[0]
			}
		}
	}
	if data == "" && profile == "" {
		return "", "", ""
	}
	return heading, data, profile
}

// splitRow splits a markdown table row into trimmed cells, honouring "\|".
func splitRow(l string) []string {
	if !strings.HasPrefix(l, "|") {
		return nil
	}
	var cells []string
	var cur strings.Builder
	for i := 1; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteByte('|')
			i++
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return cells
}
