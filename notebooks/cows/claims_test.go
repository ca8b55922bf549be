package cows

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/protocol/protocoltest"
)

// claimRows makes final rows of every set, both losses, on 4 folds: the
// accuracy of set s on fold f is base[s] + 0.01·f (+ a per-fold wobble so
// that the paired tests have a spread), the other metrics as given.
func claimRows(base map[string]float64, other map[string]map[string]float64) []grid.Result {
	var rs []grid.Result
	wobble := []float64{0, 0.003, -0.002, 0.001}
	for set, b := range base {
		for _, loss := range []string{"hamming", "avg"} {
			for f := range 4 {
				m := map[string]float64{"test_acc": b + 0.01*float64(f) + wobble[f]*float64(len(set)), "test_cavg": b - 0.1 + 0.01*float64(f) + wobble[f]*float64(len(set)), "iterations": 126}
				for k, v := range other[set] {
					m[k] = v
				}
				rs = append(rs, grid.Result{Job: grid.Job{Dataset: "cows", Set: set, Loss: loss, C: 1, Fold: f, Tag: "final"}, Metrics: m})
			}
		}
	}
	return rs
}

func TestClaimsFollowTheValues(t *testing.T) {
	base := map[string]float64{"C0": 0.80, "C1": 0.85, "C2": 0.88, "C3": 0.88, "C4": 0.92, "C4bar": 0.92}
	other := map[string]map[string]float64{
		"C3":    {"hard_active": 999, "hard_introduced": 1609, "nonsub_test": 0.05},
		"C4":    {"hard_active": 120, "hard_introduced": 700, "nonsub_test": 0},
		"C4bar": {"hard_active": 126, "hard_introduced": 814},
	}
	cs := Claims(claimRows(base, other))
	if len(cs) != 26 {
		t.Errorf("%d claims, want 26 (8 orderings, 2 t-tests, 2 ties, 6 counts, C0–C2, 2 count orders, 4 fractions, iterations)", len(cs))
	}
	for _, prefix := range []string{"C0 < C1 (Hamming", "C4 > C1, paired", "C4 ≈ C̄4", "hard constraints active, C3", "C̄4 introduces more",
		"non-submodular test edges, C3 (Hamming", "non-submodular test edges, C4 (Δ_avg", "cutting-plane iterations"} {
		if c := protocoltest.Claim(t, cs, prefix); c.Verdict != protocol.Reproduced {
			t.Errorf("%s: %v (%s, ours %s), want reproduced: the rows meet the paper", c.Claim, c.Verdict, c.Rule, c.Ours)
		}
	}
	if c := protocoltest.Claim(t, cs, "hard constraints of C0"); c.Verdict != protocol.Untested {
		t.Errorf("C0–C2 counts: %v, want not tested", c.Verdict)
	}
	// Now break each claim in the rows and see its verdict follow.
	base["C1"], base["C4bar"] = 0.95, 0.97
	other["C4bar"]["hard_introduced"] = 50
	other["C3"]["nonsub_test"] = 0
	for k := range other["C4"] {
		other["C4"][k] /= 10
	}
	rows := claimRows(base, other)
	for i := range rows {
		rows[i].Metrics["iterations"] = 600
	}
	cs = Claims(rows)
	for _, prefix := range []string{"C1 < C2 (Hamming", "C4 > C1, paired", "C4 ≈ C̄4", "hard constraints active, C4", "C̄4 introduces more",
		"non-submodular test edges, C3 (Hamming", "cutting-plane iterations"} {
		if c := protocoltest.Claim(t, cs, prefix); c.Verdict != protocol.NotReproduced {
			t.Errorf("%s: %v (%s, ours %s), want not reproduced", c.Claim, c.Verdict, c.Rule, c.Ours)
		}
	}
	if c := protocoltest.Claim(t, cs, "C0 < C1 (Hamming"); c.Verdict != protocol.Reproduced {
		t.Errorf("C0 < C1 still holds: %v", c.Verdict)
	}
}

// The committed full run's table lists every claim with a value.
func TestClaimsOfCommittedRows(t *testing.T) {
	rows, err := grid.ReadResults(filepath.Join("..", "results", "cows-full.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cs := Claims(rows)
	tab := ClaimTable(rows)
	if len(tab.Rows) != len(cs) || len(cs) != 26 {
		t.Fatalf("%d rows, %d claims", len(tab.Rows), len(cs))
	}
	n := protocol.Counts(cs)
	if n[protocol.Untested] != 1 {
		t.Errorf("%d claims without a value, want only C0–C2's counts: %v", n[protocol.Untested], tab.Rows)
	}
	t.Logf("%s", tab.Title)
	for _, r := range tab.Rows {
		t.Logf("%q", r)
	}
}

func TestHeadlineCarriesVerdict(t *testing.T) {
	base := map[string]float64{"C0": 0.80, "C1": 0.85, "C2": 0.88, "C3": 0.88, "C4": 0.92, "C4bar": 0.92}
	h := Headline(claimRows(base, nil))
	if !strings.HasPrefix(h, "C4 > C1, paired t-test") || !strings.Contains(h, "— ") || !strings.Contains(h, "paper p < 10⁻⁵") {
		t.Errorf("headline %q: want the claim, the paper's value and a verdict", h)
	}
}
