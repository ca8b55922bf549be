package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// fakeExecutable writes a shell script that appends its arguments, one per
// line, and a line "--" to log, then runs tail (shell code).
func fakeExecutable(t *testing.T, dir, name, log, tail string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	script := "#!/bin/bash\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >>" + shellQuote(log) + "\necho -- >>" + shellQuote(log) + "\n" + tail + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// calls splits a fake's log into its calls' argument lists.
func calls(t *testing.T, log string) [][]string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	var cur []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l == "--" {
			out = append(out, cur)
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	return out
}

func runPsub(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestSlurmScriptsRunWhatTheyShould writes the scripts into a folder whose
// name needs quoting, then runs them with bash as Slurm would (its
// environment variables set) against a fake psub, and checks the argument
// lists psub receives.
func TestSlurmScriptsRunWhatTheyShould(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run the scripts")
	}
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "jobs it's")
	log := filepath.Join(tmp, "psub.log")
	fake := fakeExecutable(t, tmp, "psub", log, "")
	out := filepath.Join(tmp, "merged rows.jsonl")
	code, stdout, stderr := runPsub(t, "protocol", "cows", "-profile", "full", "-slurm", dir, "-shards", "4",
		"-cpus-per-task", "2", "-mem", "3G", "-time", "1:30:00", "-partition", "short", "-account", "lab-1",
		"-psub", fake, "-results", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var plan slurmPlan
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatalf("stdout is not the plan as JSON: %v\n%s", err, stdout)
	}
	if plan.Shards != 4 || plan.CPUs != 2 || plan.Mem != "3G" || plan.Time != "1:30:00" || plan.Psub != fake || plan.Results != out || !plan.Prepare || plan.Jobs != nil {
		t.Fatalf("plan %+v", plan)
	}
	root, err := data.Locator{}.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	array, err := os.ReadFile(filepath.Join(dir, "array.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"#!/bin/bash\n", "\n#SBATCH --array=1-4\n", "\n#SBATCH --cpus-per-task=2\n", "\n#SBATCH --mem=3G\n",
		"\n#SBATCH --time=1:30:00\n", "\n#SBATCH --partition=short\n", "\n#SBATCH --account=lab-1\n",
		"\n#SBATCH --chdir=" + root + "\n", "\n#SBATCH --output=" + filepath.Join(dir, "logs", "shard-%a.out") + "\n"} {
		if !strings.Contains(string(array), want) {
			t.Errorf("array.sbatch lacks %q:\n%s", want, array)
		}
	}
	// sbatch reads #SBATCH lines only before the first command.
	if i, j := strings.LastIndex(string(array), "#SBATCH"), strings.Index(string(array), "set -euo"); i > j {
		t.Errorf("an #SBATCH line after the first command:\n%s", array)
	}

	bash := func(script string, env ...string) {
		t.Helper()
		cmd := exec.Command("bash", filepath.Join(dir, script))
		cmd.Env = append(os.Environ(), env...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("bash %s: %v\n%s", script, err, b)
		}
	}
	bash("array.sbatch", "SLURM_ARRAY_TASK_ID=3", "SLURM_CPUS_PER_TASK=2")
	bash("prepare.sbatch", "SLURM_CPUS_PER_TASK=2")
	// The merge takes the shard files that exist, in order.
	for _, i := range []string{"3", "1"} {
		if err := os.WriteFile(filepath.Join(dir, "shard-"+i+".jsonl"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bash("merge.sbatch")
	got := calls(t, log)
	if plan.Source == "" {
		t.Fatal("the plan has no source version for the jobs to check")
	}
	want := [][]string{
		{"protocol", "cows", "-profile", "full", "-slurm", dir, "-check-source", plan.Source},
		{"protocol", "cows", "-profile", "full", "-shard", "3/4", "-workers", "2", "-results", filepath.Join(dir, "shard-3.jsonl"), "-models", filepath.Join(filepath.Dir(out), "models", "cows-full"), "-checkpoints", filepath.Join(dir, "checkpoints")},
		{"protocol", "cows", "-profile", "full", "-slurm", dir, "-prepare", "-check-source", plan.Source},
		{"protocol", "cows", "-profile", "full", "-merge", "-results", out, filepath.Join(dir, "shard-1.jsonl"), filepath.Join(dir, "shard-3.jsonl")},
	}
	if len(got) != len(want) {
		t.Fatalf("psub ran %d times, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if strings.Join(got[i], "\x00") != strings.Join(want[i], "\x00") {
			t.Errorf("call %d: psub %q\nwant      %q", i+1, got[i], want[i])
		}
	}
	// The array script refuses to run outside an array.
	cmd := exec.Command("bash", filepath.Join(dir, "array.sbatch"))
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=")
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "job array") {
		t.Errorf("array.sbatch without SLURM_ARRAY_TASK_ID: %v, %s", err, b)
	}
}

// TestSlurmDefaultsFromCosts checks the resources derived from the
// protocol's costs against what the tasks need: every shard's share of the
// fits, run on its CPUs, plus its longest fit must fit in the time limit.
func TestSlurmDefaultsFromCosts(t *testing.T) {
	tmp := t.TempDir()
	fake := fakeExecutable(t, tmp, "psub", filepath.Join(tmp, "log"), "")
	for _, cpus := range []string{"1", "4"} {
		code, stdout, stderr := runPsub(t, "protocol", "cows", "-profile", "full", "-slurm", filepath.Join(tmp, "j"+cpus),
			"-cpus-per-task", cpus, "-psub", fake, "-results", filepath.Join(tmp, "none.jsonl"))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var plan slurmPlan
		if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
			t.Fatal(err)
		}
		c := plan.Cost
		if c.Fits != 840 || c.Groups != 140 {
			t.Errorf("cows full: %d fits in %d groups, want 840 in 140 (7 sets, 2 losses, 10 folds; 5 values of C and a final fit)", c.Fits, c.Groups)
		}
		if plan.Shards < 1 || plan.Shards > c.Groups {
			t.Errorf("%d shards for %d groups", plan.Shards, c.Groups)
		}
		n := float64(plan.CPUs)
		perShard := float64((c.Groups+plan.Shards-1)/plan.Shards) * float64(c.Fits) / float64(c.Groups)
		need := perShard*c.FitSeconds/n + c.MaxFitSeconds
		if got := parseSlurmTime(t, plan.Time); got < need {
			t.Errorf("%s CPUs: time limit %s (%.0f s) below the work of a shard, %.0f s", cpus, plan.Time, got, need)
		}
		var mb int
		if _, err := fmt.Sscanf(plan.Mem, "%dM", &mb); err != nil || float64(mb) < c.MemoryMB+(n-1)*c.FitMemoryMB {
			t.Errorf("%s CPUs: memory %s below the cost's %.0f MB + %.0f MB per further worker", cpus, plan.Mem, c.MemoryMB, c.FitMemoryMB)
		}
		// About slurmTaskTarget of fits per CPU of a task.
		if work := perShard * c.FitSeconds / n; work > 2*slurmTaskTarget {
			t.Errorf("%s CPUs: %d shards give a task %.0f s of fits", cpus, plan.Shards, work)
		}
	}
}

func TestSlurmDuration(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		want string
	}{{1, "0-00:01:00"}, {60, "0-00:01:00"}, {61, "0-00:02:00"}, {3600, "0-01:00:00"}, {90000, "1-01:00:00"}, {86400*3 + 59*60 + 1, "3-01:00:00"}} {
		if got := slurmDuration(tc.sec); got != tc.want {
			t.Errorf("slurmDuration(%v) = %q, want %q", tc.sec, got, tc.want)
		}
		if !slurmTime.MatchString(tc.want) {
			t.Errorf("%q does not pass -time's check", tc.want)
		}
	}
}

// TestSlurmSubmitChainsJobs submits through a fake sbatch and checks the
// order and dependencies of the three jobs.
func TestSlurmSubmitChainsJobs(t *testing.T) {
	tmp := t.TempDir()
	log := filepath.Join(tmp, "sbatch.log")
	// Job ids 101, 102, ... ("id;cluster", as on a federated cluster).
	n := filepath.Join(tmp, "n")
	fakeExecutable(t, tmp, "sbatch", log, `i=$(cat `+shellQuote(n)+` 2>/dev/null || echo 100); i=$((i+1)); echo $i >`+shellQuote(n)+`; echo "$i;cl"`)
	t.Setenv("PATH", tmp+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := filepath.Join(tmp, "jobs")
	code, stdout, stderr := runPsub(t, "protocol", "cows", "-profile", "full", "-slurm", dir, "-shards", "3", "-submit",
		"-psub", fakeExecutable(t, tmp, "psub", filepath.Join(tmp, "psub.log"), ""), "-results", filepath.Join(tmp, "out.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var plan slurmPlan
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Jobs == nil || *plan.Jobs != (slurmJobs{Prepare: "101", Array: "102", Merge: "103"}) {
		t.Fatalf("jobs %+v, want prepare 101, array 102, merge 103", plan.Jobs)
	}
	want := [][]string{
		{"--parsable", filepath.Join(dir, "prepare.sbatch")},
		{"--parsable", "--dependency=afterok:101", "--kill-on-invalid-dep=yes", filepath.Join(dir, "array.sbatch")},
		{"--parsable", "--dependency=afterok:102", "--kill-on-invalid-dep=yes", filepath.Join(dir, "merge.sbatch")},
	}
	got := calls(t, log)
	if strings.Join(flatten(got), " ") != strings.Join(flatten(want), " ") {
		t.Fatalf("sbatch calls\n%q\nwant\n%q", got, want)
	}

	// An sbatch that refuses the array: the error names the prepare job
	// already submitted.
	os.Remove(log)
	fakeExecutable(t, tmp, "sbatch", log, `case "$*" in *array.sbatch*) echo "sbatch: error: Invalid account" >&2; exit 1;; esac; echo 7`)
	code, _, stderr = runPsub(t, "protocol", "cows", "-profile", "full", "-slurm", dir, "-shards", "3", "-submit",
		"-psub", filepath.Join(tmp, "psub"), "-results", filepath.Join(tmp, "out.jsonl"))
	if code != 1 || !strings.Contains(stderr, "Invalid account") || !strings.Contains(stderr, "already submitted: job 7") {
		t.Fatalf("exit %d, stderr %q; want 1 naming sbatch's error and job 7", code, stderr)
	}
}

func flatten(ss [][]string) []string {
	var out []string
	for _, s := range ss {
		out = append(append(out, s...), "|")
	}
	return out
}

// TestSlurmBadArguments: every bad command line exits 2 with a message
// naming the flag, and writes nothing.
func TestSlurmBadArguments(t *testing.T) {
	tmp := t.TempDir()
	fake := fakeExecutable(t, tmp, "psub", filepath.Join(tmp, "log"), "")
	notExec := filepath.Join(tmp, "plain")
	os.WriteFile(notExec, nil, 0o644)
	dir := filepath.Join(tmp, "jobs")
	base := func(extra ...string) []string {
		return append([]string{"protocol", "cows", "-slurm", dir, "-psub", fake}, extra...)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{base(), "-profile is required"},
		{base("-profile", "huge"), "unknown profile"},
		{[]string{"protocol", "cows", "-profile", "full", "-slurm", ""}, "-slurm needs a directory"},
		{base("-profile", "full", "-shards", "-1"), "-shards -1"},
		{base("-profile", "full", "-shards", "141"), "at most 140 shards"},
		{base("-profile", "full", "-cpus-per-task", "0"), "-cpus-per-task 0"},
		{base("-profile", "full", "-mem", "4 GB"), "-mem"},
		{base("-profile", "full", "-mem", "0G"), "-mem"},
		{base("-profile", "full", "-time", "2h"), "-time"},
		{base("-profile", "full", "-partition", "a b"), "-partition"},
		{base("-profile", "full", "-account", "x;rm"), "-account"},
		{base("-profile", "full", "surplus"), "unexpected arguments"},
		{base("-profile", "full", "-bogus"), "bogus"},
		{[]string{"protocol", "cows", "-profile", "full", "-slurm", dir, "-psub", notExec}, "not an executable"},
		{[]string{"protocol", "cows", "-profile", "full", "-slurm", dir, "-psub", filepath.Join(tmp, "missing")}, "-psub"},
	} {
		code, stdout, stderr := runPsub(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "usage: psub protocol") {
			t.Errorf("psub %s: exit %d, stderr %q; want 2 and %q with the usage", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
		if stdout != "" {
			t.Errorf("psub %s: stdout %q", strings.Join(tc.args, " "), stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "array.sbatch")); err == nil {
		t.Errorf("a bad command line wrote %s", filepath.Join(dir, "array.sbatch"))
	}
	code, stdout, _ := runPsub(t, "protocol", "cows", "-slurm", dir, "-h")
	if code != 0 || !strings.Contains(stdout, "-cpus-per-task") || !strings.Contains(stdout, "HOWTO") {
		t.Errorf("-slurm -h: exit %d, stdout %q", code, stdout)
	}
}

// TestSlurmInstallsItself: without -psub the jobs run a copy of the running
// binary in DIR/bin, executable.
func TestSlurmInstallsItself(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "jobs")
	code, stdout, stderr := runPsub(t, "protocol", "cows", "-profile", "tiny", "-slurm", dir, "-results", filepath.Join(tmp, "o.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var plan slurmPlan
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	a, _ := os.ReadFile(self)
	b, err := os.ReadFile(plan.Psub)
	if plan.Psub != filepath.Join(dir, "bin", "psub") || err != nil || !bytes.Equal(a, b) {
		t.Fatalf("psub %s (%v): not a copy of %s", plan.Psub, err, self)
	}
	if st, _ := os.Stat(plan.Psub); st.Mode()&0o111 == 0 {
		t.Errorf("%s is not executable", plan.Psub)
	}
	// tiny cows: 2 sets, 1 loss, 2 folds.
	want := cows.Experiment{}.Settings(protocol.Tiny)
	if n := len(want.Sets) * len(want.Losses) * want.Folds; plan.Cost.Groups != n {
		t.Errorf("%d groups, want %d", plan.Cost.Groups, n)
	}
}

// parseSlurmTime reads the days-hours:minutes:seconds that slurmDuration
// writes.
func parseSlurmTime(t *testing.T, s string) float64 {
	t.Helper()
	var d, h, m, sec int
	if _, err := fmt.Sscanf(s, "%d-%d:%d:%d", &d, &h, &m, &sec); err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return float64(((d*24+h)*60+m)*60 + sec)
}

// TestSlurmPreparesEveryCachedBuild: every protocol with a Build method that
// returns a *data.SegmentedSet (built through the segment cache) gets a
// prepare job; a new shape of Build would otherwise go unprepared silently.
func TestSlurmPreparesEveryCachedBuild(t *testing.T) {
	setType := reflect.TypeOf((*data.SegmentedSet)(nil))
	for _, p := range protocol.All() {
		m, ok := reflect.TypeOf(p).MethodByName("Build")
		returnsSet := false
		for i := 0; ok && i < m.Type.NumOut(); i++ {
			returnsSet = returnsSet || m.Type.Out(i) == setType
		}
		if got := buildFunc(p) != nil; got != returnsSet {
			t.Errorf("%s: prepare %v, but its Build returns a segmented set: %v", p.Name(), got, returnsSet)
		}
	}
}

// TestSlurmMeasuresCostsFromShards: submitting again measures the fits'
// seconds from the shard files of the earlier submission; a damaged shard
// file is named in a warning and measures nothing.
func TestSlurmMeasuresCostsFromShards(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "jobs")
	os.MkdirAll(dir, 0o755)
	jobs, err := cows.Experiment{}.Jobs(protocol.Tiny, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []grid.Result
	for _, j := range jobs[:4] {
		rows = append(rows, grid.Result{Job: j, Seconds: 100, Metrics: map[string]float64{}})
	}
	f, err := os.Create(filepath.Join(dir, "shard-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := grid.WriteResultsJSONL(f, rows); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, "shard-2.jsonl"), []byte("{torn\n"), 0o644)
	fake := fakeExecutable(t, tmp, "psub", filepath.Join(tmp, "log"), "")
	code, stdout, stderr := runPsub(t, "protocol", "cows", "-profile", "tiny", "-slurm", dir, "-psub", fake, "-results", filepath.Join(tmp, "o.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var plan slurmPlan
	if err := json.Unmarshal([]byte(stdout), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Cost.FitSeconds != 100 || !strings.Contains(plan.Cost.Source, "4 of") || !strings.Contains(plan.Cost.Source, "shard-1.jsonl") {
		t.Errorf("cost %+v: want 100 s per fit measured on 4 fits of shard-1.jsonl", plan.Cost)
	}
	if !strings.Contains(stderr, "warning: costs not measured from") || !strings.Contains(stderr, "shard-2.jsonl") {
		t.Errorf("stderr %q does not warn about the damaged shard-2.jsonl", stderr)
	}
}

// TestSlurmChecksSource: the jobs' first step fails, naming the change,
// when the checkout's source is not the one the jobs were written from.
func TestSlurmChecksSource(t *testing.T) {
	code, err := codever.CurrentCode()
	if err != nil || !code.Known() {
		t.Skipf("no source version here: %v", err)
	}
	dir := t.TempDir()
	if c, stdout, stderr := runPsub(t, "protocol", "cows", "-profile", "tiny", "-slurm", dir, "-check-source", code.Source); c != 0 || !strings.Contains(stdout, code.Source) {
		t.Errorf("the current source: exit %d, stdout %q, stderr %q", c, stdout, stderr)
	}
	c, _, stderr := runPsub(t, "protocol", "cows", "-profile", "tiny", "-slurm", dir, "-check-source", "0123456789abcdef", "-prepare")
	if c != 1 || !strings.Contains(stderr, "changed since these jobs were written") || !strings.Contains(stderr, code.Source) {
		t.Errorf("another source: exit %d, stderr %q; want 1 naming the change", c, stderr)
	}
}
