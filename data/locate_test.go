package data

import (
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
		{"env missing falls back", Locator{Getenv: envOf(filepath.Join(root, "nowhere")), WorkDir: wd}, shared, nil},
		{"explicit data set folder", Locator{Path: explicit, WorkDir: wd}, explicit, nil},
		{"explicit missing is an error", Locator{Path: filepath.Join(root, "nowhere"), WorkDir: wd},
			"", []string{"explicit path", "nowhere", "scripts/fetch-data"}},
		{"nothing found lists every place", Locator{Getenv: envOf(filepath.Join(root, "nowhere")), WorkDir: root},
			"", []string{"$PSUB_DATA", "nowhere", "no go.mod", "scripts/fetch-data", EnvVar}},
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
