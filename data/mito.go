package data

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// Paper settings and README facts for the EPFL mitochondria volumes
// (notebooks/TARGETS.md §4).
const (
	MitoDir         = "epfl_mito"
	MitoWidth       = 1024
	MitoHeight      = 768
	MitoSlices      = 165
	MitoSegments    = 130000 // ~130K supervoxels for a whole volume
	MitoCompactness = 20     // m
	MitoSigma       = 5.0    // Gaussian smoothing, voxels
)

// MitoBox is a crop of an EM volume: voxels [X, X+Width) × [Y, Y+Height) ×
// [Z, Z+Depth), z being the slice index (train_001 is z = 0). The zero
// value is the whole volume.
type MitoBox struct {
	X, Y, Z              int
	Width, Height, Depth int
}

func (b MitoBox) full() bool { return b == MitoBox{} }

func (b MitoBox) resolve() (MitoBox, error) {
	if b.full() {
		return MitoBox{Width: MitoWidth, Height: MitoHeight, Depth: MitoSlices}, nil
	}
	if b.X < 0 || b.Y < 0 || b.Z < 0 || b.Width <= 0 || b.Height <= 0 || b.Depth <= 0 ||
		b.X+b.Width > MitoWidth || b.Y+b.Height > MitoHeight || b.Z+b.Depth > MitoSlices {
		return b, fmt.Errorf("crop %+v does not fit in the %d×%d×%d volume", b, MitoWidth, MitoHeight, MitoSlices)
	}
	return b, nil
}

// MitoHalf is half i (0 or 1) of a volume along x, 512×768×165: the paper
// selects C on the training volume split into these two halves. A build of a
// half is not marked reduced.
func MitoHalf(i int) MitoBox {
	return MitoBox{X: i * MitoWidth / 2, Width: MitoWidth / 2, Height: MitoHeight, Depth: MitoSlices}
}

func (b MitoBox) isHalf() bool { return b == MitoHalf(0) || b == MitoHalf(1) }

// MitoQuickCrop is the quick profile's crop: 256×192×40 voxels from the
// middle of the volume (about 1/66 of it, so ~1,970 supervoxels).
func MitoQuickCrop() MitoBox {
	return MitoBox{X: 384, Y: 288, Z: 62, Width: 256, Height: 192, Depth: 40}
}

// MitoPreset is the EPFL mitochondria as a pipeline preset: the slices of
// <volume>/images and masks_derived stacked into one volume (BuildMito).
func MitoPreset() Preset {
	return Preset{
		Name: MitoDir, Title: "EPFL mitochondria",
		ImageDir: "images", MaskDir: "masks_derived", Exts: []string{".png"},
		Count: MitoSlices,
		Pipeline: Pipeline{
			Recipe: Recipe{Name: RecipeHistGLCMBias, MaxValue: 255},
			SLIC:   slic.Options{Segments: MitoSegments, Compactness: MitoCompactness, Sigma: MitoSigma},
			Masks:  MaskFormat{Threshold: float64(imageio.ThresholdNonZero)},
		},
		MaskText:       "derived mask Y > 0",
		DescriptorText: "40-bin intensity histogram + 8×8 GLCM in 3-D + bias (105 values)",
	}
}

// MitoOptions controls BuildMito. The zero value builds the whole training
// volume with the paper's settings, without a cache.
type MitoOptions struct {
	// Path is the data folder holding epfl_mito/; "" searches (see Locator).
	Path string
	// Volume is "training" (default) or "testing".
	Volume string
	// Crop restricts the build to a box; the zero value is the whole volume.
	// The paper's C selection splits the training volume into its halves
	// MitoHalf(0) and MitoHalf(1).
	Crop MitoBox
	// Segments, Compactness and Sigma override the paper's SLIC settings
	// when non-zero. By default Segments is 130,000 scaled by the cropped
	// fraction of the volume, so supervoxels keep the paper's size.
	Segments    int
	Compactness float64
	Sigma       float64
	// KeepImage keeps the (cropped) volume in SegmentedImage.Image.
	KeepImage bool
	// Cache and Progress as in BuildOptions (one item: the volume).
	Cache    *SegmentCache
	Progress func(done, total int)
}

// BuildMito builds one EPFL mitochondria volume (notebooks/TARGETS.md §4) as
// a single instance: the grey PNG slices of epfl_mito/<volume>/images stacked
// in name order, the derived masks of masks_derived (mitochondrion where
// Y > 0), ~130K SLIC supervoxels with m = 20 and σ = 5 voxels, unary = 40-bin
// intensity histogram + 8×8 GLCM along x, y and z + bias 1 (105 values),
// pairwise |φ_k − φ_l|. The folder must hold the README's 165 image/mask
// pairs of 1024×768 grey slices; only the slices of the crop are read.
func BuildMito(opt MitoOptions) (*SegmentedSet, error) {
	vol := opt.Volume
	if vol == "" {
		vol = "training"
	}
	if vol != "training" && vol != "testing" {
		return nil, fmt.Errorf("%s: volume %q: expected \"training\" or \"testing\"", MitoDir, vol)
	}
	box, err := opt.Crop.resolve()
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", MitoDir, vol, err)
	}
	dir, err := Locator{Path: opt.Path}.Find(MitoDir)
	if err != nil {
		return nil, err
	}
	vdir := filepath.Join(dir, vol)
	if _, err := os.Stat(filepath.Join(vdir, "masks_derived")); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s/%s: no derived masks in %s: they are not in the source repository; "+
			"run scripts/fetch-data %s, which rasterises them from %s/labels and checks their pixels",
			MitoDir, vol, filepath.Join(vdir, "masks_derived"), MitoDir, vol)
	}
	preset := MitoPreset()
	images, masks, _, err := Pair(filepath.Join(vdir, preset.ImageDir), filepath.Join(vdir, preset.MaskDir), PairOptions{ImageExts: preset.Exts, MaskExts: preset.Exts})
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", MitoDir, vol, err)
	}
	if len(images) != MitoSlices {
		return nil, fmt.Errorf("%s/%s: %d image/mask slice pairs, expected %d (see the data README)", MitoDir, vol, len(images), MitoSlices)
	}
	images, masks = images[box.Z:box.Z+box.Depth], masks[box.Z:box.Z+box.Depth]
	if err := VerifyCached(dir, MitoDir, append(append([]string(nil), images...), masks...)...); err != nil {
		return nil, err
	}

	frac := float64(box.Width*box.Height*box.Depth) / float64(MitoWidth*MitoHeight*MitoSlices)
	b, err := preset.Pipeline.Builder(0)
	if err != nil {
		return nil, err
	}
	b.SLIC.Segments = max(1, int(math.Round(MitoSegments*frac)))
	b.KeepImage = opt.KeepImage
	overrideSLIC(&b.SLIC, opt.Segments, opt.Compactness, opt.Sigma)
	name := vol
	if !opt.Crop.full() {
		name = fmt.Sprintf("%s[x%d+%d,y%d+%d,z%d+%d]", vol, box.X, box.Width, box.Y, box.Height, box.Z, box.Depth)
	}
	src := SegmentSource{
		Name:      name,
		Files:     append(append([]string{}, images...), masks...),
		Transform: fmt.Sprintf("crop %+v; mask threshold %g", box, preset.Pipeline.Masks.Threshold),
		Load: func() (*imageio.Volume, *imageio.LabelMap, error) {
			return readMitoCrop(images, masks, box, preset.Pipeline.Masks)
		},
	}
	items, err := BuildSegmented([]SegmentSource{src}, b, BuildOptions{Cache: opt.Cache, Progress: opt.Progress})
	if err != nil {
		return nil, err
	}
	reduced := !(opt.Crop.full() || opt.Crop.isHalf()) || opt.Segments > 0 || opt.Compactness > 0 || opt.Sigma > 0
	var desc strings.Builder
	if reduced {
		desc.WriteString("REDUCED (not the paper's setting): ")
	}
	fmt.Fprintf(&desc, "EPFL mitochondria, %s volume (%s)", vol, vdir)
	switch {
	case opt.Crop.full():
		fmt.Fprintf(&desc, ", whole %d×%d×%d", MitoWidth, MitoHeight, MitoSlices)
	case opt.Crop.isHalf():
		fmt.Fprintf(&desc, ", half x ∈ [%d, %d) (%d×%d×%d, as the paper's selection of C)", box.X, box.X+box.Width, box.Width, box.Height, box.Depth)
	default:
		fmt.Fprintf(&desc, ", crop %d×%d×%d at (%d,%d,%d) of %d×%d×%d", box.Width, box.Height, box.Depth,
			box.X, box.Y, box.Z, MitoWidth, MitoHeight, MitoSlices)
	}
	fmt.Fprintf(&desc, "; SLIC ~%d supervoxels (got %d), m = %g, σ = %g voxels; unary 40-bin intensity histogram + 8×8 GLCM in 3-D + bias (105 values); pairwise |φ_k − φ_l|; labels: derived mask Y > 0, majority per supervoxel",
		b.SLIC.Segments, items[0].Instance.Nodes(), b.SLIC.Compactness, b.SLIC.Sigma)
	return &SegmentedSet{Name: MitoDir, Description: desc.String(), Reduced: reduced, Items: items}, nil
}

// readMitoCrop reads the crop box of the given slices (already restricted to
// the box's z range), in parallel over slices. Every slice must be a
// 1024×768 grey image and its mask the same size.
func readMitoCrop(images, masks []string, box MitoBox, format MaskFormat) (*imageio.Volume, *imageio.LabelMap, error) {
	v := imageio.NewVolume(box.Width, box.Height, box.Depth, 1)
	m := imageio.NewLabelMap(box.Width, box.Height, box.Depth)
	err := forEach(len(images), 0, func(z int) error {
		return readMitoSlice(images[z], masks[z], box, z, v, m, format)
	}, nil)
	if err != nil {
		return nil, nil, err
	}
	return v, m, nil
}

func readMitoSlice(imgPath, maskPath string, box MitoBox, z int, v *imageio.Volume, m *imageio.LabelMap, format MaskFormat) error {
	img, err := imageio.ReadImage(imgPath)
	if err != nil {
		return err
	}
	mask, err := format.ReadMask(maskPath)
	if err != nil {
		return err
	}
	if err := imageio.CheckSameSize(imgPath, img, maskPath, mask); err != nil {
		return err
	}
	if img.Width != MitoWidth || img.Height != MitoHeight || img.Depth != 1 || img.Channels != 1 {
		return fmt.Errorf("%s: %d×%d×%d with %d channel(s), expected a %d×%d grey slice", imgPath,
			img.Width, img.Height, img.Depth, img.Channels, MitoWidth, MitoHeight)
	}
	for y := range box.Height {
		src := img.Index(box.X, box.Y+y, 0)
		dst := v.Index(0, y, z)
		copy(v.Pix[dst:dst+box.Width], img.Pix[src:src+box.Width])
		copy(m.Labels[dst:dst+box.Width], mask.Labels[src:src+box.Width])
	}
	return nil
}
