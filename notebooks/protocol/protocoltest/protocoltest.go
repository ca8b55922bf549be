// Package protocoltest holds the checks every experiment's tests make of
// its protocol, as psub/qp/qptest does for the QP.
package protocoltest

import (
	"context"
	"maps"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// ShardsMergeToWhole runs shards 1/2 and 2/2 of p's profile into dir
// (opts gives each run's options by name and shard), merges them, and checks
// that the merge is complete and holds the whole run's fits metric for
// metric (timings aside).
func ShardsMergeToWhole(t testing.TB, p protocol.Protocol, prof protocol.Profile, dir string, opts func(name string, s protocol.Shard) protocol.Options, whole []grid.Result) {
	t.Helper()
	var files []string
	for i := 1; i <= 2; i++ {
		o := opts(filepath.Base(t.Name())+"-shard"+string(rune('0'+i)), protocol.Shard{I: i, N: 2})
		if _, err := p.Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		files = append(files, o.Results)
	}
	merged := filepath.Join(dir, "merged.jsonl")
	rep, err := protocol.Merge(p, prof, merged, files)
	if err != nil || !rep.Complete {
		t.Fatalf("merge: %v %+v", err, rep)
	}
	rows, err := grid.ReadResults(merged)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(Comparable(rows), Comparable(whole)) {
		t.Errorf("merged shards differ from the whole run:\n%v\n%v", Comparable(rows), Comparable(whole))
	}
}

// Comparable is what two runs of the same fits must agree on: each job's
// metrics, timings aside (protocol.IsTiming).
func Comparable(rs []grid.Result) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, r := range rs {
		m := map[string]float64{}
		maps.Copy(m, r.Metrics)
		maps.DeleteFunc(m, func(k string, _ float64) bool { return protocol.IsTiming(k) })
		out[r.Key()] = m
	}
	return out
}

// Claim is the claim of a claim table whose text starts with prefix; the
// test fails at once without one.
func Claim(t testing.TB, claims []protocol.Claim, prefix string) protocol.Claim {
	t.Helper()
	c, ok := protocol.FindClaim(claims, prefix)
	if !ok {
		t.Fatalf("no claim %q among %d claims", prefix, len(claims))
	}
	return c
}
