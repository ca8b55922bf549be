package viz

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Profile is the run profile a notebook follows: "quick" (the default:
// reduced folds, iterations and sizes, minutes for all notebooks) or "full"
// (the paper's protocol). scripts/reproduce sets PSUB_PROFILE.
func Profile() string {
	if p := strings.TrimSpace(os.Getenv("PSUB_PROFILE")); p == "full" {
		return "full"
	}
	return "quick"
}

// Quick reports whether the profile is "quick".
func Quick() bool { return Profile() == "quick" }

// ModuleRoot returns the directory holding this project's go.mod, searching
// upwards from the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/probably-submodular/crf") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of github.com/probably-submodular/crf above %s", dir)
		}
	}
}

// Commit is the short git commit of the module root, with "+dirty" when the
// work tree has changes, or "unknown".
func Commit() string {
	root, err := ModuleRoot()
	if err != nil {
		return "unknown"
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}

// Machine describes the machine: CPU model, cores, OS/arch and Go version.
func Machine() string {
	cpu := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		s := bufio.NewScanner(f)
		for s.Scan() {
			if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s, %d cores, %s/%s, %s", cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}
