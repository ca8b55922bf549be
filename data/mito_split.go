package data

import (
	"fmt"
	"strings"
)

// MitoHalves splits a crop (the zero value: the whole volume) into its two
// halves along x, the paper's split of the training volume for choosing C
// (notebooks/TARGETS.md §4). For the whole volume they are MitoHalf(0) and
// MitoHalf(1). An odd width gives the extra column to the second half.
func MitoHalves(b MitoBox) ([2]MitoBox, error) {
	r, err := b.resolve()
	if err != nil {
		return [2]MitoBox{}, err
	}
	if r.Width < 2 {
		return [2]MitoBox{}, fmt.Errorf("crop %+v: width %d cannot be halved", b, r.Width)
	}
	if b.full() {
		return [2]MitoBox{MitoHalf(0), MitoHalf(1)}, nil
	}
	h0, h1 := r, r
	h0.Width = r.Width / 2
	h1.X, h1.Width = r.X+h0.Width, r.Width-h0.Width
	return [2]MitoBox{h0, h1}, nil
}

// BuildMitoSplit builds the data of the paper's mitochondria protocol
// (notebooks/TARGETS.md §4) for a crop (opt.Crop; zero: the whole volumes):
// three items, the two x-halves of the training crop (MitoHalves) and the
// same crop of the testing volume, and one fold {Train: [0 1], Test: [2]}.
// The mito protocol (notebooks/protocol) then chooses C by training on one half
// and validating on the other, and trains the final model on both halves; the only departure from one training instance is that no edge joins
// supervoxels across the cut at the middle of x. opt.Volume must be "" (both
// volumes are built); opt.Segments, when set, is the count for the whole crop
// and is halved for each half. KeepImage applies to the test item only (for
// figures). Progress counts the three builds.
func BuildMitoSplit(opt MitoOptions) (*SegmentedSet, []Fold, error) {
	if opt.Volume != "" {
		return nil, nil, fmt.Errorf("%s: split: Volume %q given; the split builds both volumes", MitoDir, opt.Volume)
	}
	halves, err := MitoHalves(opt.Crop)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", MitoDir, err)
	}
	var items []*SegmentedImage
	var descs []string
	reduced := false
	for i, part := range []struct {
		volume string
		crop   MitoBox
		keep   bool
		div    int
	}{{"training", halves[0], false, 2}, {"training", halves[1], false, 2}, {"testing", opt.Crop, opt.KeepImage, 1}} {
		o := opt
		o.Volume, o.Crop, o.KeepImage, o.Segments = part.volume, part.crop, part.keep, opt.Segments/part.div
		if opt.Segments > 0 {
			o.Segments = max(1, o.Segments)
		}
		o.Progress = nil
		set, err := BuildMito(o)
		if err != nil {
			return nil, nil, err
		}
		items = append(items, set.Items...)
		descs = append(descs, set.Description)
		reduced = reduced || set.Reduced
		if opt.Progress != nil {
			opt.Progress(i+1, 3)
		}
	}
	desc := "train on the two x-halves of the training volume (C chosen on one half trained with the other), test on the testing volume. " +
		strings.Join(descs, " | ")
	return &SegmentedSet{Name: MitoDir, Description: desc, Reduced: reduced, Items: items},
		[]Fold{{Train: []int{0, 1}, Test: []int{2}}}, nil
}
