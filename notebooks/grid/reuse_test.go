package grid

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/probably-submodular/crf/internal/codever"
)

// gridSettings stands for a notebook's settings struct.
type gridSettings struct {
	Tol     float64
	MaxIter int
	Sets    []string
}

// gridRun runs a 2-dataset × 3-fold grid whose job function counts calls
// and returns the code source it ran as metric "code" (1 for v1, 2 for v2),
// so that reused rows can be told from new ones.
type gridRun struct {
	t     *testing.T
	path  string
	jobs  []Job
	calls atomic.Int64
}

func newGridRun(t *testing.T) *gridRun {
	t.Setenv(ReuseEnv, "") // the tests set the policy themselves
	return &gridRun{t: t, path: filepath.Join(t.TempDir(), "out", "g.jsonl"),
		jobs: Jobs([]string{"a", "b"}, []string{"C4"}, []string{"hamming"}, []float64{1}, 3)}
}

var (
	codeV1 = codever.CodeVersion{Commit: "1111111+dirty", Source: "00000000000000a1"}
	codeV2 = codever.CodeVersion{Commit: "2222222", Source: "00000000000000b2"}
)

// run runs the grid as code v with params p and policy and returns the
// results, the report and how many jobs ran.
func (g *gridRun) run(v codever.CodeVersion, p any, policy ReusePolicy) ([]Result, Report, int) {
	g.t.Helper()
	g.calls.Store(0)
	marker := map[string]float64{codeV1.Source: 1, codeV2.Source: 2}[v.Source]
	fn := func(_ context.Context, j Job) (map[string]float64, error) {
		g.calls.Add(1)
		return map[string]float64{"code": marker, "fold": float64(j.Fold)}, nil
	}
	var rep Report
	reports := 0
	rs, err := Run(context.Background(), g.jobs, fn, Options{Workers: 2, Results: g.path, Params: p, Reuse: policy, Code: &v,
		Report: func(r Report) { rep = r; reports++ }})
	if err != nil {
		g.t.Fatal(err)
	}
	if reports != 1 {
		g.t.Fatalf("Report called %d times, want once", reports)
	}
	return rs, rep, int(g.calls.Load())
}

// ranWith checks that every result carries metric code = marker, and
// that the file's newest rows are the results returned.
func (g *gridRun) ranWith(rs []Result, marker float64) {
	g.t.Helper()
	for _, r := range rs {
		if r.Metrics["code"] != marker {
			g.t.Fatalf("%s: from code %v, want %v", r.Key(), r.Metrics["code"], marker)
		}
	}
	all, err := ReadResults(g.path)
	if err != nil {
		g.t.Fatal(err)
	}
	byKey := map[string]Result{}
	for _, r := range all {
		byKey[r.Key()] = r
	}
	for _, r := range rs {
		f := byKey[r.Key()]
		if f.Metrics["code"] != r.Metrics["code"] || f.Code != r.Code || f.Params != r.Params {
			g.t.Fatalf("%s: the file's newest row (code %v, %s) is not the one returned (code %v, %s)",
				r.Key(), f.Metrics["code"], f.Code, r.Metrics["code"], r.Code)
		}
	}
}

func TestRunGridReusesSameCodeAndParams(t *testing.T) {
	g := newGridRun(t)
	p := gridSettings{Tol: 0.01, MaxIter: 200, Sets: []string{"C0", "C4"}}
	rs, rep, ran := g.run(codeV1, p, ReuseCurrent)
	if ran != 6 || rep.Reused != 0 || rep.ToRun != 6 || len(rep.Stale) != 0 || !strings.Contains(rep.String(), "no earlier rows of these 6 jobs") {
		t.Fatalf("first run: %d jobs ran, report %v", ran, rep)
	}
	want, _ := ParamsKey(p)
	for _, r := range rs {
		if r.Code != codeV1 || r.Params != want {
			t.Fatalf("row %s written with code %+v params %q", r.Key(), r.Code, r.Params)
		}
	}
	rs, rep, ran = g.run(codeV1, p, ReuseCurrent)
	if ran != 0 || rep.Reused != 6 || rep.ToRun != 0 || rep.StaleIgnored != 0 || rep.StaleReused != 0 {
		t.Fatalf("same code and params: %d jobs ran, report %+v", ran, rep)
	}
	g.ranWith(rs, 1)
	s := rep.String()
	for _, part := range []string{g.path, "reused 6 of 6", codeV1.Source, codeV1.Commit, "0 jobs to run"} {
		if !strings.Contains(s, part) {
			t.Errorf("report %q does not say %q", s, part)
		}
	}
	if strings.Contains(s, "WARNING") || strings.Contains(s, "tale") {
		t.Errorf("report of current rows speaks of stale ones: %q", s)
	}
}

func TestRunGridRerunsOtherCode(t *testing.T) {
	g := newGridRun(t)
	p := gridSettings{Tol: 0.01}
	g.run(codeV1, p, ReuseCurrent)
	rs, rep, ran := g.run(codeV2, p, ReuseCurrent)
	if ran != 6 || rep.Reused != 0 || rep.StaleIgnored != 6 || rep.ToRun != 6 {
		t.Fatalf("changed source: %d jobs ran, report %+v", ran, rep)
	}
	if len(rep.Stale) != 1 || rep.Stale[0].Code != codeV1 || rep.Stale[0].Rows != 6 || rep.Stale[0].Why != "other code" {
		t.Fatalf("stale groups %+v", rep.Stale)
	}
	g.ranWith(rs, 2)
	s := rep.String()
	for _, part := range []string{"6 jobs have only stale rows and run again", "6 from commit " + codeV1.Commit + ", source " + codeV1.Source + " (other code)", codeV2.Source, ReuseEnv + "=stale"} {
		if !strings.Contains(s, part) {
			t.Errorf("report %q does not say %q", s, part)
		}
	}
	// The new rows are current now; the file kept the old ones.
	_, rep, ran = g.run(codeV2, p, ReuseCurrent)
	if ran != 0 || rep.Reused != 6 {
		t.Fatalf("rerun of the new code: %d jobs ran, report %+v", ran, rep)
	}
	// Back to the first code: its rows are current again (and become the
	// newest rows of the file, which ReadResults returns).
	rs, rep, ran = g.run(codeV1, p, ReuseCurrent)
	if ran != 0 || rep.Reused != 6 {
		t.Fatalf("back to v1: %d jobs ran, report %+v", ran, rep)
	}
	g.ranWith(rs, 1)
	// A commit change alone (same source) is not a code change.
	_, rep, ran = g.run(codever.CodeVersion{Commit: "3333333", Source: codeV1.Source}, p, ReuseCurrent)
	if ran != 0 || rep.Reused != 6 {
		t.Fatalf("same source, other commit: %d jobs ran, report %+v", ran, rep)
	}
	// An unknown running source matches nothing.
	_, rep, ran = g.run(codever.CodeVersion{Commit: "unknown"}, p, ReuseCurrent)
	if ran != 6 || rep.StaleIgnored != 6 || !strings.Contains(rep.Stale[0].Why, "unknown") {
		t.Fatalf("unknown source: %d jobs ran, report %+v", ran, rep)
	}
}

func TestRunGridRerunsOtherParams(t *testing.T) {
	g := newGridRun(t)
	g.run(codeV1, gridSettings{Tol: 0.01, MaxIter: 200}, ReuseCurrent)
	for _, p := range []gridSettings{
		{Tol: 0.001, MaxIter: 200},
		{Tol: 0.001, MaxIter: 100},
		{Tol: 0.001, MaxIter: 100, Sets: []string{"C4"}},
	} {
		_, rep, ran := g.run(codeV1, p, ReuseCurrent)
		if ran != 6 || rep.StaleIgnored != 6 || len(rep.Stale) != 1 || !strings.Contains(rep.Stale[0].Why, "other params") {
			t.Fatalf("params %+v: %d jobs ran, report %+v", p, ran, rep)
		}
	}
	// The report names the fields that differ.
	_, rep, _ := g.run(codeV1, gridSettings{Tol: 0.5, MaxIter: 100, Sets: []string{"C4"}}, ReuseCurrent)
	if why := rep.Stale[0].Why; !strings.Contains(why, "Tol") || strings.Contains(why, "MaxIter") {
		t.Fatalf("why %q, want Tol named and MaxIter not", why)
	}
	// Other code and other params at once.
	_, rep, _ = g.run(codeV2, gridSettings{Tol: 0.25}, ReuseCurrent)
	if why := rep.Stale[0].Why; !strings.Contains(why, "other code") || !strings.Contains(why, "other params") {
		t.Fatalf("why %q", why)
	}
}

func TestRunGridReusesStaleWhenAsked(t *testing.T) {
	g := newGridRun(t)
	p := gridSettings{Tol: 0.01}
	g.run(codeV1, p, ReuseCurrent)
	rs, rep, ran := g.run(codeV2, p, ReuseStale)
	if ran != 0 || rep.StaleReused != 6 || rep.Reused != 0 || rep.ToRun != 0 {
		t.Fatalf("stale reuse: %d jobs ran, report %+v", ran, rep)
	}
	g.ranWith(rs, 1)
	for _, r := range rs {
		if r.Code != codeV1 {
			t.Fatalf("reused row %s shows code %+v, want the stale one's", r.Key(), r.Code)
		}
	}
	s := rep.String()
	for _, part := range []string{"WARNING", "reused 6 STALE", ReuseEnv + "=stale", "6 from commit " + codeV1.Commit + ", source " + codeV1.Source + " (other code)", codeV1.Source, codeV1.Commit, codeV2.Source} {
		if !strings.Contains(s, part) {
			t.Errorf("warning %q does not say %q", s, part)
		}
	}
	// The environment variable sets the same policy.
	t.Setenv(ReuseEnv, "stale")
	_, rep, ran = g.run(codeV2, p, ReuseFromEnv)
	if ran != 0 || rep.StaleReused != 6 || rep.Policy != ReuseStale {
		t.Fatalf("%s=stale: %d jobs ran, report %+v", ReuseEnv, ran, rep)
	}
	// Current rows are preferred over stale ones even then.
	g.run(codeV2, p, ReuseCurrent)
	_, rep, _ = g.run(codeV2, p, ReuseFromEnv)
	if rep.Reused != 6 || rep.StaleReused != 0 {
		t.Fatalf("current rows not preferred: %+v", rep)
	}
	t.Setenv(ReuseEnv, "yes")
	_, err := Run(context.Background(), g.jobs, nil, Options{Results: g.path})
	if err == nil || !strings.Contains(err.Error(), ReuseEnv) {
		t.Fatalf("bad %s accepted: %v", ReuseEnv, err)
	}
}

// TestRunGridOldRows: a results file written before code versions (and with
// hand-typed params) stays readable; its rows are stale.
func TestRunGridOldRows(t *testing.T) {
	g := newGridRun(t)
	os.MkdirAll(filepath.Dir(g.path), 0o755)
	var old strings.Builder
	for _, j := range g.jobs {
		old.WriteString(`{"dataset":"` + j.Dataset + `","set":"C4","loss":"hamming","c":1,"fold":` + string(rune('0'+j.Fold)) +
			`,"metrics":{"code":9},"seconds":1,"params":"tol=0.01 maxiter=200"}` + "\n")
	}
	if err := os.WriteFile(g.path, []byte(old.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if rs, err := ReadResults(g.path); err != nil || len(rs) != 6 || !rs[0].Code.IsZero() {
		t.Fatalf("old file: %d rows, %v", len(rs), err)
	}
	_, rep, ran := g.run(codeV1, gridSettings{Tol: 0.01}, ReuseCurrent)
	if ran != 6 || rep.StaleIgnored != 6 || !strings.Contains(rep.Stale[0].Why, "written before code versions were recorded") {
		t.Fatalf("old rows: %d jobs ran, report %+v", ran, rep)
	}
	// Under the stale policy they are reused (with a warning naming them).
	if err := os.WriteFile(g.path, []byte(old.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, rep, ran := g.run(codeV1, gridSettings{Tol: 0.01}, ReuseStale)
	if ran != 0 || rep.StaleReused != 6 || rs[0].Metrics["code"] != 9 || !strings.Contains(rep.String(), "without a code version") {
		t.Fatalf("old rows, stale policy: %d jobs ran, report %v", ran, rep)
	}
}

func TestRunGridReportWithoutFile(t *testing.T) {
	t.Setenv(ReuseEnv, "")
	var rep Report
	jobs := Jobs([]string{"a"}, []string{"C4"}, []string{"h"}, []float64{1}, 2)
	_, err := Run(context.Background(), jobs, func(context.Context, Job) (map[string]float64, error) { return nil, nil },
		Options{Code: &codeV1, Report: func(r Report) { rep = r }})
	if err != nil || rep.ToRun != 2 || !strings.Contains(rep.String(), "no results file") {
		t.Fatalf("report %+v (%v)", rep, err)
	}
	_, err = Run(context.Background(), jobs, nil, Options{Params: func() {}})
	if err == nil || !strings.Contains(err.Error(), "params") {
		t.Fatalf("a func as params accepted: %v", err)
	}
}

// TestRunGridWarnsWithoutReport: a caller that sets no Report still sees a
// warning on stderr when stale rows are reused (PSUB_REUSE=stale may be set
// by whoever runs it).
func TestRunGridWarnsWithoutReport(t *testing.T) {
	g := newGridRun(t)
	g.run(codeV1, nil, ReuseCurrent)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	t.Setenv(ReuseEnv, "stale")
	_, err = Run(context.Background(), g.jobs, nil, Options{Results: g.path, Code: &codeV2})
	os.Stderr = stderr
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(r)
	if !strings.HasPrefix(string(out), "WARNING: "+g.path) || !strings.Contains(string(out), "reused 6 STALE") {
		t.Fatalf("stderr %q", out)
	}
}

// Two grids on one results file at once: the second is refused at the
// start with the holder named, before it runs any job (issue 32: both ran
// every job). The lock goes with the first grid.
func TestRunGridLocksResults(t *testing.T) {
	g := newGridRun(t)
	var inner error
	innerCalls := 0
	first := true
	fn := func(_ context.Context, j Job) (map[string]float64, error) {
		if first {
			first = false
			_, inner = Run(context.Background(), g.jobs, func(context.Context, Job) (map[string]float64, error) {
				innerCalls++
				return nil, nil
			}, Options{Workers: 1, Results: g.path})
		}
		return map[string]float64{"fold": float64(j.Fold)}, nil
	}
	if _, err := Run(context.Background(), g.jobs, fn, Options{Workers: 1, Results: g.path}); err != nil {
		t.Fatal(err)
	}
	if inner == nil || innerCalls != 0 || !strings.Contains(inner.Error(), "in use by another run") ||
		!strings.Contains(inner.Error(), "process "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second grid: %d jobs run, err %v; want a refusal naming this process", innerCalls, inner)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(g.path), ".*")); len(m) != 0 {
		t.Fatalf("left after the grid: %v", m)
	}
	// Free again once the first grid returned.
	if _, err := Run(context.Background(), g.jobs, fn, Options{Workers: 1, Results: g.path}); err != nil {
		t.Fatalf("after the first grid: %v", err)
	}
}
