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

func TestFetchDataScript(t *testing.T) {
	for _, tool := range []string{"curl", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not available", tool)
		}
	}
	// Unknown data set: a usage error.
	if out, code := fetchData(t, nil, "msrc"); code != 2 || !strings.Contains(out, "unknown data set 'msrc'") {
		t.Fatalf("exit %d: %s", code, out)
	}
	// Missing files and no way out (an unreachable proxy stands in for an
	// offline machine, so the test never downloads): a plain message, no
	// partial files.
	dir := t.TempDir()
	offline := []string{"https_proxy=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "ALL_PROXY=http://127.0.0.1:9"}
	out, code := fetchData(t, offline, "-d", dir, "yeast")
	if code != 3 || !strings.Contains(out, "offline") || !strings.Contains(out, "Nothing was downloaded") {
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
	if code != 0 || !strings.Contains(out, "present") || !strings.Contains(out, "PSUB_DATA="+dir) {
		t.Fatalf("exit %d: %s", code, out)
	}
}
