package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// The tests here run the built psub binary: exit statuses set by the Go
// runtime, kills and other processes cannot be seen from run.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// psubBinary builds the command once per test process.
func psubBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "psub-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "psub")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// runBinary runs psub with args (and extra environment) and returns its
// exit status and output.
func runBinary(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(psubBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestPanicExits3 makes the binary panic in the command's goroutine and in
// a worker goroutine: exit 3 (not the runtime's 2), a short message with
// the value and the line, asking for a report.
func TestPanicExits3(t *testing.T) {
	for _, where := range []string{"main", "worker"} {
		for _, cmd := range [][]string{{"version"}, {"train", "-train", "x.jsonl"}} {
			code, out, errb := runBinary(t, []string{testPanicEnv + "=" + where}, cmd...)
			if code != 3 || out != "" {
				t.Errorf("%s=%s psub %v: exit %d, stdout %q; want 3", testPanicEnv, where, cmd, code, out)
			}
			for _, want := range []string{"psub " + cmd[0] + ": internal error", "test panic (" + testPanicEnv + "=" + where + ")", "main.go:", "please report it"} {
				if !strings.Contains(errb, want) {
					t.Errorf("%s=%s psub %v: stderr %q lacks %q", testPanicEnv, where, cmd, errb, want)
				}
			}
			if strings.Contains(errb, "goroutine ") || strings.Count(errb, "\n") > 3 {
				t.Errorf("stderr is not short: %q", errb)
			}
		}
	}
	// Without the hook: the usual statuses.
	if code, _, _ := runBinary(t, nil, "version"); code != 0 {
		t.Errorf("psub version: exit %d", code)
	}
	if code, _, _ := runBinary(t, nil, "train", "-tol", "1", "-train", "x"); code != 2 {
		t.Errorf("psub train -tol 1: exit %d, want 2", code)
	}
}

// fakeRows returns a done row for every job that protocol p lists in
// profile prof before any row.
func fakeRows(t *testing.T, name string, prof protocol.Profile) (protocol.Protocol, []grid.Result) {
	t.Helper()
	p, err := protocol.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := p.Jobs(prof, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows []grid.Result
	for i, j := range jobs {
		rows = append(rows, grid.Result{Job: j, Metrics: map[string]float64{"m": float64(i)}})
	}
	return p, rows
}

func writeRows(t *testing.T, path string, rows []grid.Result) {
	t.Helper()
	var b bytes.Buffer
	if err := grid.WriteResultsJSONL(&b, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMergeWhileAnotherProcessHoldsTheLock holds the results lock in
// another process (as a running grid does): the merge refuses, exit 1,
// saying why, and leaves the results file as it was.
func TestMergeWhileAnotherProcessHoldsTheLock(t *testing.T) {
	dir := t.TempDir()
	_, rows := fakeRows(t, "tradeoff", protocol.Tiny)
	out, shard := filepath.Join(dir, "out.jsonl"), filepath.Join(dir, "shard.jsonl")
	writeRows(t, out, rows[:len(rows)/2])
	writeRows(t, shard, rows[len(rows)/2:])
	before, _ := os.ReadFile(out)

	holder := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	holder.Env = append(os.Environ(), "PSUB_HOLD_LOCK="+safefile.LockPath(out))
	stdin, _ := holder.StdinPipe()
	stdout, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	defer stdin.Close()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if !strings.HasPrefix(line, "LOCKED") {
		t.Fatalf("the helper did not take the lock: %q", line)
	}
	code, _, errb := runBinary(t, nil, "protocol", "tradeoff", "-profile", "tiny", "-merge", "-results", out, shard)
	if code != 1 || !strings.Contains(errb, "in use by another run") || !strings.Contains(errb, "nothing written") {
		t.Errorf("merge under another process's lock: exit %d, stderr %q", code, errb)
	}
	if now, _ := os.ReadFile(out); !bytes.Equal(now, before) {
		t.Error("the refused merge changed the results file")
	}
	stdin.Close()
	holder.Wait()
	code, _, errb = runBinary(t, nil, "protocol", "tradeoff", "-profile", "tiny", "-merge", "-results", out, shard)
	if code != 0 {
		t.Fatalf("merge after the lock was released: exit %d, %s", code, errb)
	}
	if now, _ := os.ReadFile(out); !bytes.HasPrefix(now, before) {
		t.Error("rows of the results file were lost")
	}
}

// TestHelperHoldLock takes the lock PSUB_HOLD_LOCK names and holds it until
// its stdin closes (run by TestMergeWhileAnotherProcessHoldsTheLock).
func TestHelperHoldLock(t *testing.T) {
	path := os.Getenv("PSUB_HOLD_LOCK")
	if path == "" {
		t.Skip("run by TestMergeWhileAnotherProcessHoldsTheLock")
	}
	l, err := safefile.TryLock(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("LOCKED")
	bufio.NewReader(os.Stdin).ReadString('\n')
	l.Unlock()
}

// TestMergeKilledMidway kills merges of a large results file at several
// moments: the file is always the old one or the merged one, byte for
// byte, never a part.
func TestMergeKilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a large results file")
	}
	dir := t.TempDir()
	_, rows := fakeRows(t, "tradeoff", protocol.Tiny)
	// The old file: half the protocol's rows under 30 000 rows of other
	// fits (another grid's), about 4 MB.
	var filler []grid.Result
	for i := range 30000 {
		filler = append(filler, grid.Result{Job: grid.Job{Dataset: fmt.Sprintf("other-%d", i), Set: "C4", Loss: "hamming", C: 1}, Metrics: map[string]float64{"accuracy": float64(i) / 7}})
	}
	old := filepath.Join(dir, "old.jsonl")
	writeRows(t, old, append(filler, rows[:len(rows)/2]...))
	shard := filepath.Join(dir, "shard.jsonl")
	writeRows(t, shard, rows[len(rows)/2:])
	oldBytes, _ := os.ReadFile(old)
	// The merged file, from a merge left alone.
	out := filepath.Join(dir, "out.jsonl")
	os.WriteFile(out, oldBytes, 0o644)
	start := time.Now()
	if code, _, errb := runBinary(t, nil, "protocol", "tradeoff", "-profile", "tiny", "-merge", "-results", out, shard); code != 0 {
		t.Fatalf("merge: exit %d, %s", code, errb)
	}
	full := time.Since(start)
	newBytes, _ := os.ReadFile(out)
	if bytes.Equal(newBytes, oldBytes) || !bytes.HasPrefix(newBytes, oldBytes) {
		t.Fatal("the merge did not append to the old file")
	}
	sawOld, sawNew := 0, 0
	for k := range 8 {
		os.WriteFile(out, oldBytes, 0o644)
		cmd := exec.Command(psubBinary(t), "protocol", "tradeoff", "-profile", "tiny", "-merge", "-results", out, shard)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(k) * full / 6)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		got, err := os.ReadFile(out)
		switch {
		case err != nil:
			t.Fatalf("kill after %v: %v", time.Duration(k)*full/6, err)
		case bytes.Equal(got, oldBytes):
			sawOld++
		case bytes.Equal(got, newBytes):
			sawNew++
		default:
			t.Fatalf("kill after %v: the results file is neither the old nor the merged one (%d bytes)", time.Duration(k)*full/6, len(got))
		}
	}
	t.Logf("merge of %d bytes in %v; killed 8 times: %d old, %d merged", len(oldBytes), full, sawOld, sawNew)
	if sawOld == 0 {
		t.Error("no kill came before the rename: the test does not test")
	}
}

// TestMergeNeverShrinksResults replays the merges on a complete
// results file: a profile typo, the wrong protocol or profile, an
// incomplete shard, an empty shard. Each leaves the file byte for byte.
func TestMergeNeverShrinksResults(t *testing.T) {
	dir := t.TempDir()
	_, rows := fakeRows(t, "tradeoff", protocol.Tiny)
	out, part, empty := filepath.Join(dir, "complete.jsonl"), filepath.Join(dir, "part.jsonl"), filepath.Join(dir, "empty.jsonl")
	writeRows(t, out, rows)
	writeRows(t, part, rows[:len(rows)/3])
	writeRows(t, empty, nil)
	before, _ := os.ReadFile(out)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tradeoff", "-profile", "qiuck"}, 2, `unknown profile "qiuck"`},
		{[]string{"cows", "-profile", "tiny"}, 1, "nothing to merge"},
		{[]string{"tradeoff", "-profile", "tiny"}, 0, "already holds every row"},
		{[]string{"tradeoff", "-profile", "tiny", "-results", out, empty}, 1, "nothing to merge"},
	} {
		args := append([]string{"protocol"}, c.args...)
		if len(c.args) == 3 {
			args = append(args, "-results", out, part)
		}
		args = append(args[:2], append([]string{"-merge"}, args[2:]...)...)
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("psub %s: exit %d, stderr %q; want %d and %q", strings.Join(args, " "), code, stderr.String(), c.code, c.want)
		}
		if now, _ := os.ReadFile(out); !bytes.Equal(now, before) {
			t.Fatalf("psub %s changed the complete results file", strings.Join(args, " "))
		}
	}
}
