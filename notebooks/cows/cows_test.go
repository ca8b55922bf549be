package cows

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/internal/datadir"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/protocol/protocoltest"
)

func TestCowsJobs(t *testing.T) {
	c := Experiment{}
	for _, tc := range []struct {
		p       protocol.Profile
		listed  int // before any row: the selection fits, or the finals with one C
		stageOf string
	}{{protocol.Full, 7 * 2 * 5 * 10, "select"}, {protocol.Quick, 7 * 2 * 2, "final"}, {protocol.Tiny, 2 * 2 * 2, "select"}} {
		jobs, err := c.Jobs(tc.p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != tc.listed {
			t.Errorf("%s: %d jobs listed, want %d", tc.p, len(jobs), tc.listed)
		}
		for _, j := range jobs {
			if j.Tag != tc.stageOf || j.Dataset != "cows" {
				t.Fatalf("%s: job %s, want dataset cows, stage %s", tc.p, j.Key(), tc.stageOf)
			}
		}
	}
}

// TestCowsTinyShardsMergeToWholeRun runs the tiny profile on the real cows
// (8 images at half resolution) whole and in two shards, and checks that
// the merged shards hold the whole run's fits, metric for metric.
func TestCowsTinyShardsMergeToWholeRun(t *testing.T) {
	datadir.Need(t, "tud_cows")
	dir := t.TempDir()
	c := Experiment{}
	run := func(name string, s protocol.Shard) []grid.Result {
		rows, err := c.Run(context.Background(), protocol.Options{Profile: protocol.Tiny, Shard: s, Results: filepath.Join(dir, name+".jsonl"),
			Models: filepath.Join(dir, "models-"+name), Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	whole := run("whole", protocol.Shard{})
	if len(whole) != 8+4 {
		t.Fatalf("whole run: %d rows, want 8 selection and 4 final fits", len(whole))
	}
	for _, r := range protocol.Tagged(whole, "final") {
		if !r.Metrics.Converged || r.Error != "" {
			t.Errorf("final fit %s did not converge: %+v, %s", r.Job.Key(), r.Metrics.Fit, r.Error)
		}
		if _, err := protocol.FinalModel(c, protocol.Options{Profile: protocol.Tiny, Models: filepath.Join(dir, "models-whole")}, r.Job.Set, r.Job.Loss, r.Job.Fold); err != nil {
			t.Errorf("final model of %s: %v", r.Job.Key(), err)
		}
	}
	protocoltest.ShardsMergeToWhole(t, c, protocol.Tiny, dir, func(name string, s protocol.Shard) protocol.Options {
		return protocol.Options{Profile: protocol.Tiny, Shard: s, Results: filepath.Join(dir, name+".jsonl"), Models: filepath.Join(dir, "models-"+name)}
	}, whole)
}
