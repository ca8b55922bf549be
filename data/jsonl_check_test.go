package data

import (
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/membudget"
)

// TestJSONLMessages: the reader's messages for a byte-order mark, null
// fields, negative labels and labels whose L cannot be trained name the
// file and line, and the instance and node, and say what to do; a BOM at
// the start of the file is skipped.
func TestJSONLMessages(t *testing.T) {
	const g = `{"unary":[[1],[2]],"edges":[[0,1]],"pairwise":[[1]],"labels":[0,1]}` + "\n"
	bom := "\xef\xbb\xbf"
	for _, c := range []struct {
		name, file string
		labels     int
		limit      string
		want       []string // parts of the error; nil = accepted
		not        []string // must not appear
	}{
		{"BOM at the start is skipped", bom + g, 0, "", nil, nil},
		{"BOM before a blank first line", bom + "\n" + g, 0, "", nil, nil},
		{"BOM only", bom, 0, "", []string{"no instances"}, []string{"ï"}},
		{"BOM on line 2", g + bom + g, 0, "", []string{"bad.jsonl:2: a UTF-8 byte-order mark"}, []string{"ï"}},
		{"two BOMs at the start", bom + bom + g, 0, "", []string{"bad.jsonl:1: a UTF-8 byte-order mark"}, []string{"ï"}},
		{"unary null", `{"unary":null,"edges":[],"pairwise":[]}` + "\n", 0, "", []string{`bad.jsonl:1: field "unary": missing or null: one row of unary features per node`}, []string{"use []"}},
		{"unary missing", `{"edges":[],"pairwise":[]}` + "\n", 0, "", []string{`field "unary": missing or null`}, []string{"use []"}},
		{"edges null", `{"unary":[[1]],"edges":null,"pairwise":[]}` + "\n", 0, "", []string{`field "edges": missing or null (use [] for none)`}, nil},
		{"pairwise null", `{"unary":[[1]],"edges":[],"pairwise":null}` + "\n", 0, "", []string{`field "pairwise": missing or null (use [] for none)`}, nil},
		{"label -1, L unknown", `{"unary":[[1],[2]],"edges":[],"pairwise":[],"labels":[0,-1]}` + "\n", 0, "", []string{"bad.jsonl:1: instance 0: node 1: label -1 is negative"}, []string{"[0,-1)"}},
		{"label -1, L given", `{"unary":[[1],[2]],"edges":[],"pairwise":[],"labels":[0,-1]}` + "\n", 2, "", []string{"node 1: label -1 is negative"}, []string{"[0,"}},
		{"label 2 with L = 2", `{"unary":[[1],[2]],"edges":[],"pairwise":[],"labels":[0,2]}` + "\n", 2, "", []string{"node 1: label 2 outside [0,2)"}, nil},
		{"label 10^5", g + `{"name":"big","unary":[[1],[2]],"edges":[[0,1]],"pairwise":[[1]],"labels":[100000,1]}` + "\n", 0, "", []string{"bad.jsonl:2: instance 1 (big): node 0: label 100000 makes L = 100001 labels", "74.5 GiB", "PSUB_MAX_MEMORY=128GiB"}, nil},
		{"label 10^9", `{"unary":[[1],[1]],"edges":[[1,0]],"pairwise":[[1]],"labels":[1000000000,0]}` + "\n", 0, "", []string{"label 1000000000 makes L = 1000000001", "memory budget"}, nil},
		{"label 2^62", `{"unary":[[1]],"edges":[],"pairwise":[],"labels":[4611686018427387904]}` + "\n", 0, "", []string{"more than any memory"}, nil},
		{"label 10^5 with L given is out of range, not a budget matter", `{"unary":[[1]],"edges":[],"pairwise":[],"labels":[100000]}` + "\n", 3, "", []string{"outside [0,3)"}, []string{"budget"}},
		{"label 300 with a small budget", `{"unary":[[1],[1]],"edges":[[0,1]],"pairwise":[[1]],"labels":[300,0]}` + "\n", 0, "100KB", []string{"label 300 makes L = 301", "PSUB_MAX_MEMORY=1GiB"}, nil},
		{"label 300 under the default budget", `{"unary":[[1],[1]],"edges":[[0,1]],"pairwise":[[1]],"labels":[300,0]}` + "\n", 0, "", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(membudget.Env, c.limit)
			set, err := ReadJSONLFile(writeTemp(t, c.file), c.labels)
			if c.want == nil {
				if err != nil || len(set) == 0 {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(err.Error(), w) {
					t.Errorf("%q says %q", err, w)
				}
			}
		})
	}
}
