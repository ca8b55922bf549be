package data

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// README: 328 grey JPEG pairs; mask background values in 0–45 and horse
// values in 211–255 with nothing between, so the threshold 128 is safe; the
// horse covers 25.2% of the image on average (5.2%–43.1%).
func TestHorsesMaskThreshold(t *testing.T) {
	dir := needDataSet(t, HorsesDir)
	images, masks, err := ImageMaskPairs(filepath.Join(dir, "gray"), filepath.Join(dir, "figure_ground"), ".jpg")
	if err != nil {
		t.Fatal(err)
	}
	if len(images) != HorsesImages {
		t.Fatalf("%d pairs, README says %d", len(images), HorsesImages)
	}
	step := 1
	if testing.Short() {
		step = 8 // every 8th pair: the gap check still runs on 41 masks
	}
	var sum, lo, hi float64 = 0, 1, 0
	count := 0
	for i := 0; i < len(masks); i += step {
		img, err := imageio.ReadImage(images[i])
		if err != nil {
			t.Fatal(err)
		}
		raw, err := imageio.ReadImage(masks[i])
		if err != nil {
			t.Fatal(err)
		}
		if img.Channels != 1 || raw.Channels != 1 || img.Width != raw.Width || img.Height != raw.Height {
			t.Fatalf("%s / %s: not a grey pair of one size", images[i], masks[i])
		}
		fg := 0
		for _, v := range raw.Pix {
			if v > 45 && v < 211 {
				t.Fatalf("%s: mask value %v between the README's background (≤45) and horse (≥211) ranges", masks[i], v)
			}
			if v >= imageio.ThresholdHalf {
				fg++
			}
		}
		f := float64(fg) / float64(len(raw.Pix))
		sum, lo, hi, count = sum+f, min(lo, f), max(hi, f), count+1
	}
	mean := sum / float64(count)
	t.Logf("horse %.2f%% of pixels on average (%.1f%%–%.1f%%) over %d masks", 100*mean, 100*lo, 100*hi, count)
	if !testing.Short() && (math.Abs(mean-0.252) > 0.0006 || math.Abs(lo-0.052) > 0.0006 || math.Abs(hi-0.431) > 0.0006) {
		t.Errorf("README: horse 25.2%% (5.2%%–43.1%%)")
	}
	if testing.Short() && math.Abs(mean-0.252) > 0.03 {
		t.Errorf("horse fraction %.3f on a sample, README 25.2%%", mean)
	}
}

func TestHorsesBuild(t *testing.T) {
	needDataSet(t, HorsesDir)
	set, err := BuildHorses(ImageSetOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range set.Items {
		n := s.Instance.Nodes()
		t.Logf("%s: %d superpixels, oracle VOC %.3f", s.Instance.Name, n, s.Oracle.VOC())
		if n < 480 || n > 720 {
			t.Errorf("%s: %d superpixels, expected about %d", s.Instance.Name, n, HorsesSegments)
		}
		checkSegmented(t, s, 74)
	}
}
