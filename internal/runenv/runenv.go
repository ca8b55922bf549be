package runenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/probably-submodular/crf/internal/cputime"
	"github.com/probably-submodular/crf/internal/modroot"
)

// ProfileVar names the environment variable that selects the profile;
// scripts/reproduce and scripts/notebook set it.
const ProfileVar = "PSUB_PROFILE"

// The profiles a notebook runs in.
const (
	// QuickProfile is a reduced run: fewer folds, iterations and sizes,
	// minutes for all notebooks. It is the default.
	QuickProfile = "quick"
	// FullProfile is the paper's protocol.
	FullProfile = "full"
)

// Profile is the run profile: FullProfile when PSUB_PROFILE says "full",
// QuickProfile otherwise.
func Profile() string {
	if strings.TrimSpace(os.Getenv(ProfileVar)) == FullProfile {
		return FullProfile
	}
	return QuickProfile
}

// Quick reports whether the profile is the quick one.
func Quick() bool { return Profile() == QuickProfile }

// ModuleRoot is the directory holding this module's go.mod, found by
// walking up from the working directory (notebooks/ under GoNB, a
// package's folder under go test).
func ModuleRoot() (string, error) { return modroot.Find("") }

// Commit is the short git commit of the checkout at the module root, with
// "+dirty" when tracked files have changes, or "unknown" outside a checkout
// or without git.
func Commit() string {
	root, err := ModuleRoot()
	if err != nil {
		return "unknown"
	}
	return commitAt(root)
}

func commitAt(root string) string {
	// No optional locks: git status would otherwise refresh the index under
	// a lock and make a commit of somebody working in the same tree fail.
	git := func(args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "-C", root}, args...)...).Output()
	}
	out, err := git("rev-parse", "--short", "HEAD")
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := git("status", "--porcelain", "--untracked-files=no"); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}

// Machine describes the machine in one line: CPU model (from
// /proc/cpuinfo, "unknown CPU" elsewhere), cores, OS/arch and Go version.
func Machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores, %s/%s, %s", cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// Run is what a page or a record states about the run that made it.
type Run struct {
	Profile string    // QuickProfile or FullProfile
	Commit  string    // Commit
	Machine string    // Machine
	Date    time.Time // when it ran
}

// Current is this run: the profile, commit and machine now, dated now.
func Current() Run {
	return Run{Profile: Profile(), Commit: Commit(), Machine: Machine(), Date: time.Now()}
}

// CPUSeconds is the user+system CPU time of this process so far, in
// seconds, NaN where the platform does not measure it: on a shared machine
// a steadier figure than wall time. Notebooks time their live benchmarks
// with it.
func CPUSeconds() float64 { return cputime.Seconds() }
