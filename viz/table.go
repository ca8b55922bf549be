package viz

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"regexp"
	"strings"

	"github.com/probably-submodular/crf/viz/chart"
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

// ShowTable displays a plain table.
func ShowTable(headers []string, rows [][]string) { ShowHTML(TableHTML(headers, rows)) }

// Comparison draws a chart.Comparison (see there for its fields): our
// values beside the paper's, a deviation worth a reader's attention marked.
type Comparison chart.Comparison

// marked is name with its mark, if any.
func (c Comparison) marked(name string) string {
	if m := c.Marks[name]; m != "" {
		return name + " " + m
	}
	return name
}

func (c Comparison) cell(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf(cmp.Or(c.Format, "%.1f"), v)
}

// flag is the threshold on |ours − paper|; a Flag that could never mark a
// cell (Inf, NaN) or that is unset counts as the default.
func (c Comparison) flag() float64 {
	if c.Flag > 0 && !math.IsInf(c.Flag, 1) {
		return c.Flag
	}
	return 1.5
}

// Ratio is ours/paper with the conventions of Comparison.Factor: 1 when both
// are zero, +Inf when only paper is zero or the signs differ.
func Ratio(ours, paper float64) float64 {
	switch {
	case ours == 0 && paper == 0:
		return 1
	case paper == 0 || (ours < 0) != (paper < 0) && ours != 0:
		return math.Inf(1)
	}
	return ours / paper
}

// Deviation reports how ours deviates from paper under c's rule (the text
// after the paper's value, such as "Δ -3.1" or "×0.13") and whether the cell
// is marked.
func (c Comparison) Deviation(ours, paper float64) (string, bool) {
	if c.Factor > 1 {
		r := Ratio(ours, paper)
		f := math.Max(r, 1/r) // r = 0 gives +Inf
		if math.IsInf(r, 1) && paper != 0 {
			return "opposite sign", true
		}
		return "×" + ratioText(r), f > c.Factor
	}
	d := ours - paper
	return "Δ " + fmt.Sprintf(strings.Replace(cmp.Or(c.Format, "%.1f"), "%", "%+", 1), d), math.Abs(d) > c.flag()
}

// ratioText writes a ratio with two significant digits below 0.1, two
// decimals (trailing zeros dropped) up to 10, and none above.
func ratioText(r float64) string {
	switch {
	case math.IsInf(r, 1):
		return "∞"
	case r != 0 && r < 0.1:
		return fmt.Sprintf("%.2g", r)
	case r >= 10:
		return fmt.Sprintf("%.0f", r)
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", r), "0"), ".")
}

// Rule says in words how cells are compared and when they are marked.
func (c Comparison) Rule() string {
	if c.Factor > 1 {
		return fmt.Sprintf("× = ours / paper; ! marks a factor above %g either way, a zero against a non-zero value included", c.Factor)
	}
	return fmt.Sprintf("Δ = ours − paper; ! marks |Δ| above %g", c.flag())
}

// Cells returns the header and the rows as text: each cell reads
// "ours (paper, Δ)" or, with Factor, "ours (paper, ×ratio)"; a '!' marks a
// deviation beyond the rule (see Rule).
func (c Comparison) Cells() ([]string, [][]string) {
	headers := []string{c.Corner}
	for _, col := range c.Cols {
		headers = append(headers, c.marked(col))
	}
	rows := make([][]string, len(c.Rows))
	for i, name := range c.Rows {
		rows[i] = []string{c.marked(name)}
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
				text, marked := c.Deviation(o, p)
				if marked {
					text += " !"
				}
				s += fmt.Sprintf(" (paper %s, %s)", c.cell(p), text)
			}
			rows[i] = append(rows[i], s)
		}
	}
	return headers, rows
}

// HTML renders the comparison with its title and its rule.
func (c Comparison) HTML() string {
	h, r := c.Cells()
	out := "<p><b>" + html.EscapeString(c.Title) + "</b> — ours (paper, " + html.EscapeString(c.Rule()) + ")</p>" + TableHTML(h, r)
	for _, n := range c.Notes {
		out += "<p><small>" + html.EscapeString(n) + "</small></p>"
	}
	return out
}

// Show displays the comparison.
func (c Comparison) Show() { ShowHTML(c.HTML()) }
