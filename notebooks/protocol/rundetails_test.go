package protocol

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/internal/modroot"
	"github.com/probably-submodular/crf/notebooks/grid"
)

func TestRunDetails(t *testing.T) {
	old := codever.CodeVersion{Commit: "aaa", Source: "1111"}
	cur := codever.CodeVersion{Commit: "bbb", Source: "2222"}
	row := func(tag string, code codever.CodeVersion, secs float64, e string) grid.Result {
		return grid.Result{Job: grid.Job{Set: "C4", Tag: tag}, Code: code, Seconds: secs, Error: e}
	}
	rows := []grid.Result{row("select", old, 10, ""), row("select", old, 5, ""), row("final", cur, 2.4, ""), row("final", codever.CodeVersion{}, 1, "boom")}
	tab := runDetails("cows", Full, "notebooks/results/cows-full.jsonl", rows, cur)
	got := map[string]string{}
	for _, r := range tab.Rows {
		got[r[0]] = r[1]
	}
	want := map[string]string{
		"profile":                               "full",
		"rows":                                  "4 (1 failed)",
		"code versions of the rows":             "commit aaa, source 1111: 2 rows; ",
		"reuse":                                 "1 of 4 rows are of the running code; 3 are of other code",
		"job time (sum over fits, as recorded)": "18 s: select 15 s, final 3 s",
		"running code":                          "commit bbb, source 2222",
	}
	for k, w := range want {
		if !strings.HasPrefix(got[k], w) {
			t.Errorf("%s: %q, want %q…", k, got[k], w)
		}
	}
	if !strings.Contains(got["code versions of the rows"], "no code version recorded: 1 rows") {
		t.Errorf("code versions %q", got["code versions of the rows"])
	}
	// Unknown running code: nothing counts as current.
	tab = runDetails("cows", Full, "x", rows, codever.CodeVersion{})
	for _, r := range tab.Rows {
		if r[0] == "reuse" && !strings.HasPrefix(r[1], "0 of 4") {
			t.Errorf("unknown code: %q", r[1])
		}
	}
}

func TestRunDetailsAlsoRead(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "study.jsonl")
	rows := []grid.Result{{Job: grid.Job{Dataset: "cows", Set: "C4", Tag: "a"}, Code: codever.CodeVersion{Commit: "ccc", Source: "3333"}},
		{Job: grid.Job{Dataset: "cows", Set: "C3", Tag: "a"}, Code: codever.CodeVersion{Commit: "ccc", Source: "3333"}}}
	var b bytes.Buffer
	if err := grid.WriteResultsJSONL(&b, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := RunDetails(toy{}, Full, "x", nil, f, filepath.Join(dir, "missing.jsonl"))
	last := tab.Rows[len(tab.Rows)-2:]
	if last[0][0] != "also read: "+f || last[0][1] != "2 rows; commit ccc, source 3333: 2 rows" {
		t.Errorf("study file: %q", last[0])
	}
	if !strings.HasPrefix(last[1][1], "unreadable: ") {
		t.Errorf("missing file: %q", last[1])
	}
}

// A results file inside the module is named from its root, whatever
// folder the page was rendered in; one outside keeps its path.
func TestRunDetailsNamesFilesFromTheRoot(t *testing.T) {
	root, err := modroot.Find("")
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(root, "notebooks", "results", "x-full.jsonl")
	if got := shownPath(in); got != "notebooks/results/x-full.jsonl" {
		t.Errorf("shownPath(%q) = %q", in, got)
	}
	out := filepath.Join(t.TempDir(), "r.jsonl")
	if got := shownPath(out); got != out {
		t.Errorf("shownPath(%q) = %q, want it unchanged", out, got)
	}
}
