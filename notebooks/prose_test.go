package notebooks_test

// Every number in a notebook's prose comes from the run on the page (issue
// #46 item 2): a markdown cell may not quote a number a run measured,
// since the page renders one profile while the prose was written from
// another. Measured numbers are printed by cells (generated sentences).
//
// The rule, per sentence of a markdown cell (a bullet, or text up to ". "):
//   - a measured number is a decimal (0.92, 1.2·10⁻⁵), a percentage
//     (11 %), a p-value (p = …, p < …), a ratio (1.56×, 11 times), or a
//     count or time followed by a unit (159 s, 0.45 h, 40 minutes, 2 069
//     iterations, 840 fits, 12 cases, 14 195 test edges);
//   - allowed are numbers inside $…$ math or `code`, headings, and any
//     sentence that names the paper ("the paper", "paper's", "paper:"),
//     which labels its numbers as the paper's own.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// proseChecked are the notebooks whose markdown the rule holds for.
var proseChecked = []string{"00-quickstart", "01-cows", "02-efficiency", "03-retina-substitute", "04-mitochondria", "05-multilabel", "06-sample-complexity", "07-tradeoff", "08-benchmarks", "09-your-images"}

// proseNotYetChecked would list notebooks being rewritten; each moves to
// proseChecked once its prose quotes no measured number. None is left.
var proseNotYetChecked []string

var (
	// proseCode is a fenced code block or an indented one (commands and
	// settings, not measurements).
	proseCode     = regexp.MustCompile("(?s)```.*?```|(?m)^(?:    |\t).*$")
	proseMath     = regexp.MustCompile(`\$[^$]*\$|` + "`[^`]*`")
	proseLink     = regexp.MustCompile(`\]\([^)]*\)`)
	proseSentence = regexp.MustCompile(`(?m)[.;:]\s+|\n\s*[-*]\s+|\n\n`)
	// sp is a thin or normal space inside a number (2 069).
	proseMeasured = regexp.MustCompile(`\d+[.,]\d+|\d\s?%|\bp\s?[=<>≤≥]\s?\d|\d\s?×|` +
		`\d(?:[   ]\d{3})*\s?(?:s|ms|min|minutes?|h|hours?|seconds?|GiB|MiB|kB|iterations?|fits|rows|jobs|cases|edges|test edges|images|points?|folds|times)\b`)
	proseNamesPaper = regexp.MustCompile(`(?i)\bpaper('s|:|\b)`)
)

// measuredInProse returns the sentences of md that quote a measured number
// without naming the paper.
func measuredInProse(md string) []string {
	var bad []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			md = strings.Replace(md, line, "", 1)
		}
	}
	md = proseCode.ReplaceAllString(md, " ")
	md = proseLink.ReplaceAllString(proseMath.ReplaceAllString(md, " "), "]")
	for _, s := range proseSentence.Split(md, -1) {
		if proseMeasured.MatchString(s) && !proseNamesPaper.MatchString(s) {
			bad = append(bad, strings.TrimSpace(s))
		}
	}
	return bad
}

func TestMeasuredInProseRule(t *testing.T) {
	for _, c := range []struct {
		md  string
		bad bool
	}{
		{"ours 94.0 vs 92.3 %, p = 1.2e-05", true},
		{"In the full run no fit stopped: all 840 fits reached the gap", true},
		{"the study ran in 159 s on the host", true},
		{"PyStruct's rule stops after 1.56× psub's iterations", true},
		{"- 11 % of the test edges lie outside the cone", true},
		{"re-running them takes about 40 minutes", true},
		{"our C3 count is 11 times lower", true},
		{"The paper reports 126 ± 21 iterations and p < 10⁻⁵.", false},
		{"The paper's table: C3 999 / 1609 active / introduced", false},
		{"C is chosen among 5 values, with $C = 0.1$ and `tol = 1e-3`.", false},
		{"## 01 · cows, 10 folds in 1.5 s", false},
		{"Each (set, loss, C, fold) job runs in parallel; the table below lists them.", false},
		{"Train and predict:\n\n    psub segment train -C-grid 0.1,1,10 -holdout 0.25\n\nthen look.", false},
		{"Run:\n\n```sh\nscripts/reproduce --full # 3.5 h\n```\n", false},
		{"Run:\n\n```sh\nscripts/reproduce\n```\n\nIt took 3.5 h here.", true},
	} {
		if got := len(measuredInProse(c.md)) > 0; got != c.bad {
			t.Errorf("%q: flagged %v, want %v (%q)", c.md, got, c.bad, measuredInProse(c.md))
		}
	}
}

func TestProseQuotesNoMeasuredNumber(t *testing.T) {
	for _, name := range proseChecked {
		b, err := os.ReadFile(filepath.Join(name + ".ipynb"))
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Cells []struct {
				Type   string   `json:"cell_type"`
				ID     string   `json:"id"`
				Source []string `json:"source"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(b, &nb); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, c := range nb.Cells {
			if c.Type != "markdown" {
				continue
			}
			for _, s := range measuredInProse(strings.Join(c.Source, "")) {
				t.Errorf("%s cell %d (%s) quotes a measured number; print it from the run, or label it as the paper's: %q", name, i, c.ID, s)
			}
		}
	}
}

// Every notebook is in exactly one of the two lists, so a new one is not
// left unchecked by omission.
func TestProseListsCoverEveryNotebook(t *testing.T) {
	files, err := filepath.Glob("*.ipynb")
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	listed := map[string]int{}
	for _, n := range append(append([]string{}, proseChecked...), proseNotYetChecked...) {
		listed[n]++
	}
	for _, f := range files {
		if n := strings.TrimSuffix(f, ".ipynb"); listed[n] != 1 {
			t.Errorf("%s is listed %d times in proseChecked and proseNotYetChecked, want once", f, listed[n])
		}
	}
}
