package data

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// needDataSet returns the folder of a real data set, or skips the test.
func needDataSet(t *testing.T, sub string) string {
	t.Helper()
	dir, err := Find("", sub)
	if errors.Is(err, ErrNotFound) {
		t.Skipf("real data set %s not available (%v); set %s or put it in %s", sub, err, EnvVar, DefaultRelDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// README: 111 RGB images (221×154 to 368×272, 31 of them 368×272), each
// with a mask of the same size; foreground 14.0% of the pixels (8.7%–29.3%
// per image).
func TestCowsFilesAsDocumented(t *testing.T) {
	dir := needDataSet(t, CowsDir)
	images, masks, err := ImageMaskPairs(filepath.Join(dir, "images"), filepath.Join(dir, "masks"), ".png")
	if err != nil {
		t.Fatal(err)
	}
	if len(images) != CowsImages {
		t.Fatalf("%d image/mask pairs, README says %d", len(images), CowsImages)
	}
	var sum, lo, hi float64 = 0, 1, 0
	big, pooledFG, pooled := 0, 0, 0
	for i := range images {
		img, mask, err := imageio.ReadImageMask(images[i], masks[i], imageio.ThresholdNonZero)
		if err != nil {
			t.Fatal(err)
		}
		if img.Channels != 3 || img.Depth != 1 || img.Width < 221 || img.Width > 368 || img.Height < 154 || img.Height > 272 {
			t.Fatalf("%s: %d×%d×%d, %d channels; README: RGB, 221×154 to 368×272", images[i], img.Width, img.Height, img.Depth, img.Channels)
		}
		if img.Width == 368 && img.Height == 272 {
			big++
		}
		fg := 0
		for _, l := range mask.Labels {
			fg += int(l)
		}
		f := float64(fg) / float64(len(mask.Labels))
		sum, lo, hi = sum+f, min(lo, f), max(hi, f)
		pooledFG, pooled = pooledFG+fg, pooled+len(mask.Labels)
	}
	mean := sum / float64(len(images))
	t.Logf("foreground %.2f%% on average (%.1f%%–%.1f%%), %.2f%% of all pixels; %d images 368×272", 100*mean, 100*lo, 100*hi, 100*float64(pooledFG)/float64(pooled), big)
	// The README's "14.0% on average" is the pooled fraction (foreground
	// pixels over all pixels); the mean of the per-image fractions is 15.8%.
	if pooledFrac := float64(pooledFG) / float64(pooled); math.Abs(pooledFrac-0.140) > 0.0006 || math.Abs(lo-0.087) > 0.0006 || math.Abs(hi-0.293) > 0.0006 || big != 31 {
		t.Errorf("README: foreground 14.0%% of all pixels (8.7%%–29.3%% per image), 31 images 368×272")
	}
}

// One cow image with the paper's settings: ~500 connected superpixels and
// every invariant of the instance.
func TestCowsBuildOneImage(t *testing.T) {
	needDataSet(t, CowsDir)
	set, err := BuildCows(ImageSetOptions{Limit: 1, KeepImages: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Items) != 1 || !set.Reduced {
		t.Fatalf("%d items, reduced %v; expected 1 reduced item", len(set.Items), set.Reduced)
	}
	s := set.Items[0]
	n := s.Instance.Nodes()
	t.Logf("%s: %d superpixels, %d edges, oracle pixel accuracy %.4f", s.Instance.Name, n, len(s.Instance.Edges), s.Oracle.Accuracy())
	if n < 400 || n > 600 {
		t.Errorf("%d superpixels, expected about %d", n, CowsSegments)
	}
	if s.Image == nil || s.Image.Channels != 3 {
		t.Error("KeepImages did not keep the RGB image")
	}
	checkSegmented(t, s, 125)
	if s.Oracle.Accuracy() < 0.95 {
		t.Errorf("oracle pixel accuracy %.3f: superpixels do not follow the cow", s.Oracle.Accuracy())
	}
}

func TestCowsDownscaled(t *testing.T) {
	needDataSet(t, CowsDir)
	set, err := BuildCows(ImageSetOptions{Limit: 2, Downscale: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range set.Items {
		if n := s.Instance.Nodes(); n < 90 || n > 160 {
			t.Errorf("%s: %d superpixels at 1/2 scale, expected about %d", s.Instance.Name, n, CowsSegments/4)
		}
		checkSegmented(t, s, 125)
	}
	if !set.Reduced {
		t.Error("a downscaled build must be marked reduced")
	}
	t.Log(set.Description)
}
