package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestMaxflowPrintsFlow(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "six.max")
	text := "c classic example, max flow 15\np max 6 8\nn 1 s\nn 6 t\n" +
		"a 1 2 5\na 1 3 15\na 2 4 5\na 2 5 5\na 3 4 5\na 3 5 5\na 4 6 15\na 5 6 5\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"maxflow", "-repeat", "2", file}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	var got maxflowResult
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v: %q", err, out.String())
	}
	if got.File != file || got.Nodes != 6 || got.Arcs != 8 || got.Flow != 15 || got.Repeat != 2 ||
		got.Seconds < 0 || got.BuildSeconds < 0 {
		t.Fatalf("got %+v", got)
	}
	if runtime.GOOS == "linux" && (got.CPUSeconds == nil || *got.CPUSeconds < 0 || got.BuildCPUSeconds == nil) {
		t.Fatalf("no thread CPU times on Linux: %q", out.String())
	}
	for _, key := range []string{`"flow"`, `"build_seconds"`, `"seconds"`, `"nodes"`, `"arcs"`, `"file"`} {
		if !strings.Contains(out.String(), key) {
			t.Fatalf("output %q lacks %s", out.String(), key)
		}
	}
}

func TestMaxflowErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.max")
	if err := os.WriteFile(bad, []byte("p max 3 1\nn 1 s\nn 3 t\na 1 7 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"bad arc", []string{"maxflow", bad}, []string{bad, "line 4", "out of range"}},
		{"missing file", []string{"maxflow", filepath.Join(dir, "none.max")}, []string{"none.max"}},
		{"no file", []string{"maxflow"}, []string{"want one DIMACS file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(c.args, &out, &errb); code == 0 {
				t.Fatalf("exit 0, stdout %q", out.String())
			}
			for _, w := range c.want {
				if !strings.Contains(errb.String(), w) {
					t.Fatalf("stderr %q lacks %q", errb.String(), w)
				}
			}
		})
	}
}
