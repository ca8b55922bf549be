package retina

import (
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// TestClaims checks the verdicts on rows built to decide each claim: the
// paper's orderings hold for C2 > C1 and C4 > C2 (every fold), C1 ties C0
// (order without significance: partly), C3 is significantly above C2 (the
// tie not reproduced), C̄4 equals C4, QPBO sits between C2 and C4, and the
// non-submodular edges are near the paper's.
func TestClaims(t *testing.T) {
	base := map[string]float64{"C0": 0.60, "C1": 0.60, "C2": 0.70, "C3": 0.72, "C4": 0.80, "C4bar": 0.80, "QPBO": 0.75}
	var rows []grid.Result
	for f := range 6 {
		for set, v := range base {
			e := 0.002 * float64(f%3)
			if set == "C1" {
				e += 0.001 * float64(f%2) // C1 − C0 alternates 0 and +0.1 point: p ≈ 0.08
			}
			r := retinaRow(set, f, v+e, 0.5, 0.5, 0.0004)
			if set == "C4" || set == "C4bar" {
				r.Metrics["nonsub_test"] = 0.05 // 5 %: far from the paper's 1 %
			}
			rows = append(rows, r)
		}
	}
	claims := Claims(protocol.Rows(rows))
	if len(claims) != 16 {
		t.Fatalf("%d claims, want 16", len(claims))
	}
	want := map[string]protocol.Verdict{
		"test 1−Δ_avg of C0 (%)":                   protocol.NotReproduced,
		"C1 above C0 (larger sets do better)":      protocol.Partly,
		"C2 above C1":                              protocol.Reproduced,
		"C3 no significant gain over C2":           protocol.NotReproduced,
		"C4 above C2, significant at 5 %":          protocol.Reproduced,
		"C̄4 no significant gain over C4":          protocol.Reproduced,
		"QPBO-trained SSVM below C2":               protocol.NotReproduced,
		"QPBO-trained SSVM below C4":               protocol.Reproduced,
		"non-submodular test edges of C3 (%, few)": protocol.Reproduced,
		"non-submodular test edges of C4 (%, few)": protocol.NotReproduced,
	}
	seen := 0
	for _, c := range claims {
		if c.Rule == "" || c.Paper == "" || c.Ours == "" {
			t.Errorf("claim %q lacks a rule or a value: %+v", c.Claim, c)
		}
		if v, ok := want[c.Claim]; ok {
			seen++
			if c.Verdict != v {
				t.Errorf("%q: verdict %v (ours %s), want %v", c.Claim, c.Verdict, c.Ours, v)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of %d claims found by name", seen, len(want))
	}
	if title := ClaimTable(protocol.Rows(rows)).Title; !strings.Contains(title, "16 claims") {
		t.Errorf("title %q", title)
	}
	// Without rows every claim is untested, none is decided.
	for _, c := range Claims(nil) {
		if c.Verdict != protocol.Untested {
			t.Errorf("no rows: %q is %v", c.Claim, c.Verdict)
		}
	}
}
