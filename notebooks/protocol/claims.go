package protocol

// A reproduction notebook opens with its claim table: every claim of the
// paper's section, the paper's value, ours, and a verdict the table computes
// from the two by a stated rule, so that no verdict is typed by hand.

import (
	"fmt"
	"math"
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
	var n [4]int
	rows := make([][]string, len(claims))
	for i, c := range claims {
		n[c.Verdict]++
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
