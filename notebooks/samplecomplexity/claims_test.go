package samplecomplexity

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// claimRows are coverage rows falling as 1/√n (cone half of the hull),
// control rows on the polytope rate itself times k(n), and C4 models.
func claimRows(k func(n float64) float64, nonSub float64) []grid.Result {
	var rs []grid.Result
	for _, n := range []int{8, 64, 512, 4096} {
		h := 1 / math.Sqrt(float64(n))
		rs = append(rs, row(Job{Stage: StageCoverage, N: n}, Metrics{CoverageRow: &CoverageRow{OutsideHull: h, OutsideCone: h / 2}}))
	}
	for _, d := range []int{2, 3} {
		for _, n := range []int{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192} {
			x := float64(n)
			rs = append(rs, row(Job{Stage: StageControl, N: n, Dim: d}, Metrics{CoverageRow: &CoverageRow{OutsideHull: k(x) * math.Pow(math.Log(x), float64(d-1)) / x}}))
		}
	}
	for _, k := range []int{1, 100} {
		rs = append(rs, row(Job{Stage: StageC4, N: k}, Metrics{C4Point: &C4Point{Images: k, NonSubmodular: nonSub}}))
	}
	return rs
}

func TestClaimsFollowTheValues(t *testing.T) {
	sc := Experiment{}
	cs := sc.Claims(protocol.Full, claimRows(func(float64) float64 { return 0.3 }, 0))
	if len(cs) != 5 {
		t.Fatalf("%d claims, want 5", len(cs))
	}
	if n := protocol.Counts(cs); n[protocol.Reproduced] != 5 {
		t.Errorf("rows meeting every claim: %v", cs)
	}
	// A control that falls as 1/√n (slower than the rate: the ratio grows
	// past the factor), and a C4 model non-submodular on 1 % of the edges.
	cs = sc.Claims(protocol.Full, claimRows(func(n float64) float64 { return math.Sqrt(n) / 10 }, 0.01))
	for _, c := range cs[2:] {
		if c.Verdict != protocol.NotReproduced {
			t.Errorf("%s: %v (ours %s)", c.Claim, c.Verdict, c.Ours)
		}
	}
	if cs := sc.Claims(protocol.Full, nil); protocol.Counts(cs)[protocol.Untested] != len(cs) {
		t.Errorf("no rows: %v", cs)
	}
}

func TestClaimsOfCommittedRows(t *testing.T) {
	rows, err := grid.ReadResults(filepath.Join("..", "results", "sample-complexity-full.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tab := Experiment{}.ClaimTable(protocol.Full, rows)
	if len(tab.Rows) != 5 {
		t.Fatalf("%d claims", len(tab.Rows))
	}
	t.Logf("%s", tab.Title)
	for _, r := range tab.Rows {
		t.Logf("%q", r)
	}
}
