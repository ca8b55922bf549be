package data

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/modroot"
)

func TestLocatorOrder(t *testing.T) {
	// A fake module: root/mod/go.mod, root/mod/pkg/sub (working dir),
	// root/shared/data/yeast (the default), root/env/yeast, root/explicit/yeast.
	root := t.TempDir()
	mk := func(p string) string {
		d := filepath.Join(root, p)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	mod, wd := mk("mod"), mk("mod/pkg/sub")
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module "+modroot.Path+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shared, env, explicit := mk("shared/data/yeast"), mk("env/yeast"), mk("explicit/yeast")
	envOf := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvVar {
				return v
			}
			return ""
		}
	}
	cases := []struct {
		name    string
		loc     Locator
		want    string
		wantErr []string
	}{
		{"explicit wins", Locator{Path: filepath.Dir(explicit), Getenv: envOf(filepath.Dir(env)), WorkDir: wd}, explicit, nil},
		{"env next", Locator{Getenv: envOf(filepath.Dir(env)), WorkDir: wd}, env, nil},
		{"module default", Locator{Getenv: envOf(""), WorkDir: wd}, shared, nil},
		{"env folder missing is an error", Locator{Getenv: envOf(filepath.Join(root, "nowhere")), WorkDir: wd},
			"", []string{"$PSUB_DATA=" + filepath.Join(root, "nowhere") + ": does not exist", "fix or unset"}},
		{"env names a file", Locator{Getenv: envOf(filepath.Join(mod, "go.mod")), WorkDir: wd},
			"", []string{"go.mod: is not a folder"}},
		{"explicit data set folder", Locator{Path: explicit, WorkDir: wd}, explicit, nil},
		{"explicit missing is an error", Locator{Path: filepath.Join(root, "nowhere"), WorkDir: wd},
			"", []string{"explicit path", "nowhere", "scripts/fetch-data"}},
		{"nothing found lists every place", Locator{Getenv: envOf(filepath.Join(root, "shared")), WorkDir: root},
			"", []string{"$PSUB_DATA", "shared", "no go.mod", "scripts/fetch-data", EnvVar}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.loc.Find("yeast")
			if c.wantErr != nil {
				if !errors.Is(err, ErrNotFound) {
					t.Fatalf("error %v, want ErrNotFound", err)
				}
				for _, w := range c.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Find = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestChecksumsEmbedded(t *testing.T) {
	for ds, n := range map[string]int{"yeast": 2, "scene": 2, "tud_cows": 333, "weizmann_horse": 656, "epfl_mito": 661} {
		sums, err := Checksums(ds)
		if err != nil || len(sums) != n {
			t.Fatalf("%s: %d sums, %v; want %d", ds, len(sums), err, n)
		}
	}
	if _, err := Checksums("msrc"); err == nil || !strings.Contains(err.Error(), "known: epfl_mito") {
		t.Fatalf("unknown data set: %v", err)
	}
}

func TestVerifyFilesDetectsMismatch(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "yeast-train.arff"), []byte("not yeast"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := VerifyFiles(dir, "yeast")
	if err == nil || !strings.Contains(err.Error(), "2 file(s)") || !strings.Contains(err.Error(), "yeast-train.arff: sha256") {
		t.Fatalf("error %v, want a mismatch and a missing file", err)
	}
}

// TestLocatorWarnsOnFallback checks that a $PSUB_DATA folder without the
// data set falls back to the module default with a warning naming both,
// and that no warning is written when $PSUB_DATA has it or is unset.
func TestLocatorWarnsOnFallback(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"mod/pkg", "shared/data/yeast", "env/scene"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "mod", "go.mod"), []byte("module "+modroot.Path+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(root, "env")
	for _, c := range []struct {
		env, sub, warn string
	}{
		{env, "yeast", "data set \"yeast\" is not in $PSUB_DATA=" + env + "; using " + filepath.Join(root, "mod", "..", "shared", "data", "yeast")},
		{env, "scene", ""},
		{"", "yeast", ""},
	} {
		var w bytes.Buffer
		l := Locator{Getenv: func(string) string { return c.env }, WorkDir: filepath.Join(root, "mod", "pkg"), Warn: &w}
		if _, err := l.Find(c.sub); err != nil {
			t.Fatalf("PSUB_DATA=%q, %s: %v", c.env, c.sub, err)
		}
		if c.warn == "" && w.Len() > 0 || c.warn != "" && !strings.Contains(w.String(), c.warn) {
			t.Errorf("PSUB_DATA=%q, %s: warning %q, want %q", c.env, c.sub, w.String(), c.warn)
		}
	}
}
