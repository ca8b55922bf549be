package data

import (
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// # The pipeline: your own images and volumes
//
// A Pipeline is everything that turns an image (or volume) and its mask
// into a CRF instance, as data that can be stored with a model: the
// feature Recipe (by name), the SLIC settings, the MaskFormat and a
// downscale. Pipeline.Build builds a folder of image/mask pairs (found by
// Pair), Pipeline.Segment an image without a mask for prediction. The
// paper's data sets are presets of it (CowsPreset, HorsesPreset,
// MitoPreset): a folder layout, a pipeline and the README's facts.

// Recipe names a feature recipe: the unary descriptor φ_u of a region;
// the pairwise feature of an edge is always |φ_u(k) − φ_u(l)|. MaxValue
// is the largest sample value (255 for 8-bit images, 65535 for 16-bit); 0
// means 255.
type Recipe struct {
	Name     string  `json:"name"`
	MaxValue float64 `json:"max_value,omitempty"`
}

// The recipes: the paper's three unaries.
const (
	// RecipeRGBHist is the cows' 5×5×5 joint RGB histogram (125 values);
	// it reads colour images (a grey image is taken as R = G = B).
	RecipeRGBHist = "rgb-hist"
	// RecipeHistGLCM is the retina's 10-bin intensity histogram and 8×8
	// GLCM (74 values); it reads grey images (a colour image by its luma).
	RecipeHistGLCM = "hist-glcm"
	// RecipeHistGLCMBias is the mitochondria's 40-bin histogram, 8×8 GLCM
	// (along z too in a volume) and bias 1 (105 values), on grey images.
	RecipeHistGLCMBias = "hist-glcm-bias"
)

// recipeAliases are the data sets' names for the recipes.
var recipeAliases = map[string]string{"cows": RecipeRGBHist, "retina": RecipeHistGLCM, "horses": RecipeHistGLCM, "mito": RecipeHistGLCMBias}

// RecipeNames lists the recipe names (the aliases cows, retina, horses
// and mito name them too).
func RecipeNames() []string { return []string{RecipeRGBHist, RecipeHistGLCM, RecipeHistGLCMBias} }

// RecipeByName returns the recipe of a name or alias.
func RecipeByName(name string, maxValue float64) (Recipe, error) {
	if a, ok := recipeAliases[name]; ok {
		name = a
	}
	r := Recipe{Name: name, MaxValue: maxValue}
	if _, err := r.Descriptor(); err != nil {
		return Recipe{}, err
	}
	return r, nil
}

func (r Recipe) max() float64 {
	if r.MaxValue == 0 {
		return feature.MaxValue8
	}
	return r.MaxValue
}

// Channels is the channel count the recipe reads: 3 or 1.
func (r Recipe) Channels() int {
	if r.Name == RecipeRGBHist {
		return 3
	}
	return 1
}

// Descriptor returns the recipe's Descriptor. Its Name (the segment cache's
// key) is the one the paper's builders have always used.
func (r Recipe) Descriptor() (Descriptor, error) {
	if m := r.MaxValue; m < 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		return Descriptor{}, fmt.Errorf("recipe %s: max value %v", r.Name, m)
	}
	switch r.Name {
	case RecipeRGBHist:
		if r.max() == feature.MaxValue8 {
			return CowDescriptor(), nil
		}
		m := r.max()
		return Descriptor{Name: fmt.Sprintf("rgb-hist-5x5x5/max%g", m), Compute: func(img *imageio.Volume, reg *imageio.LabelMap) ([][]float64, error) {
			return feature.ColorHistogram(img, reg, feature.ColorBins, m)
		}}, nil
	case RecipeHistGLCM:
		return RetinaDescriptor(r.max()), nil
	case RecipeHistGLCMBias:
		return EMDescriptor(r.max()), nil
	}
	return Descriptor{}, fmt.Errorf("unknown feature recipe %q: want one of %s", r.Name, strings.Join(RecipeNames(), ", "))
}

// Pipeline turns images and masks into SegmentedImages: SLIC regions, the
// region adjacency graph, the Recipe's features and labels by majority
// vote of the mask decoded with Masks. It is plain data (JSON), so that a
// model file can carry it and apply it again.
type Pipeline struct {
	Recipe Recipe `json:"recipe"`
	// SLIC holds the superpixel settings. Lab is switched on for colour
	// recipes by Builder; Workers is ignored in keys and files.
	SLIC slic.Options `json:"slic"`
	// RegionSize, when positive, sets SLIC.Segments per image to its pixel
	// (voxel) count divided by RegionSize, so that images of other sizes
	// get regions of the same size.
	RegionSize int        `json:"region_size,omitempty"`
	Masks      MaskFormat `json:"masks"`
	// Downscale shrinks images and masks by this integer factor (Downscale,
	// DownscaleMask: binary masks only); 0 or 1 means none.
	Downscale int `json:"downscale,omitempty"`
	// Channels, when positive, is the channel count every image must have,
	// and images must be 2-D (the presets of image sets check it); 0
	// converts images to the recipe's channels.
	Channels int `json:"channels,omitempty"`
}

// Check reports settings that cannot work.
func (p Pipeline) Check() error {
	if _, err := p.Recipe.Descriptor(); err != nil {
		return err
	}
	if err := p.Masks.Check(); err != nil {
		return err
	}
	switch {
	case p.SLIC.Segments <= 0 && p.RegionSize <= 0:
		return fmt.Errorf("pipeline: SLIC segments %d and region size %d: set one", p.SLIC.Segments, p.RegionSize)
	case p.Downscale < 0:
		return fmt.Errorf("pipeline: downscale %d", p.Downscale)
	case p.Downscale > 1 && p.Masks.NumClasses() > 2:
		return fmt.Errorf("pipeline: downscale %d of %d-class masks: only binary masks can be downscaled", p.Downscale, p.Masks.NumClasses())
	case p.Channels != 0 && p.Channels != 1 && p.Channels != 3:
		return fmt.Errorf("pipeline: channels %d: want 1 or 3", p.Channels)
	}
	return nil
}

// Builder returns the SegmentBuilder of an image with the given number of
// voxels (after Prepare).
func (p Pipeline) Builder(voxels int) (SegmentBuilder, error) {
	d, err := p.Recipe.Descriptor()
	if err != nil {
		return SegmentBuilder{}, err
	}
	b := SegmentBuilder{SLIC: p.SLIC, Descriptor: d, Classes: p.Masks.NumClasses()}
	if p.Masks.NumClasses() == 2 {
		b.Classes = 0 // as the presets always built (the same key)
	}
	b.SLIC.Lab = p.Recipe.Channels() == 3
	if p.RegionSize > 0 {
		b.SLIC.Segments = max(1, int(math.Round(float64(voxels)/float64(p.RegionSize))))
	}
	return b, nil
}

// PipelineBytesPerVoxel is what preparing, segmenting and predicting one
// image holds per voxel with the given channels: the image, its converted
// and smoothed copies, SLIC's work (slic.WorkBytesPerVoxel), the label maps
// and the overlay. Peak RSS of psub segment predict on a 4000×4000 RGB
// image (2 cores, Go 1.26): 66 bytes a pixel; this gives 72. Prepare checks
// it against the memory budget before any of it is allocated.
func PipelineBytesPerVoxel(channels int) int64 { return 16*int64(channels) + 24 }

// Prepare checks or converts the channels of an image read from path for
// the recipe and downscales it.
func (p Pipeline) Prepare(path string, v *imageio.Volume) (*imageio.Volume, error) {
	want := p.Recipe.Channels()
	if err := membudget.Check(fmt.Sprintf("%s: the segment pipeline on a %dx%dx%d image with %d channel(s)", path, v.Width, v.Height, v.Depth, v.Channels),
		membudget.Bytes(int64(v.Voxels()), PipelineBytesPerVoxel(max(v.Channels, want)))); err != nil {
		return nil, err
	}
	switch {
	case p.Channels > 0 && (v.Channels != p.Channels || v.Depth != 1):
		return nil, fmt.Errorf("%s: %d channel(s), depth %d; expected a 2-D image with %d channel(s)", path, v.Channels, v.Depth, p.Channels)
	case v.Channels == want:
	case want == 1:
		v = imageio.Luma(v)
	case v.Channels == 1:
		rgb := imageio.NewVolume(v.Width, v.Height, v.Depth, 3)
		for i, s := range v.Pix {
			rgb.Pix[3*i], rgb.Pix[3*i+1], rgb.Pix[3*i+2] = s, s, s
		}
		v = rgb
	default:
		return nil, fmt.Errorf("%s: %d channels; the %s recipe reads 1 or 3", path, v.Channels, p.Recipe.Name)
	}
	if m, top := p.Recipe.max(), maxSample(v); top > float32(m) {
		// The hint fits the sample: one above 255 is a 16-bit image; one
		// below is an 8-bit image under a -max-value set too low.
		hint := "8-bit images need max value 255"
		if top > 255 {
			hint = "a 16-bit image needs max value 65535"
		}
		return nil, fmt.Errorf("%s: sample %g above the recipe's maximum %g (%s)", path, top, m, hint)
	}
	return Downscale(v, max(p.Downscale, 1)), nil
}

func maxSample(v *imageio.Volume) float32 {
	var m float32
	for _, s := range v.Pix {
		m = max(m, s)
	}
	return m
}

// transform is the SegmentSource.Transform of the pipeline's loads: the
// presets' strings are the ones their cache keys always had.
func (p Pipeline) transform() string {
	f := max(p.Downscale, 1)
	m := p.Masks
	if m.Threshold > 0 && !m.Invert && len(m.Ignore) == 0 && m.Classes <= 2 {
		return fmt.Sprintf("threshold %g; downscale %d", m.Threshold, f)
	}
	return fmt.Sprintf("mask %s; channels %d of recipe %s; downscale %d", m, p.Channels, p.Recipe.Name, f)
}

// Load reads an image and its mask, checks that they match and prepares
// them (channels, downscale). Errors name the file.
func (p Pipeline) Load(imagePath, maskPath string) (*imageio.Volume, *imageio.LabelMap, error) {
	img, err := imageio.ReadImage(imagePath)
	if err != nil {
		return nil, nil, err
	}
	mask, err := p.Masks.ReadMask(maskPath)
	if err != nil {
		return nil, nil, err
	}
	if err := imageio.CheckSameSize(imagePath, img, maskPath, mask); err != nil {
		return nil, nil, err
	}
	if img, err = p.Prepare(imagePath, img); err != nil {
		return nil, nil, err
	}
	return img, DownscaleMask(mask, max(p.Downscale, 1)), nil
}

// Source is the SegmentSource of one image/mask pair, named by the image's
// stem.
func (p Pipeline) Source(imagePath, maskPath string) SegmentSource {
	return SegmentSource{
		Name:      Stem(imagePath),
		Files:     []string{imagePath, maskPath},
		Transform: p.transform(),
		Load:      func() (*imageio.Volume, *imageio.LabelMap, error) { return p.Load(imagePath, maskPath) },
	}
}

// Stem is a file's name without folder and extension.
func Stem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// Build builds every image/mask pair (as Pair lists them), in parallel (see
// BuildSegmented). KeepImage keeps each prepared image.
func (p Pipeline) Build(images, masks []string, keepImage bool, opt BuildOptions) ([]*SegmentedImage, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	if len(images) != len(masks) {
		return nil, fmt.Errorf("pipeline: %d images and %d masks", len(images), len(masks))
	}
	if len(images) == 0 {
		return nil, fmt.Errorf("pipeline: no images")
	}
	if p.RegionSize <= 0 {
		b, err := p.Builder(0)
		if err != nil {
			return nil, err
		}
		b.KeepImage = keepImage
		sources := make([]SegmentSource, len(images))
		for i := range images {
			sources[i] = p.Source(images[i], masks[i])
		}
		return BuildSegmented(sources, b, opt)
	}
	// Segments depend on each image's size: one builder per image, the
	// images built in parallel, SLIC on one core each.
	out := make([]*SegmentedImage, len(images))
	err := forEach(len(images), opt.Workers, func(i int) (err error) {
		out[i], err = p.buildOne(images[i], masks[i], keepImage, len(images) > 1)
		return err
	}, opt.Progress)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (p Pipeline) buildOne(imagePath, maskPath string, keepImage, oneCore bool) (*SegmentedImage, error) {
	src := p.Source(imagePath, maskPath)
	img, mask, err := src.Load()
	if err != nil {
		return nil, err
	}
	b, err := p.Builder(img.Voxels())
	if err != nil {
		return nil, err
	}
	b.KeepImage = keepImage
	if oneCore && b.SLIC.Workers == 0 {
		b.SLIC.Workers = 1
	}
	return b.Build(src.Name, img, mask)
}

// collectAfterSLIC is the size of an image's samples (bytes, float32)
// from which Segment collects garbage after SLIC and after the
// descriptors: a volume, not a photo (a variable for the tests of the
// peak).
var collectAfterSLIC = 64 << 20

// Segment builds the unlabelled instance of a prepared image (see Prepare)
// for prediction: Truth, Oracle and Instance.Labels are nil.
func (p Pipeline) Segment(name string, img *imageio.Volume) (*SegmentedImage, error) {
	b, err := p.Builder(img.Voxels())
	if err != nil {
		return nil, err
	}
	// On a volume, garbage is collected and its pages returned to the
	// system twice, which is cheap (the big buffers hold no pointers):
	// after SLIC, which leaves its smoothed copy and distances (8 bytes a
	// voxel), and after the descriptors, which leave the image (when the
	// caller holds no other reference, as Segmenter.Predict). Left to
	// itself, the collector paces on the heap it found live during SLIC
	// and lets the features grow the heap to twice that (3.97 GB on a whole
	// EM volume); the pairwise matrix, 0.7 GB in one piece, then fits in no
	// freed buffer and adds to the resident set.
	collect := 4*img.Voxels() >= collectAfterSLIC
	regions, _, err := slic.Segment(img, b.SLIC)
	if err != nil {
		return nil, fmt.Errorf("%s: SLIC: %w", name, err)
	}
	if collect {
		debug.FreeOSMemory()
	}
	edges, unary, err := b.features(name, img, regions)
	if err != nil {
		return nil, err
	}
	if collect {
		debug.FreeOSMemory()
	}
	pair, err := feature.Pairwise(unary, edges)
	if err != nil {
		return nil, fmt.Errorf("%s: pairwise: %w", name, err)
	}
	return &SegmentedImage{Instance: instanceOf(name, unary, edges, pair, nil), Regions: regions}, nil
}

// Preset is a data set of the paper as a pipeline: where its files are,
// how many there must be, and the settings of notebooks/TARGETS.md.
type Preset struct {
	Name, Title       string // data set folder and human name
	ImageDir, MaskDir string // inside the data set folder
	Exts              []string
	Count             int // image/mask pairs expected (README)
	Pipeline          Pipeline
	// DescriptorText, MaskText and Note word the set's Description.
	DescriptorText, MaskText, Note string
}
