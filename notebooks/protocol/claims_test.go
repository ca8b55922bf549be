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
		{"factor inside", first(WithinFactor(60, 116, 2)), Reproduced},
		{"factor above", first(WithinFactor(240, 116, 2)), NotReproduced},
		{"factor below", first(WithinFactor(13, 116, 2)), NotReproduced},
		{"factor zero both", first(WithinFactor(0, 0, 2)), Reproduced},
		{"factor zero ours", first(WithinFactor(0, 5, 2)), NotReproduced},
		{"factor no value", first(WithinFactor(nan, 5, 2)), Untested},
		{"not below, above", first(NotBelow(87.5, 87.4, 0.01, 0.05)), Reproduced},
		{"not below, lower but not significant", first(NotBelow(87.3, 87.4, 0.3, 0.05)), Reproduced},
		{"not below, significantly lower", first(NotBelow(85, 87.4, 0.001, 0.05)), NotReproduced},
		{"not below, lower, no test", first(NotBelow(85, 87.4, nan, 0.05)), NotReproduced},
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

func TestClaimFmtAndCounts(t *testing.T) {
	if got := Fmt("%.1f", math.NaN()); got != "—" {
		t.Errorf("Fmt(NaN) = %q", got)
	}
	if got := Fmt("%.1f", 92.345); got != "92.3" {
		t.Errorf("Fmt = %q", got)
	}
	n := Counts([]Claim{{Verdict: Reproduced}, {Verdict: Partly}, {Verdict: Reproduced}})
	if n[Reproduced] != 2 || n[Partly] != 1 || n[NotReproduced] != 0 {
		t.Errorf("counts %v", n)
	}
}

func TestClaimLine(t *testing.T) {
	v, rule := Ordered(94.0, 92.3, 1.2e-5, 1e-5)
	got := ClaimLine(Claim{Claim: "C4 > C1", Paper: "p < 10⁻⁵", Ours: "94.0 vs 92.3 %, p = 1.2e-05", Verdict: v, Rule: rule})
	want := "C4 > C1: paper p < 10⁻⁵, ours 94.0 vs 92.3 %, p = 1.2e-05 — partly (same order, but p = 1.2e-05 ≥ 1e-05)"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestHeadlineOf(t *testing.T) {
	cs := []Claim{{Claim: "a > b", Verdict: Reproduced}, {Claim: "c ≈ d", Verdict: NotReproduced}, {Claim: "a > e", Verdict: Partly}}
	got := HeadlineOf(cs, "a >")
	if !strings.Contains(got, "a > b: paper") || !strings.Contains(got, "; a > e") || strings.Contains(got, "c ≈ d") {
		t.Errorf("headline %q", got)
	}
	if c, ok := FindClaim(cs, "a > e"); !ok || c.Verdict != Partly {
		t.Errorf("FindClaim: %v %v", c, ok)
	}
	if _, ok := FindClaim(cs, "z"); ok {
		t.Errorf("FindClaim found a claim that is not there")
	}
	if HeadlineOf(cs, "z") != "" {
		t.Errorf("no claim matches: want an empty headline")
	}
}
