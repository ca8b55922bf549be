package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// RetinaImages is the size of the paper's UCSB retina set (TARGETS.md §2):
// 50 images, 40 random folds of 40 train / 10 test.
const (
	RetinaImages = 50
	RetinaFolds  = 40
	RetinaTest   = 10
	RetinaTol    = 1e-4
)

// SampleIndices draws k distinct indices of 0..n−1 with a seeded shuffle and
// returns them sorted. k ≥ n returns every index.
func SampleIndices(n, k int, seed uint64) ([]int, error) {
	if n < 1 || k < 1 {
		return nil, fmt.Errorf("sample: %d of %d examples (need n ≥ 1, k ≥ 1)", k, n)
	}
	perm := rand.New(rand.NewPCG(seed, 0x73616d706c65)).Perm(n)
	return sortedCopy(perm[:min(k, n)]), nil
}

// BuildHorsesSample builds k of the 328 Weizmann horses drawn with seed (k
// ≤ 0 or ≥ 328: all of them), with BuildHorses' settings: the substitute for
// the paper's 50-image retina set (TARGETS.md §2), where a seeded draw rather
// than the first k in name order keeps the sample unbiased. opt.Limit must
// be 0 (the sample replaces it); Downscale, Segments, Compactness, Sigma,
// KeepImages, Cache, Workers and Progress act as in BuildHorses. Items keep
// name order.
func BuildHorsesSample(opt ImageSetOptions, k int, seed uint64) (*SegmentedSet, error) {
	if opt.Limit != 0 {
		return nil, fmt.Errorf("%s: sample of %d with Limit %d: set one or the other", HorsesDir, k, opt.Limit)
	}
	dir, err := Locator{Path: opt.Path}.Find(HorsesDir)
	if err != nil {
		return nil, err
	}
	images, masks, err := ImageMaskPairs(filepath.Join(dir, "gray"), filepath.Join(dir, "figure_ground"), ".jpg")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", HorsesDir, err)
	}
	if len(images) != HorsesImages {
		return nil, fmt.Errorf("%s: %d image/mask pairs in %s, expected %d (see the data README)", HorsesDir, len(images), dir, HorsesImages)
	}
	if k <= 0 {
		k = HorsesImages
	}
	idx, err := SampleIndices(len(images), k, seed)
	if err != nil {
		return nil, err
	}
	f := max(opt.Downscale, 1)
	b := SegmentBuilder{
		SLIC:       slic.Options{Segments: HorsesSegments, Compactness: HorsesCompactness, Sigma: HorsesSigma},
		Descriptor: RetinaDescriptor(255),
		KeepImage:  opt.KeepImages,
	}
	if f > 1 {
		b.SLIC.Segments = max(1, int(math.Round(float64(HorsesSegments)/float64(f*f))))
		b.SLIC.Sigma = HorsesSigma / float64(f)
	}
	if opt.Segments > 0 {
		b.SLIC.Segments = opt.Segments
	}
	if opt.Compactness > 0 {
		b.SLIC.Compactness = opt.Compactness
	}
	if opt.Sigma > 0 {
		b.SLIC.Sigma = opt.Sigma
	}
	// The same transform text as BuildHorses, so both share cached builds.
	transform := fmt.Sprintf("threshold %g; downscale %d", imageio.ThresholdHalf, f)
	sources := make([]SegmentSource, len(idx))
	for i, j := range idx {
		img, mask := images[j], masks[j]
		sources[i] = SegmentSource{
			Name:      strings.TrimSuffix(filepath.Base(img), filepath.Ext(img)),
			Files:     []string{img, mask},
			Transform: transform,
			Load: func() (*imageio.Volume, *imageio.LabelMap, error) {
				v, m, err := imageio.ReadImageMask(img, mask, imageio.ThresholdHalf)
				if err != nil {
					return nil, nil, err
				}
				if v.Channels != 1 || v.Depth != 1 {
					return nil, nil, fmt.Errorf("%s: %d channel(s), depth %d; expected a 2-D grey image", img, v.Channels, v.Depth)
				}
				return Downscale(v, f), DownscaleMask(m, f), nil
			},
		}
	}
	items, err := BuildSegmented(sources, b, BuildOptions{Workers: opt.Workers, Cache: opt.Cache, Progress: opt.Progress})
	if err != nil {
		return nil, err
	}
	var desc strings.Builder
	reduced := f > 1 || opt.Segments > 0 || opt.Compactness > 0 || opt.Sigma > 0
	if reduced {
		desc.WriteString("REDUCED (not the full setting): ")
	}
	fmt.Fprintf(&desc, "Weizmann horses (%s): %d of %d images", dir, len(items), HorsesImages)
	if len(items) < HorsesImages {
		fmt.Fprintf(&desc, " (drawn with seed %d)", seed)
	}
	if f > 1 {
		fmt.Fprintf(&desc, ", downscaled 1/%d", f)
	} else {
		desc.WriteString(", full resolution")
	}
	total, lo, hi := 0, math.MaxInt, 0
	for _, it := range items {
		n := it.Instance.Nodes()
		total, lo, hi = total+n, min(lo, n), max(hi, n)
	}
	fmt.Fprintf(&desc, "; SLIC ~%d superpixels (got %.0f per image, %d–%d), m = %g, σ = %g px",
		b.SLIC.Segments, float64(total)/float64(len(items)), lo, hi, b.SLIC.Compactness, b.SLIC.Sigma)
	desc.WriteString("; unary 10-bin intensity histogram + 8×8 GLCM (74 values); pairwise |φ_k − φ_l|; labels: mask Y ≥ 128, majority per superpixel")
	desc.WriteString("; SUBSTITUTE for the paper's UCSB retina set (not public); m and σ are our choice (the paper gives none for the retina)")
	return &SegmentedSet{Name: HorsesDir, Description: desc.String(), Reduced: reduced, Items: items}, nil
}
