package slic

import (
	"errors"
	"testing"

	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/psub/imageio"
)

// TestSegmentChecksBudget: SLIC's working set (WorkBytesPerVoxel, several
// times the decoded image) is checked against the memory budget before it
// is allocated, so an image that decodes within the budget cannot make
// SLIC run out of memory.
func TestSegmentChecksBudget(t *testing.T) {
	v := imageio.NewVolume(200, 100, 1, 3)
	for i := range v.Pix {
		v.Pix[i] = float32(i % 251)
	}
	need := int64(200*100) * WorkBytesPerVoxel(3)
	t.Setenv(membudget.Env, "100KiB") // the volume (240 KB) is held already; SLIC needs 720 KB
	_, _, err := Segment(v, Options{Segments: 10})
	var ex *membudget.ExceededError
	if !errors.As(err, &ex) || ex.Need != need {
		t.Fatalf("err = %v, want the budget refusing %d bytes", err, need)
	}
	t.Setenv(membudget.Env, "1MiB")
	if _, n, err := Segment(v, Options{Segments: 10}); err != nil || n == 0 {
		t.Fatalf("within the budget: %d segments, %v", n, err)
	}
}
