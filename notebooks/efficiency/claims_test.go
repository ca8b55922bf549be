package efficiency

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// paperResults are four rows with the paper's own numbers (CPU time equal
// to its total time).
func paperResults() []Result {
	var rs []Result
	for i, name := range []string{"def. submodular", "1-pass, full", "1-pass, delayed", "2-pass delayed"} {
		p := Paper[i]
		r := Result{Name: name, Iterations: int(p[1]), Seconds: p[3], CPUSeconds: p[3]}
		if i > 0 {
			r.Margins, r.ConstraintSeconds = int64(p[0]*1e6), p[2]
		}
		rs = append(rs, r)
	}
	return rs
}

func TestClaimsFollowTheValues(t *testing.T) {
	rs := paperResults()
	cs := Claims(rs)
	if len(cs) != 15 {
		t.Fatalf("%d claims, want 15 (3 margins, 4 iterations, 4 savings, 3 times, constraints per iteration)", len(cs))
	}
	n := protocol.Counts(cs)
	if n[protocol.Reproduced] != 14 || n[protocol.Untested] != 1 {
		t.Errorf("the paper's own numbers: %v, want 14 reproduced and 1 not tested", n)
	}
	// Break claims: 2-pass computes 4× its margins, delayed as many as full,
	// the 1-pass rows take 3× the definitely submodular row's time.
	rs[3].Margins *= 4
	rs[2].Margins = rs[1].Margins
	rs[1].CPUSeconds *= 3
	for _, c := range Claims(rs) {
		broken := c.Claim == "margins computed, 2-pass delayed" || c.Claim == "margins computed, 1-pass, delayed" ||
			strings.HasPrefix(c.Claim, "pretraining + delayed: margins") ||
			strings.HasPrefix(c.Claim, "delayed generation computes fewer") ||
			c.Claim == "total training ÷ the definitely submodular row's, 1-pass, full"
		want := protocol.Reproduced
		if broken {
			want = protocol.NotReproduced
		}
		if c.Verdict != want && c.Verdict != protocol.Untested {
			t.Errorf("%s: %v (paper %s, ours %s), want %v", c.Claim, c.Verdict, c.Paper, c.Ours, want)
		}
	}
}

func TestClaimsOfCommittedRows(t *testing.T) {
	rows, err := grid.ReadResults(filepath.Join("..", "results", "efficiency-full.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Experiment{}.Results(protocol.Full, rows)
	if err != nil {
		t.Fatal(err)
	}
	tab := ClaimTable(rs)
	if len(tab.Rows) != 15 {
		t.Fatalf("%d claims", len(tab.Rows))
	}
	t.Logf("%s", tab.Title)
	for _, r := range tab.Rows {
		t.Logf("%q", r)
	}
}
