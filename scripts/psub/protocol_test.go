package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/datadir"
	"github.com/probably-submodular/crf/notebooks/grid"
)

func TestProtocolList(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"protocol", "-list"}, &out, &errb); code != 0 {
		t.Fatalf("psub protocol -list: exit %d, %s", code, errb.String())
	}
	var got struct {
		Protocols []protocolInfo `json:"protocols"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Protocols) == 0 || got.Protocols[0].Name != "cows" || got.Protocols[0].Jobs["full"] != 700 {
		t.Errorf("psub protocol -list: %+v; want cows first with its 700 selection fits in the full profile", got.Protocols)
	}
	if code := run([]string{"protocol", "no-such"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "cows") {
		t.Errorf("unknown protocol: exit %d, stderr %q; want 2 and the list of protocols", code, errb.String())
	}
}

// TestProtocolShardsAndMerge runs cows' tiny profile as two shards from
// the command line, merges them, and checks that a merge of one shard
// fails (exit 1) listing the other's fits as missing.
func TestProtocolShardsAndMerge(t *testing.T) {
	datadir.Need(t, "tud_cows")
	dir := t.TempDir()
	var files []string
	for _, s := range []string{"1/2", "2/2"} {
		f := filepath.Join(dir, "shard-"+s[:1]+".jsonl")
		var out, errb bytes.Buffer
		if code := run([]string{"protocol", "cows", "-profile", "tiny", "-shard", s, "-results", f, "-models", filepath.Join(dir, "models")}, &out, &errb); code != 0 {
			t.Fatalf("shard %s: exit %d, %s", s, code, errb.String())
		}
		var res protocolResult
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Rows != 6 || res.Ran != 6 || res.Shard != s {
			t.Fatalf("shard %s: %s (%v); want 6 rows run", s, out.String(), err)
		}
		if !strings.Contains(errb.String(), "cows tiny: 6 of 6 jobs: cows ") {
			t.Errorf("shard %s: no progress line per fit on stderr: %q", s, errb.String())
		}
		files = append(files, f)
	}
	merged := filepath.Join(dir, "cows-tiny.jsonl")
	var out, errb bytes.Buffer
	if code := run(append([]string{"protocol", "cows", "-profile", "tiny", "-merge", "-results", merged}, files[:1]...), &out, &errb); code != 1 || !strings.Contains(out.String(), `"missing"`) {
		t.Errorf("merge of one shard: exit %d, stdout %s; want 1 and the missing fits", code, out.String())
	}
	out.Reset()
	if code := run(append([]string{"protocol", "cows", "-profile", "tiny", "-merge", "-results", merged}, files...), &out, &errb); code != 0 || !strings.Contains(out.String(), `"complete":true`) {
		t.Fatalf("merge: exit %d, %s %s", code, out.String(), errb.String())
	}
	rows, err := grid.ReadResults(merged)
	if err != nil || len(rows) != 12 {
		t.Errorf("merged file: %d rows (%v), want 12", len(rows), err)
	}
}
