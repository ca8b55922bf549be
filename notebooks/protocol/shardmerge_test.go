package protocol

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
)

// checkShardsMergeToWhole runs shards 1/2 and 2/2 of p's profile into dir
// (opts gives each run's options by name and shard), merges them, and checks
// that the merge is complete and holds the whole run's fits metric for
// metric (timings aside).
func checkShardsMergeToWhole(t *testing.T, p Protocol, prof Profile, dir string, opts func(name string, s Shard) Options, whole []grid.Result) {
	t.Helper()
	var files []string
	for i := 1; i <= 2; i++ {
		o := opts(filepath.Base(t.Name())+"-shard"+string(rune('0'+i)), Shard{i, 2})
		if _, err := p.Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		files = append(files, o.Results)
	}
	merged := filepath.Join(dir, "merged.jsonl")
	rep, err := Merge(p, prof, merged, files)
	if err != nil || !rep.Complete {
		t.Fatalf("merge: %v %+v", err, rep)
	}
	rows, err := grid.ReadResults(merged)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(comparable(rows), comparable(whole)) {
		t.Errorf("merged shards differ from the whole run:\n%v\n%v", comparable(rows), comparable(whole))
	}
}
