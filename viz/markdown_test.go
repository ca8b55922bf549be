package viz

import "strings"

// Markdown and TableMarkdown write a comparison as text, which the tests
// read more easily than HTML (the notebooks show Comparison.HTML).

// Markdown renders the comparison as a markdown table.
func (c Comparison) Markdown() string {
	h, r := c.Cells()
	out := "**" + c.Title + "** — ours (paper, " + c.Rule() + ")\n\n" + TableMarkdown(h, r)
	for _, n := range c.Notes {
		out += "\n" + n + "\n"
	}
	return out
}

// TableMarkdown renders a markdown table.
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
