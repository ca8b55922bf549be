package data

import "github.com/probably-submodular/crf/psub/imageio"

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
	return buildImageSet(imageSet{
		name: CowsDir, title: "TU Darmstadt cows",
		imageDir: "images", maskDir: "masks", exts: []string{".png"},
		count: CowsImages, channels: 3,
		threshold: imageio.ThresholdNonZero, thresholdText: "Y > 0",
		segments: CowsSegments, compactness: CowsCompactness, sigma: CowsSigma,
		descriptor:     CowDescriptor(),
		descriptorText: "125-bin RGB histogram (5 bins per channel)",
	}, opt)
}
