package data

import (
	"os"
	"testing"
)

// TestMitoFullOracle builds a whole EM volume (minutes, GBs; opt in with
// PSUB_BENCH_FULL=1) into the default cache and logs the oracle beside the
// paper's (notebooks/TARGETS.md §4: Oracle VOC 90.05%).
func TestMitoFullOracle(t *testing.T) {
	if os.Getenv("PSUB_BENCH_FULL") != "1" {
		t.Skip("set PSUB_BENCH_FULL=1 to build a whole EM volume")
	}
	needDataSet(t, MitoDir)
	for _, vol := range []string{"training", "testing"} {
		set, err := BuildMito(MitoOptions{Volume: vol, Cache: DefaultSegmentCache()})
		if err != nil {
			t.Fatal(err)
		}
		s := set.Items[0]
		rc, _ := s.RegionScore(s.Instance.Labels)
		t.Logf("%s: %d supervoxels, %d edges; oracle voxel accuracy %.4f, class-averaged %.4f, IoU %v, VOC %.4f (paper: VOC 90.05%%); region accuracy %.4f",
			vol, s.Instance.Nodes(), len(s.Instance.Edges), s.Oracle.Accuracy(), s.Oracle.ClassAveraged(), s.Oracle.IoU(), s.Oracle.VOC(), rc.Accuracy())
	}
}
