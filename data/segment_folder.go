package data

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

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

// BuildPreset builds a 2-D preset (CowsPreset, HorsesPreset) from its
// folder: the README's count of image/mask pairs, paired by stem, built with
// the preset's pipeline; opt reduces the build (first k images, a seeded
// sample, a downscale, other SLIC settings) and the set's Description says
// so.
func BuildPreset(set Preset, opt ImageSetOptions) (*SegmentedSet, error) {
	dir, err := Locator{Path: opt.Path}.Find(set.Name)
	if err != nil {
		return nil, err
	}
	images, masks, _, err := Pair(filepath.Join(dir, set.ImageDir), filepath.Join(dir, set.MaskDir), PairOptions{ImageExts: set.Exts, MaskExts: set.Exts})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", set.Name, err)
	}
	if len(images) != set.Count {
		return nil, fmt.Errorf("%s: %d image/mask pairs in %s, expected %d (see the data README)", set.Name, len(images), dir, set.Count)
	}
	idx, err := selectImages(len(images), opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", set.Name, err)
	}
	if err := verifySelected(dir, set.Name, images, masks, idx); err != nil {
		return nil, err
	}
	n := len(idx)
	f := max(opt.Downscale, 1)
	p := set.Pipeline
	p.Downscale = f
	segments, sigma := p.SLIC.Segments, p.SLIC.Sigma
	if f > 1 {
		p.SLIC.Segments = max(1, int(math.Round(float64(segments)/float64(f*f))))
		p.SLIC.Sigma = sigma / float64(f)
	}
	overrideSLIC(&p.SLIC, opt.Segments, opt.Compactness, opt.Sigma)
	sel, selMasks := make([]string, n), make([]string, n)
	for i, j := range idx {
		sel[i], selMasks[i] = images[j], masks[j]
	}
	items, err := p.Build(sel, selMasks, opt.KeepImages, BuildOptions{Workers: opt.Workers, Cache: opt.Cache, Progress: opt.Progress})
	if err != nil {
		return nil, err
	}
	b, err := p.Builder(0)
	if err != nil {
		return nil, err
	}
	var desc strings.Builder
	reduced := (n < set.Count && opt.Sample == 0) || f > 1 || opt.Segments > 0 || opt.Compactness > 0 || opt.Sigma > 0
	if reduced {
		desc.WriteString("REDUCED (not the paper's setting): ")
	}
	fmt.Fprintf(&desc, "%s (%s): %d of %d images", set.Title, dir, n, set.Count)
	switch {
	case opt.Sample > 0 && n < set.Count:
		fmt.Fprintf(&desc, " (drawn with seed %d)", opt.SampleSeed)
	case n < set.Count:
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
	fmt.Fprintf(&desc, "; unary %s; pairwise |φ_k − φ_l|; labels: mask %s, majority per superpixel", set.DescriptorText, set.MaskText)
	if set.Note != "" {
		desc.WriteString("; " + set.Note)
	}
	return &SegmentedSet{Name: set.Name, Description: desc.String(), Reduced: reduced, Items: items}, nil
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

// overrideSLIC sets the SLIC settings that an option gives (non-zero).
func overrideSLIC(o *slic.Options, segments int, compactness, sigma float64) {
	if segments > 0 {
		o.Segments = segments
	}
	if compactness > 0 {
		o.Compactness = compactness
	}
	if sigma > 0 {
		o.Sigma = sigma
	}
}
