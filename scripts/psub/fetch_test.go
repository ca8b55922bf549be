package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestFetchCheckEmptyFolder: -check on an empty folder reports every set
// incomplete (JSON on stdout, the command to run on stderr) and exits 1,
// without the network.
func TestFetchCheckEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{"fetch", "-check", "-dir", dir, "yeast", "epfl_mito"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "run scripts/fetch-data yeast epfl_mito again") {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	var rep struct {
		Sets []struct {
			Set     string `json:"set"`
			Missing int    `json:"missing"`
		} `json:"sets"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("stdout is not JSON: %v: %q", err, out.String())
	}
	if len(rep.Sets) != 2 || rep.Sets[0].Missing != 2 || rep.Sets[1].Missing != 991 {
		t.Fatalf("report %+v", rep)
	}
}
