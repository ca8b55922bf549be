package viz

import (
	"strings"
	"testing"
)

// Tables recorded in markdown files show their bold and code as such, not
// as raw asterisks and backticks (08's benchmark tables); other text, a
// lone asterisk included, is escaped as before.
func TestTableRendersInlineMarkdown(t *testing.T) {
	h := TableHTML([]string{"`solve` ms"}, [][]string{{"**Go/C++ CPU**", "**0.95**", "C2* <b>", "a ** b", "2*3*4"}})
	for _, want := range []string{"<code>solve</code> ms", "<b>Go/C++ CPU</b>", "<b>0.95</b>", "C2* &lt;b&gt;", "a ** b", "2*3*4"} {
		if !strings.Contains(h, want) {
			t.Errorf("table lacks %q:\n%s", want, h)
		}
	}
}
