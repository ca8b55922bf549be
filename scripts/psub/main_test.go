package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestVersionPrintsJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	var got map[string]string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v: %q", err, out.String())
	}
	if got["version"] != version {
		t.Fatalf("version %q, want %q", got["version"], version)
	}
}

func TestHelpListsCommandsAndUnknownFails(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "version") {
		t.Fatalf("help: exit %d, out %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"frobnicate"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown command") {
		t.Fatalf("unknown command: exit %d, stderr %q", code, errb.String())
	}
}

// badArgs holds, for every subcommand, a command line that parses but is
// wrong (a missing required input or an invalid value): exit status 2.
var badArgs = map[string][]string{
	"version":  {"surplus"},
	"train":    {"-train", "x.jsonl", "-loss", "nonsense"},
	"predict":  {"-model", "m.json"},
	"export":   {"-dataset", "no-such-set", "-o", "out"},
	"slic":     {"-o", "labels.png"},
	"maxflow":  {"-repeat", "0", "x.max"},
	"model":    {"a.json", "b.json"},
	"protocol": {"cows", "-shard", "9/2"},
	"study":    {"no-such"},
	"fetch":    {"msrc"},
	"segment":  {"train", "-images", "x"},
}

// TestCommandLineConventions checks every subcommand: -h and --help print
// its usage on stdout and exit 0; an unknown flag and a bad argument print
// the error and the usage on stderr and exit 2, before touching any file.
func TestCommandLineConventions(t *testing.T) {
	for name := range commands() {
		if _, ok := badArgs[name]; !ok {
			t.Errorf("subcommand %q has no bad-arguments case in badArgs", name)
		}
		usageLine := "usage: psub " + name
		cases := []struct {
			label      string
			args       []string
			code       int
			wantStdout bool // usage on stdout (help) rather than stderr
		}{
			{"-h", []string{name, "-h"}, 0, true},
			{"--help", []string{name, "--help"}, 0, true},
			{"-help", []string{name, "-help"}, 0, true},
			{"help NAME", []string{"help", name}, 0, true},
			{"--bogus", []string{name, "--bogus"}, 2, false},
			{"-bogus=1", []string{name, "-bogus=1"}, 2, false},
			{"bad arguments", append([]string{name}, badArgs[name]...), 2, false},
		}
		for _, c := range cases {
			t.Run(name+" "+c.label, func(t *testing.T) {
				var out, errb bytes.Buffer
				code := run(c.args, &out, &errb)
				if code != c.code {
					t.Fatalf("psub %s: exit %d, want %d; stdout %q, stderr %q", strings.Join(c.args, " "), code, c.code, out.String(), errb.String())
				}
				usageIn, other := &out, &errb
				if !c.wantStdout {
					usageIn, other = &errb, &out
				}
				if !strings.HasPrefix(usageIn.String(), usageLine) && !strings.Contains(usageIn.String(), "\n"+usageLine) {
					t.Fatalf("psub %s: usage %q not in %q", strings.Join(c.args, " "), usageLine, usageIn.String())
				}
				if other.Len() != 0 {
					t.Fatalf("psub %s: unexpected output %q", strings.Join(c.args, " "), other.String())
				}
				if c.code == 2 && !strings.HasPrefix(errb.String(), "psub "+name+": ") {
					t.Fatalf("psub %s: stderr %q does not start with the error", strings.Join(c.args, " "), errb.String())
				}
			})
		}
	}
}

// TestTopLevelHelpAndErrors checks psub's own help and its exit statuses.
func TestTopLevelHelpAndErrors(t *testing.T) {
	cases := []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{nil, 0, "commands:", ""},
		{[]string{"-h"}, 0, "commands:", ""},
		{[]string{"--help"}, 0, "commands:", ""},
		{[]string{"help"}, 0, "commands:", ""},
		{[]string{"help", "-h"}, 0, "commands:", ""},
		{[]string{"--bogus"}, 2, "", "unknown command \"--bogus\""},
		{[]string{"help", "nope"}, 2, "", "unknown command \"nope\""},
		{[]string{"help", "train", "predict"}, 2, "", "at most one command"},
		// A failure while working exits 1, without the usage.
		{[]string{"maxflow", "/nonexistent/x.max"}, 1, "", "psub maxflow: open /nonexistent/x.max"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String(), c.inStdout) || !strings.Contains(errb.String(), c.inStderr) {
			t.Errorf("psub %q: exit %d (want %d), stdout %q (want %q in it), stderr %q (want %q in it)",
				c.args, code, c.code, out.String(), c.inStdout, errb.String(), c.inStderr)
		}
		if code == 1 && strings.Contains(errb.String(), "usage:") {
			t.Errorf("psub %q: a failure at work printed the usage: %q", c.args, errb.String())
		}
	}
}
