package data

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// ImageSetOptions controls the build of a 2-D data set (BuildCows,
// BuildHorses). The zero value builds every image with the paper's settings,
// without a cache.
type ImageSetOptions struct {
	// Path is the data folder holding the data set's sub-folder; "" searches
	// $PSUB_DATA and ../shared/data (see Locator).
	Path string
	// Limit builds only the first Limit images in name order; 0 means all.
	Limit int
	// Sample > 0 builds a seeded random draw of Sample images (kept in name
	// order) instead; it cannot be combined with Limit. A sample is not
	// marked reduced: it is how a smaller protocol (the retina substitute's
	// 50 images) is drawn without the bias of name order.
	Sample     int
	SampleSeed uint64
	// Downscale shrinks every image and mask by this integer factor (f×f
	// block mean; mask blocks foreground when at least half is); 0 or 1
	// means full resolution. Segments and Sigma shrink with it (Segments by
	// f², Sigma by f) unless set explicitly, so superpixels cover the same
	// part of the scene.
	Downscale int
	// Segments, Compactness and Sigma override the paper's SLIC settings
	// when non-zero.
	Segments    int
	Compactness float64
	Sigma       float64
	// KeepImages keeps each (downscaled) image in SegmentedImage.Image.
	KeepImages bool
	// Cache, Workers and Progress are passed to BuildSegmented.
	Cache    *SegmentCache
	Workers  int
	Progress func(done, total int)
}

// imageSet describes one 2-D data set: where its files are, how many there
// must be, how to read them, and the paper's settings.
type imageSet struct {
	name, title        string // data set folder and human name
	imageDir, maskDir  string // inside the data set folder
	exts               []string
	count              int // files expected (README)
	channels           int // image channels expected
	threshold          float32
	thresholdText      string // e.g. "Y > 0"
	segments           int
	compactness, sigma float64
	descriptor         Descriptor
	descriptorText     string
	note               string // appended to Description (e.g. substitute)
}

func buildImageSet(set imageSet, opt ImageSetOptions) (*SegmentedSet, error) {
	dir, err := Locator{Path: opt.Path}.Find(set.name)
	if err != nil {
		return nil, err
	}
	images, masks, err := ImageMaskPairs(filepath.Join(dir, set.imageDir), filepath.Join(dir, set.maskDir), set.exts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", set.name, err)
	}
	if len(images) != set.count {
		return nil, fmt.Errorf("%s: %d image/mask pairs in %s, expected %d (see the data README)", set.name, len(images), dir, set.count)
	}
	idx, err := selectImages(len(images), opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", set.name, err)
	}
	if err := verifySelected(dir, set.name, images, masks, idx); err != nil {
		return nil, err
	}
	n := len(idx)
	f := max(opt.Downscale, 1)
	b := SegmentBuilder{
		SLIC: slic.Options{
			Segments:    set.segments,
			Compactness: set.compactness,
			Sigma:       set.sigma,
			Lab:         set.channels == 3,
		},
		Descriptor: set.descriptor,
		KeepImage:  opt.KeepImages,
	}
	if f > 1 {
		b.SLIC.Segments = max(1, int(math.Round(float64(set.segments)/float64(f*f))))
		b.SLIC.Sigma = set.sigma / float64(f)
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
	transform := fmt.Sprintf("threshold %g; downscale %d", set.threshold, f)
	sources := make([]SegmentSource, n)
	for i, j := range idx {
		img, mask := images[j], masks[j]
		sources[i] = SegmentSource{
			Name:      strings.TrimSuffix(filepath.Base(img), filepath.Ext(img)),
			Files:     []string{img, mask},
			Transform: transform,
			Load: func() (*imageio.Volume, *imageio.LabelMap, error) {
				v, m, err := imageio.ReadImageMask(img, mask, set.threshold)
				if err != nil {
					return nil, nil, err
				}
				if v.Channels != set.channels || v.Depth != 1 {
					return nil, nil, fmt.Errorf("%s: %d channel(s), depth %d; expected a 2-D image with %d channel(s)", img, v.Channels, v.Depth, set.channels)
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
	reduced := (n < set.count && opt.Sample == 0) || f > 1 || opt.Segments > 0 || opt.Compactness > 0 || opt.Sigma > 0
	if reduced {
		desc.WriteString("REDUCED (not the paper's setting): ")
	}
	fmt.Fprintf(&desc, "%s (%s): %d of %d images", set.title, dir, n, set.count)
	switch {
	case opt.Sample > 0 && n < set.count:
		fmt.Fprintf(&desc, " (drawn with seed %d)", opt.SampleSeed)
	case n < set.count:
		fmt.Fprintf(&desc, " (the first %d in name order)", n)
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
	if b.SLIC.Lab {
		desc.WriteString(" (CIELAB)")
	}
	fmt.Fprintf(&desc, "; unary %s; pairwise |φ_k − φ_l|; labels: mask %s, majority per superpixel", set.descriptorText, set.thresholdText)
	if set.note != "" {
		desc.WriteString("; " + set.note)
	}
	return &SegmentedSet{Name: set.name, Description: desc.String(), Reduced: reduced, Items: items}, nil
}

// selectImages lists the images of a set of n to build: all, the first
// opt.Limit, or a seeded sample of opt.Sample.
func selectImages(n int, opt ImageSetOptions) ([]int, error) {
	if opt.Sample > 0 {
		if opt.Limit != 0 {
			return nil, fmt.Errorf("sample of %d with Limit %d: set one or the other", opt.Sample, opt.Limit)
		}
		return SampleIndices(n, opt.Sample, opt.SampleSeed)
	}
	if opt.Limit > 0 && opt.Limit < n {
		n = opt.Limit
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx, nil
}
