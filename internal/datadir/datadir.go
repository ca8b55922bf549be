// Package datadir finds the real data sets for the tests of packages that
// the data package imports (and so cannot use its Locator): $PSUB_DATA,
// then ../shared/data beside the module root, as the loaders look (an
// explicit path is their first choice; tests have none). A test without its
// data skips, saying where it looked.
package datadir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/modroot"
)

// Find returns the folder sub (e.g. "tud_cows/images") in the first data
// folder that has it, or "" and the places looked at.
func Find(sub string) (string, []string) {
	var looked []string
	check := func(root, why string) string {
		dir := filepath.Join(root, filepath.FromSlash(sub))
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
		looked = append(looked, fmt.Sprintf("%s (%s)", dir, why))
		return ""
	}
	if env := os.Getenv("PSUB_DATA"); env != "" {
		if dir := check(env, "$PSUB_DATA"); dir != "" {
			return dir, nil
		}
	} else {
		looked = append(looked, "$PSUB_DATA: not set")
	}
	root, err := modroot.Find("")
	if err != nil {
		return "", append(looked, "../shared/data beside the module root: "+err.Error())
	}
	if dir := check(filepath.Join(root, "..", "shared", "data"), "../shared/data beside the module root"); dir != "" {
		return dir, nil
	}
	return "", looked
}

// Need returns the folder sub of the data, or skips the test saying
// where it looked.
func Need(tb testing.TB, sub string) string {
	tb.Helper()
	dir, looked := Find(sub)
	if dir == "" {
		tb.Skipf("data folder %s not found (looked in: %s); set PSUB_DATA or run scripts/fetch-data", sub, strings.Join(looked, "; "))
	}
	return dir
}
