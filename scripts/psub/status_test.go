package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// TestStatusCountsFreshStaleMissing runs the trade-off protocol's tiny
// profile into a folder, then checks what -status says of its rows: all
// fresh and nothing to run; after some rows are given another code
// version and one is removed, those are stale and missing, and a run
// would compute them (only the missing one under PSUB_REUSE=stale). A run
// then computes exactly the fits -status counted.
func TestStatusCountsFreshStaleMissing(t *testing.T) {
	p, err := protocol.ByName("tradeoff")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tradeoff-tiny.jsonl")
	rows, err := p.Run(context.Background(), protocol.Options{Profile: protocol.Tiny, Workers: 2, Results: file})
	if err != nil {
		t.Fatal(err)
	}
	// status is -status of the notebook of tradeoff alone (07).
	status := func(env string) allStatus {
		t.Helper()
		t.Setenv(grid.ReuseEnv, env)
		var out, errb bytes.Buffer
		nb := filepath.Join(notebooksDir, "07-tradeoff.ipynb")
		if code := run([]string{"protocol", "all", "-profile", "tiny", "-dir", dir, "-workers", "2", "-status", nb}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var st allStatus
		if err := json.Unmarshal(out.Bytes(), &st); err != nil {
			t.Fatalf("stdout is not the status: %v: %s", err, out.String())
		}
		if len(st.Protocols) != 1 || st.Protocols[0].Protocol != "tradeoff" || st.Fits != st.Protocols[0].Fits || st.ToRun != st.Protocols[0].ToRun {
			t.Fatalf("-status of 07-tradeoff: %s; want tradeoff alone", out.String())
		}
		return st
	}
	n := len(rows)
	if got := status(""); got.Fits != n || got.Fresh != n || got.Stale != 0 || got.Missing != 0 || got.ToRun != 0 || got.ToRunSeconds != 0 || !got.FullByDefault {
		t.Fatalf("after a run: %+v; want %d fits, all fresh, nothing to run, full by default", got, n)
	}
	if got := status("").Protocols[0]; got.Notebook != filepath.Join("notebooks", "07-tradeoff.ipynb") {
		t.Errorf("notebook %q, want notebooks/07-tradeoff.ipynb", got.Notebook)
	}

	// Three rows of other code, one row gone.
	staleSec := 0.0
	for i := range 3 {
		rows[i].Code = codever.CodeVersion{Commit: "0123456789ab", Source: "00000000000000ff"}
		staleSec += rows[i].Seconds
	}
	edited := rows[:n-1]
	var buf bytes.Buffer
	if err := grid.WriteResultsJSONL(&buf, edited); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := status("")
	if got.Fits != n || got.Fresh != n-4 || got.Stale != 3 || got.Missing != 1 || got.ToRun != 4 || !(got.ToRunSeconds > staleSec) || got.FullByDefault {
		t.Errorf("3 stale rows, 1 missing: %+v; want %d fits, %d fresh, 3 stale, 1 missing, 4 to run taking more than %g s", got, n, n-4, staleSec)
	}
	if codes := got.Protocols[0].RowCodes; len(codes) != 2 || codes[0].Rows != n-4 || codes[1].Rows != 3 || codes[1].Commit != "0123456789ab" {
		t.Errorf("row codes %+v; want %d rows of this code, then 3 of 0123456789ab", codes, n-4)
	}
	if got := status("stale"); got.Reuse != "stale" || got.Stale != 3 || got.ToRun != 1 || got.FullByDefault {
		t.Errorf("PSUB_REUSE=stale: %+v; want the missing fit only to run, so not full by default", got)
	}

	// A run computes what -status counted.
	t.Setenv(grid.ReuseEnv, "")
	ran := 0
	if _, err := p.Run(context.Background(), protocol.Options{Profile: protocol.Tiny, Workers: 2, Results: file,
		Progress: func(grid.Progress) { ran++ }}); err != nil {
		t.Fatal(err)
	}
	if ran != 4 {
		t.Errorf("the run computed %d fits; -status said 4", ran)
	}
	if got := status(""); got.Fresh != n || got.ToRun != 0 || !got.FullByDefault {
		t.Errorf("after the run: %+v; want all %d fresh, full by default", got, n)
	}
	// Stale rows only: reused under PSUB_REUSE=stale, so full by default then.
	for i := range rows {
		rows[i].Code = codever.CodeVersion{Commit: "0123456789ab", Source: "00000000000000ff"}
	}
	buf.Reset()
	if err := grid.WriteResultsJSONL(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := status(""); got.Stale != n || got.ToRun != n || got.FullByDefault {
		t.Errorf("every row stale: %+v; want all %d to run, quick by default", got, n)
	}
	if got := status("stale"); got.Stale != n || got.ToRun != 0 || !got.FullByDefault {
		t.Errorf("every row stale, PSUB_REUSE=stale: %+v; want nothing to run, full by default", got)
	}
}

// TestStatusNotebooksWithoutProtocol: notebooks that run no protocol are
// listed as such, and alone they are not full by default.
func TestStatusNotebooksWithoutProtocol(t *testing.T) {
	var out, errb bytes.Buffer
	nb := filepath.Join(notebooksDir, "00-quickstart.ipynb")
	if code := run([]string{"protocol", "all", "-profile", "tiny", "-dir", t.TempDir(), "-status", nb}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var st allStatus
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Protocols) != 0 || len(st.WithoutProtocol) != 1 || st.FullByDefault {
		t.Errorf("-status of 00-quickstart: %s; want no protocol, not full by default", out.String())
	}
	if code := run([]string{"protocol", "all", "-profile", "tiny", "-status", "notebooks/none.ipynb"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "none.ipynb") {
		t.Errorf("a missing notebook: exit %d, %s; want 1 naming it", code, errb.String())
	}
	if code := run([]string{"protocol", "all", "-profile", "tiny", "x.ipynb"}, &out, &errb); code != 2 {
		t.Errorf("a notebook without -status: exit %d, want 2", code)
	}
}

// TestStatusOfStops checks the counts of the rows' stops (StopOf: a row
// stopped at the cap, one not certified) and the summed seconds, and that
// failed rows count as missing.
func TestStatusOfStops(t *testing.T) {
	p, err := protocol.ByName("tradeoff")
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := p.Jobs(protocol.Tiny, nil)
	if err != nil || len(jobs) < 4 {
		t.Fatalf("tiny jobs: %v, %v", len(jobs), err)
	}
	code := codever.CodeVersion{Commit: "aaaaaaaaaaaa", Source: "1111111111111111"}
	var rows []grid.Result
	for i, j := range jobs {
		r := grid.Result{Job: j, Metrics: map[string]float64{"stop": float64(psub.StopGap)}, Seconds: 2, Code: code}
		switch i {
		case 0:
			r.Metrics["stop"] = float64(psub.StopMaxIter)
		case 1, 2:
			r.Metrics["stop"] = float64(psub.StopNotCertified)
		case 3:
			r.Error = "boom"
		}
		rows = append(rows, r)
	}
	file := filepath.Join(t.TempDir(), "r.jsonl")
	var buf bytes.Buffer
	if err := grid.WriteResultsJSONL(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := statusOf(p, protocol.Tiny, file, code, false)
	if err != nil {
		t.Fatal(err)
	}
	n := len(jobs)
	nc := 0
	for _, k := range s.NotCertified {
		nc += k
	}
	if s.Capped != 1 || nc != 2 || s.Missing != 1 || s.Fresh != n-1 || s.ToRun != 1 || s.Seconds != float64(2*(n-1)) {
		t.Errorf("%+v; want 1 capped, 2 not certified, 1 missing (the failed row), %d fresh, %d s", s, n-1, 2*(n-1))
	}
}

func TestJobTableFormat(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1 000", 13146: "13 146", 1234567: "1 234 567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := duration(1633.4); got != "1 633 s (0.45 h)" {
		t.Errorf("duration(1633.4) = %q", got)
	}
	if got := duration(17.47); got != "17 s" {
		t.Errorf("duration(17.47) = %q", got)
	}
	if got := shortCommit("c488f83ee8b3+dirty"); got != "c488f83+dirty" {
		t.Errorf("shortCommit = %q", got)
	}
	st := allStatus{Fits: 5, Fresh: 3, Protocols: []protocolStatus{
		{Protocol: "a", Notebook: "notebooks/01-a.ipynb", Results: "/x/a-full.jsonl", Fits: 3, Fresh: 3, Seconds: 1500,
			RowCodes: []rowCode{{Commit: "abcdef012345", Rows: 3}}},
		{Protocol: "b", Results: "/x/b-full.jsonl", Fits: 2, Missing: 1, Stale: 1, Capped: 1, Seconds: 10,
			NotCertified: map[string]int{"QPBO": 1}, RowCodes: []rowCode{{Commit: "0123456789ab", Rows: 1}}},
	}}
	var b strings.Builder
	if err := jobTable(&b, st); err != nil {
		t.Fatal(err)
	}
	want := "| notebook | fits | job time | at the cap | not certified | code of the rows | fresh at HEAD | results |\n" +
		"|---|---|---|---|---|---|---|---|\n" +
		"| `01-a` | 3 | 1 500 s (0.42 h) | 0 | 0 | abcdef0 | all 3 | `a-full.jsonl` |\n" +
		"| – | 2 (1 without a row) | 10 s | 1 | 1 (QPBO 1) | 0123456 | none (all stale) | `b-full.jsonl` |\n" +
		"| **all** | **5** | **1 510 s (0.42 h)** | **1** | **1** | 2 commits | **3 of 5** | |\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

var updateReadme = flag.Bool("update-readme", false, "rewrite README.md's job-time table from the committed rows")

// The markers around README.md's job-time table.
const (
	tableStart = "<!-- generated: go run ./scripts/psub protocol all -profile full -table -->\n"
	tableEnd   = "<!-- end of the generated table -->\n"
)

// TestReadmeJobTable checks that README.md's job-time table is the one
// the committed rows give (psub protocol all -profile full -table),
// fresh-at-HEAD column included: new rows, or a change of the code the
// fits execute, need the table written again (go test ./scripts/psub
// -run TestReadmeJobTable -update-readme).
func TestReadmeJobTable(t *testing.T) {
	readme := filepath.Join(filepath.Dir(notebooksDir), "README.md")
	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok := strings.Cut(string(text), tableStart)
	old, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok || !ok2 {
		t.Fatalf("%s: no job-time table between the lines %q and %q", readme, tableStart, tableEnd)
	}
	st, err := statusAll(protocol.All(), protocol.Full, "", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := jobTable(&b, st); err != nil {
		t.Fatal(err)
	}
	if b.String() == old {
		return
	}
	if *updateReadme {
		if err := os.WriteFile(readme, []byte(before+tableStart+b.String()+tableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: job-time table written", readme)
		return
	}
	t.Errorf("%s: the job-time table differs from the committed rows'; write it again with\n"+
		"  go test ./scripts/psub -run TestReadmeJobTable -update-readme\nREADME:\n%s\nfrom the rows:\n%s", readme, old, b.String())
}

func TestStatusSummary(t *testing.T) {
	p := []protocolStatus{{Protocol: "cows"}}
	for _, c := range []struct {
		st   allStatus
		want string
	}{
		{allStatus{Profile: "full", Reuse: "current", Workers: 2, Fits: 10, Fresh: 10, Protocols: p},
			"full profile (cows): 10 fits, 10 with a row of this checkout's code, 0 stale, 0 missing; nothing to compute"},
		{allStatus{Profile: "full", Reuse: "stale", Workers: 2, Fits: 10, Stale: 10, Protocols: p},
			"full profile (cows): 10 fits, 0 with a row of this checkout's code, 10 stale, 0 missing; nothing to compute, the stale rows reused (PSUB_REUSE=stale)"},
		{allStatus{Profile: "full", Reuse: "current", Workers: 2, Fits: 10, Fresh: 7, Stale: 2, Missing: 1, ToRun: 3, ToRunSeconds: 4000, ToRunWall: 2000, Protocols: p},
			"full profile (cows): 10 fits, 7 with a row of this checkout's code, 2 stale, 1 missing; stale ones recomputed: 3 fits to compute, 4 000 s (1.11 h) of one-core time, about 2 000 s (0.56 h) on 2 workers (besides building the problems)"},
		{allStatus{Profile: "full"}, "full profile: no protocol's fits"},
	} {
		if got := c.st.summary(); got != c.want {
			t.Errorf("summary:\n got %s\nwant %s", got, c.want)
		}
	}
	// Two protocols at once, one of them exclusive: the pool's share over
	// the workers, then the exclusive fits one after another.
	if got := estimateWall([]protocolStatus{{ToRunSeconds: 100}, {ToRunSeconds: 30, Exclusive: true}}, 4); got != 55 {
		t.Errorf("estimateWall = %g, want 100/4 + 30 = 55", got)
	}
}

func TestNotebookOf(t *testing.T) {
	p, err := protocol.ByName("tradeoff")
	if err != nil {
		t.Fatal(err)
	}
	imports := "import (\n\t\"github.com/probably-submodular/crf/notebooks/tradeoff\"\n\t\"github.com/probably-submodular/crf/notebooks/protocol\"\n)\n"
	borrows := "import \"github.com/probably-submodular/crf/notebooks/tradeoff\"\n"
	for _, c := range []struct {
		nbs     map[string]string
		want    string
		wantErr bool
	}{
		{map[string]string{"00.ipynb": borrows, "07.ipynb": imports}, "07.ipynb", false},
		{map[string]string{"00.ipynb": borrows}, "", false},
		{map[string]string{"07.ipynb": imports, "10.ipynb": imports}, "", true},
	} {
		got, err := notebookOf(p, c.nbs)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("notebookOf(%v) = %q, %v; want %q (error %v)", c.nbs, got, err, c.want, c.wantErr)
		}
	}
}
