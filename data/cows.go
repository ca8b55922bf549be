package data

import (
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// Paper settings and README facts for the TU Darmstadt cows
// (notebooks/TARGETS.md §1).
const (
	CowsDir         = "tud_cows"
	CowsImages      = 111 // README: 111 images, masks and annotations
	CowsSegments    = 500 // ~500 superpixels
	CowsCompactness = 20  // m
	CowsSigma       = 2.0 // Gaussian pre-smoothing, px
)

// BuildCows builds the TU Darmstadt cows problem (notebooks/TARGETS.md §1):
// each 8-bit RGB image of tud_cows/images with its mask in tud_cows/masks
// (foreground where Y > 0), ~500 SLIC superpixels in CIELAB with m = 20 and
// σ = 2 px, the 125-bin RGB histogram (5 bins per channel) as unary and
// |φ_k − φ_l| as pairwise feature. The folder must hold the README's 111
// image/mask pairs; every image must be RGB and the same size as its mask.
// Options reduce the build (first k images, downscale) for the quick
// profile; the set's Description then says so.
func BuildCows(opt ImageSetOptions) (*SegmentedSet, error) {
	return BuildPreset(CowsPreset(), opt)
}

// CowsPreset is the TU Darmstadt cows as a pipeline preset (BuildCows).
func CowsPreset() Preset {
	return Preset{
		Name: CowsDir, Title: "TU Darmstadt cows",
		ImageDir: "images", MaskDir: "masks", Exts: []string{".png"},
		Count: CowsImages,
		Pipeline: Pipeline{
			Recipe:   Recipe{Name: RecipeRGBHist},
			SLIC:     slic.Options{Segments: CowsSegments, Compactness: CowsCompactness, Sigma: CowsSigma},
			Masks:    MaskFormat{Threshold: float64(imageio.ThresholdNonZero)},
			Channels: 3,
		},
		MaskText:       "Y > 0",
		DescriptorText: "125-bin RGB histogram (5 bins per channel)",
	}
}
