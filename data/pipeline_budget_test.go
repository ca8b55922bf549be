package data

import (
	"errors"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/psub/imageio"
)

// TestPrepareChecksBudget: the segment pipeline's working set
// (PipelineBytesPerVoxel) is checked before an image is prepared.
func TestPrepareChecksBudget(t *testing.T) {
	v := imageio.NewVolume(300, 200, 1, 3)
	p := Pipeline{Recipe: Recipe{Name: "rgb-hist", MaxValue: 255}}
	t.Setenv(membudget.Env, "1MiB") // the pipeline needs 300·200·72 = 4.3 MB
	_, err := p.Prepare("big.png", v)
	var ex *membudget.ExceededError
	if !errors.As(err, &ex) || ex.Need != 300*200*PipelineBytesPerVoxel(3) {
		t.Fatalf("err = %v, want the budget's refusal", err)
	}
	t.Setenv(membudget.Env, "64MiB")
	if _, err := p.Prepare("big.png", v); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
}

// TestPrepareMaxValueHint: the hint of a sample above the recipe's maximum
// fits the sample (before: an 8-bit sample over -max-value 1 was told
// "a 16-bit image needs max value 65535").
func TestPrepareMaxValueHint(t *testing.T) {
	v := imageio.NewVolume(4, 4, 1, 3)
	v.Pix[0] = 230
	p := Pipeline{Recipe: Recipe{Name: "rgb-hist", MaxValue: 1}}
	if _, err := p.Prepare("a.png", v); err == nil || !strings.Contains(err.Error(), "8-bit images need max value 255") {
		t.Fatalf("err = %v", err)
	}
	v.Pix[0] = 4000
	p.Recipe.MaxValue = 255
	if _, err := p.Prepare("a.png", v); err == nil || !strings.Contains(err.Error(), "16-bit image needs max value 65535") {
		t.Fatalf("err = %v", err)
	}
}
