package maxflow

import (
	"fmt"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/membudget"
)

// TestReadSizesAndExactness: node counts are checked against the memory
// budget at the p line, before anything is allocated, and integer
// capacities that float64 cannot carry exactly are refused with their
// line, by Read and ReadGraph alike. The accepted cases are solved and
// their flow compared with the exact integer answer.
func TestReadSizesAndExactness(t *testing.T) {
	const two53 = "9007199254740992"
	terms := func(p string, caps ...string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s\nn 1 s\nn 2 t\n", p)
		for _, c := range caps {
			fmt.Fprintf(&b, "a 1 2 %s\n", c)
		}
		return b.String()
	}
	for _, c := range []struct {
		name, text, limit string
		want              string  // part of the error; "" = accepted
		flow              float64 // when accepted
	}{
		{"2^31-2 nodes, one arc", "p max 2147483646 1\nn 1 s\nn 2 t\na 1 2 1\n", "", "the p line declares 2147483646 nodes", 0},
		{"2^31-2 nodes, message", "p max 2147483646 0\n", "", "more than the memory budget", 0},
		{"10^9 nodes, no arcs", "p max 1000000000 0\n", "", "line 1:", 0},
		{"10^5 nodes over a 1 MB budget", "p max 100000 0\nn 1 s\nn 2 t\n", "1MB", "PSUB_MAX_MEMORY=1GiB", 0},
		{"10^5 nodes under the default budget", "p max 100000 0\nn 1 s\nn 2 t\n", "", "", 0},
		{"2^53 exactly", terms("p max 2 1", two53), "", "", 1 << 53},
		{"2^53+1", terms("p max 2 1", "9007199254740993"), "", "line 4: arc 1->2: integer capacity 9007199254740993 exceeds 2^53", 0},
		{"beyond uint64", terms("p max 2 1", "99999999999999999999999"), "", "line 4: arc 1->2: integer capacity 99999999999999999999999 exceeds", 0},
		{"a long token of digits", terms("p max 2 1", strings.Repeat("9", 60)), "", "(60 digits)", 0},
		{"sum passes 2^53 at the third arc", terms("p max 2 3", "4503599627370496", "4503599627370495", "2"), "", "line 6: arc 1->2: the integer capacities up to this arc sum to 9007199254740993", 0},
		{"sum of small ones passes 2^53", terms("p max 2 11", strings.Split(strings.Repeat("999999999999999 ", 11), " ")[:11]...), "", "line 13:", 0},
		{"sum reaches 2^53", terms("p max 2 2", "4503599627370496", "4503599627370496"), "", "", 1 << 53},
		{"2^53+1 with a plus sign", terms("p max 2 1", "+9007199254740993"), "", "integer capacity 9007199254740993 exceeds", 0},
		{"small ones with plus signs pass 2^53", terms("p max 2 2", "+9007199254740000", "+1000"), "", "line 5:", 0},
		{"leading zeros", terms("p max 2 1", "0000000000000000000000000001"), "", "", 1},
		{"exponent form is a float extension", terms("p max 2 1", "1e20"), "", "", 1e20},
		{"fraction is a float extension", terms("p max 2 2", "0.5", "0.25"), "", "", 0.75},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(membudget.Env, c.limit)
			p, err1 := Read(strings.NewReader(c.text))
			g, _, err2 := ReadGraph(strings.NewReader(c.text))
			for _, err := range []error{err1, err2} {
				if c.want == "" && err != nil {
					t.Fatalf("refused: %v", err)
				}
				if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
					t.Fatalf("error %v, want one that says %q", err, c.want)
				}
			}
			if c.want != "" || len(p.Arcs) == 0 {
				return
			}
			if f := p.Build().MaxFlow(); f != c.flow {
				t.Errorf("Build: flow %v, want %v", f, c.flow)
			}
			if f := g.MaxFlow(); f != c.flow {
				t.Errorf("ReadGraph: flow %v, want %v", f, c.flow)
			}
		})
	}
}
