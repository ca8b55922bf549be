package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// badNumbers lists, per command and numeric flag, values out of range: each
// must exit 2 before any file is read, with a message naming the flag, the
// value and "out of range" (not a Go field name). The inputs named do not
// exist: a range check that came after reading them would fail with 1.
var badNumbers = map[string]map[string][]string{
	"train -train missing.jsonl": {
		"C":        {"0", "-1", "NaN", "Inf", "-Inf"},
		"tol":      {"0", "1", "1.5", "-1e-3", "NaN", "Inf"},
		"max-iter": {"0", "-5", "2147483648"},
		"workers":  {"-1", "-3", "1025", "1000000000"},
		"labels":   {"1", "-2", "4097", "1000000000"},
	},
	"slic missing.png -o /tmp/never.png": {
		"n":      {"0", "-1", "65537", "100000000"},
		"m":      {"0", "-1", "NaN", "Inf", "1e300"},
		"sigma":  {"-1", "NaN", "Inf", "1e300", "1e6", "1e10"},
		"iter":   {"0", "-1", "10001", "1000000000"},
		"radius": {"0", "-1", "NaN", "1e18", "1e300"},
	},
	"export -dataset cows -o /tmp/never-export -data /nonexistent": {
		"limit":     {"-1", "3000000000"},
		"downscale": {"-1", "4097"},
	},
	"segment train -images /nonexistent -o /tmp/never.model": {
		"classes":        {"1", "-1", "4097"},
		"mask-threshold": {"-1", "NaN", "65536"},
		"max-value":      {"-1", "NaN", "Inf", "1e300"},
		"region-size":    {"-1", "2147483648"},
		"segments":       {"-1", "65537", "100000000"},
		"compactness":    {"0", "-1", "NaN", "1e300"},
		"sigma":          {"-1", "NaN", "1e300", "1e6"},
		"C":              {"0", "-1", "NaN", "Inf"},
		"holdout":        {"-0.1", "1", "NaN"},
		"tol":            {"0", "1", "NaN"},
		"max-iter":       {"0", "-5", "2147483648"},
	},
	"maxflow missing.max": {
		"repeat": {"0", "-1", "1048577"},
		"rounds": {"0", "-1", "1048577"},
	},
	"protocol cows -profile tiny -results /nonexistent/r.jsonl": {
		"workers": {"-1", "1025"},
	},
	"study cows-counts -results /nonexistent/r.jsonl": {
		"workers": {"-1", "1025"},
	},
	"protocol all -profile tiny -dir /nonexistent": {
		"workers": {"-1", "1025"},
	},
	"protocol cows -profile tiny -slurm /nonexistent/slurm": {
		"shards":        {"-1", "2147483648"},
		"cpus-per-task": {"0", "-1", "1025"},
	},
}

// anyNumber lists the numeric flags that take every value of their type.
var anyNumber = map[string]bool{"export -seed": true, "segment -seed": true}

func TestNumericFlagsRangeChecked(t *testing.T) {
	for prefix, byFlag := range badNumbers {
		for flag, values := range byFlag {
			for _, v := range values {
				// The flag goes right after the command (and the protocol
				// NAME), where every command parses flags.
				words := strings.Fields(prefix)
				at := 1
				if words[0] == "protocol" || words[0] == "segment" || words[0] == "study" {
					at = 2
				}
				args := append(append(append([]string{}, words[:at]...), "-"+flag, v), words[at:]...)
				var out, errb bytes.Buffer
				code := run(args, &out, &errb)
				msg := errb.String()
				if k := strings.Index(msg, "\nusage:"); k >= 0 {
					msg = msg[:k]
				}
				if code != 2 || !strings.Contains(msg, "-"+flag+" ") || !strings.Contains(msg, "out of range") || out.Len() != 0 {
					t.Errorf("psub %s: exit %d, stderr %q; want 2 naming -%s, its value and its range", strings.Join(args, " "), code, msg, flag)
				}
				if regexp.MustCompile(`\b(Settings|Options|Workers|MaxIter|Tol)\b`).MatchString(msg) {
					t.Errorf("psub %s: message %q uses Go names", strings.Join(args, " "), msg)
				}
			}
		}
	}
}

// TestEveryNumericFlagAudited reads every command's usage and checks that
// each numeric flag has out-of-range cases above (or takes any value).
func TestEveryNumericFlagAudited(t *testing.T) {
	numeric := regexp.MustCompile(`(?m)^  -(\S+) (int|uint|uint64|float|N)$`)
	usages := map[string][]string{
		"train": {"train", "-h"}, "slic": {"slic", "-h"}, "export": {"export", "-h"}, "maxflow": {"maxflow", "-h"},
		"predict": {"predict", "-h"}, "version": {"version", "-h"}, "fetch": {"fetch", "-h"}, "model": {"model", "-h"},
		"segment train": {"segment", "train", "-h"}, "segment predict": {"segment", "predict", "-h"},
		"protocol cows": {"protocol", "cows", "-h"}, "protocol all": {"protocol", "all", "-h"}, "study": {"study", "-h"},
		"protocol cows -slurm": {"protocol", "cows", "-slurm", "/x", "-h"},
	}
	for name := range commands() {
		if _, ok := usages[name]; !ok && name != "protocol" && name != "segment" {
			t.Errorf("command %s: its usage is not audited here", name)
		}
	}
	for name, args := range usages {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("psub %s: exit %d", strings.Join(args, " "), code)
		}
		for _, m := range numeric.FindAllStringSubmatch(out.String(), -1) {
			flag, found := m[1], false
			for prefix, byFlag := range badNumbers {
				cmd := strings.Fields(prefix)
				sameCmd := cmd[0] == strings.Fields(name)[0]
				if cmd[0] == "protocol" {
					sameCmd = (strings.Contains(name, "all") == (cmd[1] == "all")) && (strings.Contains(name, "slurm") == strings.Contains(prefix, "-slurm"))
				}
				if _, ok := byFlag[flag]; ok && sameCmd {
					found = true
				}
			}
			if !found && !anyNumber[strings.Fields(name)[0]+" -"+flag] {
				t.Errorf("psub %s: numeric flag -%s has no out-of-range cases", name, flag)
			}
		}
	}
}
