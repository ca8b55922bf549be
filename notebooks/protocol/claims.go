package protocol

// A reproduction notebook opens with its claim table: every claim of the
// paper's section, the paper's value, ours, and a verdict the table computes
// from the two by a stated rule, so that no verdict is typed by hand.

import (
	"fmt"
	"math"
	"strings"

	"github.com/probably-submodular/crf/notebooks/grid"
)

// Verdict is the outcome of comparing one claim of the paper with our run.
type Verdict int

const (
	// Untested: our run has no value for the claim (the table says why).
	Untested Verdict = iota
	// Reproduced: ours meets the claim under the rule given beside it.
	Reproduced
	// Partly: the direction or order holds but the size does not, or the
	// claim holds under one reading of the paper and not under another.
	Partly
	// NotReproduced: ours contradicts the claim under its rule.
	NotReproduced
)

func (v Verdict) String() string {
	switch v {
	case Reproduced:
		return "reproduced"
	case Partly:
		return "partly"
	case NotReproduced:
		return "not reproduced"
	}
	return "not tested"
}

// Claim is one row of a claim table. Paper and Ours are the values as the
// page shows them; Rule says how the verdict follows from them ("within 1
// point", "same order", "p < 0.05 over 10 folds").
type Claim struct {
	Claim   string
	Paper   string
	Ours    string
	Verdict Verdict
	Rule    string
}

// ClaimTable is the claim table a reproduction notebook shows first
// (viz.ShowTableOf draws it). Its title counts the verdicts, so the reader
// sees at once how many claims reproduced.
func ClaimTable(section string, claims []Claim) Table {
	n := Counts(claims)
	rows := make([][]string, len(claims))
	for i, c := range claims {
		rows[i] = []string{c.Claim, c.Paper, c.Ours, c.Verdict.String(), c.Rule}
	}
	title := fmt.Sprintf("%s: %d claims, %d reproduced, %d partly, %d not reproduced",
		section, len(claims), n[Reproduced], n[Partly], n[NotReproduced])
	if n[Untested] > 0 {
		title += fmt.Sprintf(", %d not tested", n[Untested])
	}
	return Table{Title: title, Header: []string{"claim", "paper", "ours", "verdict", "rule"}, Rows: rows}
}

// Within is the verdict of a number against the paper's under an absolute
// tolerance: Reproduced when |ours-paper| <= tol, else NotReproduced (or
// Untested when ours is NaN). Its rule reads "within tol".
func Within(ours, paper, tol float64) (Verdict, string) {
	rule := fmt.Sprintf("within %g", tol)
	switch {
	case math.IsNaN(ours):
		return Untested, rule
	case math.Abs(ours-paper) <= tol:
		return Reproduced, rule
	}
	return NotReproduced, rule
}

// Ordered is the verdict of a claim that a > b (the paper's ordering):
// Reproduced when ours order the same way and a paired test gives p < alpha
// where the paper claims significance (p is NaN when no test applies),
// Partly when the order holds without significance, NotReproduced when the
// order is reversed.
func Ordered(a, b, p, alpha float64) (Verdict, string) {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return Untested, "a > b"
	case a <= b:
		return NotReproduced, "same order"
	case math.IsNaN(p):
		return Reproduced, "same order"
	case p < alpha:
		return Reproduced, fmt.Sprintf("same order, p < %g", alpha)
	}
	return Partly, fmt.Sprintf("same order, but p = %.2g ≥ %g", p, alpha)
}

// Tied is the verdict of a claim that a and b do not differ: Reproduced
// when a paired test gives p >= alpha or the means are within tol, else
// NotReproduced.
func Tied(a, b, p, alpha, tol float64) (Verdict, string) {
	rule := fmt.Sprintf("p ≥ %g or within %g", alpha, tol)
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return Untested, rule
	case math.Abs(a-b) <= tol || (!math.IsNaN(p) && p >= alpha):
		return Reproduced, rule
	}
	return NotReproduced, rule
}

// WithinFactor is the verdict of a count against the paper's when only its
// order of magnitude can compare (a count that depends on the solver, the
// features, the machine): Reproduced when ours is within a factor f of the
// paper's either way (both 0 counts as within), else NotReproduced, Untested
// when ours is NaN.
func WithinFactor(ours, paper, f float64) (Verdict, string) {
	rule := fmt.Sprintf("within a factor %g", f)
	switch {
	case math.IsNaN(ours) || math.IsNaN(paper):
		return Untested, rule
	case ours == paper:
		return Reproduced, rule
	case ours <= 0 || paper <= 0:
		return NotReproduced, rule
	case ours <= paper*f && ours >= paper/f:
		return Reproduced, rule
	}
	return NotReproduced, rule
}

// NotBelow is the verdict of a claim that a ≥ b, the paper's "≤" in an
// ordering such as C2 ≤ C3: Reproduced when ours have a ≥ b, or a < b
// without significance (p ≥ alpha; p NaN means no test, and then any
// a < b is NotReproduced); NotReproduced when a is significantly below b.
func NotBelow(a, b, p, alpha float64) (Verdict, string) {
	rule := fmt.Sprintf("not lower with p < %g", alpha)
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return Untested, rule
	case a >= b:
		return Reproduced, rule
	case !math.IsNaN(p) && p >= alpha:
		return Reproduced, rule
	}
	return NotReproduced, rule
}

// Fmt writes a value of a claim table: format applied to v, or "—" when v
// is NaN (no value).
func Fmt(format string, v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf(format, v)
}

// Counts are the verdicts of a claim table, counted.
func Counts(claims []Claim) map[Verdict]int {
	n := map[Verdict]int{}
	for _, c := range claims {
		n[c.Verdict]++
	}
	return n
}

// PairedMeans are the means of metric over the final rows of sets a and b
// (loss), in %, and the p-value of their paired t-test across folds (NaN
// when there is no test: too few folds, or no rows).
func PairedMeans(final []Row, loss string, metric func(Metrics) float64, a, b string) (ma, mb, p float64) {
	ma, _, _ = grid.Aggregate(final, a, loss, metric) // NaN without rows
	mb, _, _ = grid.Aggregate(final, b, loss, metric)
	_, p, _, err := grid.PairedAcrossFolds(final, metric,
		func(j grid.Job) bool { return j.Set == a && j.Loss == loss },
		func(j grid.Job) bool { return j.Set == b && j.Loss == loss })
	if err != nil {
		p = math.NaN()
	}
	return 100 * ma, 100 * mb, p
}

// ClaimLine is one claim as a sentence, verdict included: the headline a
// notebook prints under its table for the claim its section leads with.
func ClaimLine(c Claim) string {
	return fmt.Sprintf("%s: paper %s, ours %s — %s (%s)", c.Claim, c.Paper, c.Ours, c.Verdict, c.Rule)
}

// HeadlineOf is the notebook's headline: the claims whose text starts
// with one of prefixes, each as a ClaimLine, joined by "; ".
func HeadlineOf(claims []Claim, prefixes ...string) string {
	var lines []string
	for _, c := range claims {
		for _, p := range prefixes {
			if strings.HasPrefix(c.Claim, p) {
				lines = append(lines, ClaimLine(c))
				break
			}
		}
	}
	return strings.Join(lines, "; ")
}

// FindClaim is the first claim whose text starts with prefix.
func FindClaim(claims []Claim, prefix string) (Claim, bool) {
	for _, c := range claims {
		if strings.HasPrefix(c.Claim, prefix) {
			return c, true
		}
	}
	return Claim{}, false
}
