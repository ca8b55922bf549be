package data

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fetchData runs scripts/fetch-data with the given environment additions.
func fetchData(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	root, err := Locator{}.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not available")
	}
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "scripts", "fetch-data")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(out), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestFetchDataScript runs the script (the logic is data/fetch's, tested
// there): usage errors, an unreachable mirror, files already present.
func TestFetchDataScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the psub command")
	}
	if out, code := fetchData(t, nil, "msrc"); code != 2 || !strings.Contains(out, `unknown data set "msrc"`) {
		t.Fatalf("exit %d: %s", code, out)
	}
	// An unreachable mirror and no fallback: the set is reported
	// incomplete with the command to run again, nothing is left behind.
	dir := t.TempDir()
	offline := []string{"PSUB_DATA_MIRROR=http://127.0.0.1:9"}
	out, code := fetchData(t, offline, "-d", dir, "--no-fallback", "yeast")
	if code != 1 || !strings.Contains(out, "yeast INCOMPLETE: 2 of 2") || !strings.Contains(out, "run scripts/fetch-data yeast again") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("offline run left %d entries in %s", len(ents), dir)
	}
	// Files present with the right sums: nothing to download, no network.
	src, err := Find("", "yeast")
	if errors.Is(err, ErrNotFound) {
		t.Skip("yeast not available for the verification case")
	}
	if err := os.MkdirAll(filepath.Join(dir, "yeast"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"yeast-train.arff", "yeast-test.arff"} {
		if err := os.Symlink(filepath.Join(src, f), filepath.Join(dir, "yeast", f)); err != nil {
			t.Fatal(err)
		}
	}
	out, code = fetchData(t, offline, "-d", dir, "yeast")
	if code != 0 || !strings.Contains(out, "all 2 files present and verified") || !strings.Contains(out, "PSUB_DATA="+dir) {
		t.Fatalf("exit %d: %s", code, out)
	}
}
