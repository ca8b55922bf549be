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
