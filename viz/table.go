package viz

import (
	"fmt"
	"html"
	"math"
	"regexp"
	"strings"
)

// TableHTML renders a plain HTML table. Cells are escaped text, except for
// the two inline markdown forms of the tables recorded in the repository's
// markdown files, which are rendered rather than shown raw: **bold** and
// `code`. A lone asterisk ("C2*") stays as it is.
func TableHTML(headers []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString(`<table style="border-collapse:collapse;font-family:monospace">` + "\n<tr>")
	for _, h := range headers {
		fmt.Fprintf(&b, `<th style="border-bottom:1px solid #888;padding:2px 8px;text-align:right">%s</th>`, cellHTML(h))
	}
	b.WriteString("</tr>\n")
	for _, r := range rows {
		b.WriteString("<tr>")
		for j, c := range r {
			align := "right"
			if j == 0 {
				align = "left"
			}
			fmt.Fprintf(&b, `<td style="padding:2px 8px;text-align:%s">%s</td>`, align, cellHTML(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>")
	return b.String()
}

var (
	mdCode   = regexp.MustCompile("`([^`]+)`")
	mdStrong = regexp.MustCompile(`\*\*([^*\s](?:[^*]*[^*\s])?)\*\*`)
)

// cellHTML escapes a table cell and renders its **bold** and `code`.
func cellHTML(s string) string {
	s = html.EscapeString(s)
	s = mdCode.ReplaceAllString(s, "<code>$1</code>")
	return mdStrong.ReplaceAllString(s, "<b>$1</b>")
}

// TableMarkdown renders a markdown table (for README use).
func TableMarkdown(headers []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(headers, " | ") + " |\n|")
	for range headers {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// ShowTable displays a plain table.
func ShowTable(headers []string, rows [][]string) { ShowHTML(TableHTML(headers, rows)) }

// Comparison is a table of our values beside the paper's: Rows × Cols cells.
// A NaN in Paper means the paper gives no number; a NaN in Ours means we
// did not measure it.
type Comparison struct {
	Title      string
	Corner     string // header of the row-name column
	Rows, Cols []string
	Paper      [][]float64
	Ours       [][]float64
	Format     string  // fmt verb for values, default "%.1f"
	Flag       float64 // |ours − paper| above this is marked (default 1.5)
}

func (c Comparison) cell(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	f := c.Format
	if f == "" {
		f = "%.1f"
	}
	return fmt.Sprintf(f, v)
}

// Cells returns the header and the rows as text: each cell reads
// "ours (paper, Δ)"; a '!' marks a difference larger than Flag.
func (c Comparison) Cells() ([]string, [][]string) {
	flag := c.Flag
	if flag == 0 {
		flag = 1.5
	}
	headers := append([]string{c.Corner}, c.Cols...)
	rows := make([][]string, len(c.Rows))
	for i, name := range c.Rows {
		rows[i] = []string{name}
		for j := range c.Cols {
			p, o := math.NaN(), math.NaN()
			if i < len(c.Paper) && j < len(c.Paper[i]) {
				p = c.Paper[i][j]
			}
			if i < len(c.Ours) && j < len(c.Ours[i]) {
				o = c.Ours[i][j]
			}
			s := c.cell(o)
			switch {
			case math.IsNaN(p):
			case math.IsNaN(o):
				s += " (paper " + c.cell(p) + ")"
			default:
				d := o - p
				mark := ""
				if math.Abs(d) > flag {
					mark = " !"
				}
				s += fmt.Sprintf(" (paper %s, Δ %+.1f%s)", c.cell(p), d, mark)
			}
			rows[i] = append(rows[i], s)
		}
	}
	return headers, rows
}

// HTML renders the comparison with its title.
func (c Comparison) HTML() string {
	h, r := c.Cells()
	return "<p><b>" + html.EscapeString(c.Title) + "</b> — ours (paper, Δ = ours − paper; ! marks |Δ| above the flag)</p>" + TableHTML(h, r)
}

// Markdown renders the comparison as a markdown table.
func (c Comparison) Markdown() string {
	h, r := c.Cells()
	return "**" + c.Title + "**\n\n" + TableMarkdown(h, r)
}

// Show displays the comparison.
func (c Comparison) Show() { ShowHTML(c.HTML()) }
