package runenv

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestProfile(t *testing.T) {
	for env, want := range map[string]string{"": "quick", "quick": "quick", "nonsense": "quick", "full": "full", " full\n": "full", "Full": "quick"} {
		t.Setenv(ProfileVar, env)
		if got := Profile(); got != want || Quick() != (want == "quick") {
			t.Errorf("%s=%q: Profile %q, Quick %v; want %q", ProfileVar, env, got, Quick(), want)
		}
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "runenv", "runenv.go")); err != nil {
		t.Errorf("module root %s does not hold internal/runenv: %v", root, err)
	}
}

// commitAt in a throwaway repository: unknown before the first commit, the
// commit after it, +dirty once a tracked file changes (an untracked one does
// not count).
func TestCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not available")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	if c := commitAt(dir); c != "unknown" {
		t.Errorf("before any commit: %q, want unknown", c)
	}
	write("a.txt", "a\n")
	git("add", "a.txt")
	git("commit", "-q", "-m", "a")
	head := git("rev-parse", "--short", "HEAD")
	write("new.txt", "untracked\n")
	if c := commitAt(dir); c != head {
		t.Errorf("clean checkout with an untracked file: %q, want %q", c, head)
	}
	write("a.txt", "changed\n")
	if c := commitAt(dir); c != head+"+dirty" {
		t.Errorf("changed tracked file: %q, want %q", c, head+"+dirty")
	}
	if c := commitAt(filepath.Join(dir, "nowhere")); c != "unknown" {
		t.Errorf("no checkout: %q, want unknown", c)
	}
}

func TestMachineAndCurrent(t *testing.T) {
	m := Machine()
	for _, want := range []string{runtime.GOOS + "/" + runtime.GOARCH, runtime.Version(), " cores, "} {
		if !strings.Contains(m, want) {
			t.Errorf("Machine() = %q lacks %q", m, want)
		}
	}
	t.Setenv(ProfileVar, "full")
	r := Current()
	if r.Profile != "full" || r.Machine != m || r.Commit == "" || r.Date.IsZero() {
		t.Errorf("Current() = %+v", r)
	}
}

// CPUSeconds grows while this goroutine computes; a minute of spinning
// without a change fails.
func TestCPUSeconds(t *testing.T) {
	c0 := CPUSeconds()
	if math.IsNaN(c0) {
		if runtime.GOOS == "linux" {
			t.Fatal("CPU time not measured on Linux")
		}
		t.Skip("CPU time not measured on " + runtime.GOOS)
	}
	x := 1.0
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		for range 100_000 {
			x = math.Sqrt(x + 1)
		}
		if CPUSeconds() > c0 {
			return
		}
	}
	t.Fatalf("CPUSeconds stayed at %g for a minute of spinning (x %g)", c0, x)
}
