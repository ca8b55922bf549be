package main

import (
	"bytes"
	"encoding/json"
	"math"
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
	linux := runtime.GOOS == "linux"
	cases := []struct {
		name string
		args []string
		keys []string // fields that must be present (all >= 0)
	}{
		{"read", nil, []string{"read_seconds", "seconds"}},
		{"repeat", []string{"-repeat", "3"}, []string{"cold_build_seconds", "cold_seconds", "build_seconds", "seconds"}},
		{"repeat once", []string{"-repeat", "1"}, []string{"cold_build_seconds", "cold_seconds"}},
		{"dynamic", []string{"-rounds", "4"}, []string{"round_seconds", "flow_sum"}},
		{"reset", []string{"-rounds", "4", "-mode", "reset"}, []string{"round_seconds", "flow_sum"}},
		{"rebuild", []string{"-rounds", "4", "-mode", "rebuild"}, []string{"round_seconds", "flow_sum"}},
		{"other", []string{"-rounds", "4", "-mode", "other"}, []string{"round_seconds", "flow_sum"}},
		{"drop", []string{"-rounds", "4", "-mode", "drop"}, []string{"round_seconds", "flow_sum"}},
		{"clear", []string{"-rounds", "4", "-mode", "clear"}, []string{"round_seconds", "flow_sum"}},
	}
	cpuKeys := map[string][]string{
		"read": {"read_cpu_seconds", "cpu_seconds", "peak_rss_bytes"}, "repeat": {"cold_cpu_seconds", "build_cpu_seconds", "cpu_seconds"},
		"repeat once": {"cold_build_cpu_seconds"}, "dynamic": {"round_cpu_seconds"},
	}
	sums := map[string]float64{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append(append([]string{"maxflow"}, c.args...), file)
			if code := run(args, &out, &errb); code != 0 {
				t.Fatalf("exit %d, stderr %q", code, errb.String())
			}
			var got map[string]any
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v: %q", err, out.String())
			}
			if got["file"] != file || got["nodes"] != 6.0 || got["arcs"] != 8.0 {
				t.Fatalf("got %v", got)
			}
			keys := c.keys
			if linux {
				keys = append(keys, cpuKeys[c.name]...)
			}
			for _, k := range keys {
				if v, ok := got[k].(float64); !ok || v < 0 {
					t.Errorf("%s = %v, want a number >= 0 in %q", k, got[k], out.String())
				}
			}
			if c.args == nil || c.args[0] == "-repeat" {
				if got["flow"] != 15.0 {
					t.Errorf("flow %v, want 15", got["flow"])
				}
				return
			}
			sums[c.name] = got["flow_sum"].(float64)
		})
	}
	// The ways of re-solving see the same capacities each round.
	for _, m := range []string{"reset", "clear", "rebuild", "other", "drop"} {
		if d, x := sums["dynamic"], sums[m]; math.Abs(d-x) > 1e-9*d {
			t.Errorf("flow sums over the rounds: dynamic %v, %s %v", d, m, x)
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
		{"bad arc, repeat", []string{"maxflow", "-repeat", "2", bad}, []string{bad, "line 4", "out of range"}},
		{"both modes", []string{"maxflow", "-repeat", "2", "-rounds", "2", bad}, []string{"give one of them"}},
		{"bad mode", []string{"maxflow", "-rounds", "2", "-mode", "fast", bad}, []string{"-mode"}},
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
