package protocol

import (
	"math"
	"strings"
	"testing"
)

func TestClaimVerdicts(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		got  Verdict
		want Verdict
	}{
		{"within", first(Within(94.0, 93.5, 1)), Reproduced},
		{"outside", first(Within(90.0, 93.5, 1)), NotReproduced},
		{"within no value", first(Within(nan, 93.5, 1)), Untested},
		{"ordered significant", first(Ordered(94, 92, 1e-5, 0.05)), Reproduced},
		{"ordered not significant", first(Ordered(94, 92, 0.3, 0.05)), Partly},
		{"ordered no test", first(Ordered(94, 92, nan, 0.05)), Reproduced},
		{"reversed", first(Ordered(91, 92, 1e-5, 0.05)), NotReproduced},
		{"equal is not ordered", first(Ordered(92, 92, nan, 0.05)), NotReproduced},
		{"tied by p", first(Tied(66.1, 62, 0.9, 0.05, 0.5)), Reproduced},
		{"tied by tol", first(Tied(66.1, 66.3, 1e-4, 0.05, 0.5)), Reproduced},
		{"not tied", first(Tied(70, 66, 1e-4, 0.05, 0.5)), NotReproduced},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: verdict %v, want %v", c.name, c.got, c.want)
		}
	}
}

func first(v Verdict, _ string) Verdict { return v }

func TestClaimTableCounts(t *testing.T) {
	tab := ClaimTable("Section 5.1", []Claim{
		{Claim: "a", Verdict: Reproduced}, {Claim: "b", Verdict: Reproduced},
		{Claim: "c", Verdict: NotReproduced}, {Claim: "d", Verdict: Untested, Paper: "1", Ours: "—"},
	})
	want := "Section 5.1: 4 claims, 2 reproduced, 0 partly, 1 not reproduced, 1 not tested"
	if tab.Title != want {
		t.Errorf("title %q, want %q", tab.Title, want)
	}
	if len(tab.Rows) != 4 || tab.Rows[2][3] != "not reproduced" || !strings.Contains(tab.Rows[3][3], "not tested") {
		t.Errorf("rows %q", tab.Rows)
	}
}
