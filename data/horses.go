package data

import (
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// Settings for the Weizmann horses, the stand-in for the paper's UCSB
// retina experiment (notebooks/TARGETS.md §2; data README, weizmann_horse).
const (
	HorsesDir      = "weizmann_horse"
	HorsesImages   = 328 // README: 328 grey images and 328 masks
	HorsesSegments = 600 // the paper's ~600 superpixels for the retina
	// The paper gives no compactness or smoothing for the retina set; we
	// take the cows' m = 20 and σ = 2 px.
	HorsesCompactness = 20
	HorsesSigma       = 2.0
)

// BuildHorses builds the Weizmann horse problem, our substitute for the UCSB
// retina set, with the retina's descriptor (notebooks/TARGETS.md §2): each
// 8-bit grey JPEG of weizmann_horse/gray with its JPEG mask in
// weizmann_horse/figure_ground (horse where Y ≥ 128, as the README
// prescribes), ~600 SLIC superpixels, unary = 10-bin intensity histogram +
// 8×8 GLCM (74 values), pairwise |φ_k − φ_l|. The paper does not give m and σ
// for the retina set: we use the cows' m = 20 and σ = 2 px. The folder must
// hold the README's 328 pairs; every image must be grey and the same size as
// its mask.
func BuildHorses(opt ImageSetOptions) (*SegmentedSet, error) {
	return BuildPreset(HorsesPreset(), opt)
}

// HorsesPreset is the Weizmann horses as a pipeline preset (BuildHorses).
func HorsesPreset() Preset {
	return Preset{
		Name: HorsesDir, Title: "Weizmann horses",
		ImageDir: "gray", MaskDir: "figure_ground", Exts: []string{".jpg"},
		Count: HorsesImages,
		Pipeline: Pipeline{
			Recipe:   Recipe{Name: RecipeHistGLCM, MaxValue: 255},
			SLIC:     slic.Options{Segments: HorsesSegments, Compactness: HorsesCompactness, Sigma: HorsesSigma},
			Masks:    MaskFormat{Threshold: float64(imageio.ThresholdHalf)},
			Channels: 1,
		},
		MaskText:       "Y ≥ 128",
		DescriptorText: "10-bin intensity histogram + 8×8 GLCM (74 values)",
		Note:           "SUBSTITUTE for the paper's UCSB retina set (which the paper calls public, but which could not be obtained here); m and σ are our choice (the paper gives none for the retina)",
	}
}
