package data

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/internal/jsontext"
	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/imageio"
)

// Segmenter is a trained CRF with the pipeline that built its training
// problems: all that is needed to segment new images (psub segment
// predict). Its file is JSON: the pipeline (recipe, SLIC settings, mask
// format), the meaning of the labels and the CRF (psub.Model's JSON).
type Segmenter struct {
	Pipeline Pipeline `json:"pipeline"`
	// Classes names the labels: background and object for binary masks.
	Classes []string `json:"classes"`
	// MaskValues is the value written for each class in predicted masks:
	// the training masks' own values where they are known (declared values,
	// or 0 and 255 for the others, swapped when inverted), the class index
	// for index masks.
	MaskValues []float64 `json:"mask_values"`
	// Training records how the model was trained (images, C selection).
	Training json.RawMessage `json:"training,omitempty"`
	CRF      *psub.Model     `json:"-"`
}

// Segmenter file versions: 1 is unsealed (still read), 2 sealed.
const (
	segmenterVersionUnsealed = 1
	segmenterVersion         = 2
)

type segmenterFile struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	*Segmenter
	CRF json.RawMessage `json:"crf"`
	// Seal is the SHA-256 (hex) of the file's values (Segmenter.sealed): a hand edit
	// of the pipeline (SLIC settings, recipe, mask values) changes
	// predictions as surely as one of the weights.
	Seal string `json:"sha256,omitempty"`
}

// ErrSegmenterEdited is wrapped by LoadSegmenter's error for a sealed file
// whose values no longer match its seal.
var ErrSegmenterEdited = errors.New("the segmenter does not match its seal (sha256): the file was changed after it was written")

// sealed is the segmenter's file, sealed: the seal is the SHA-256 of the
// file's JSON without it, compact, with the CRF as psub.Model.Save writes
// it. It covers the values, not the layout of the text.
func (s *Segmenter) sealed() (segmenterFile, error) {
	var crf bytes.Buffer
	if err := s.CRF.Save(&crf); err != nil {
		return segmenterFile{}, err
	}
	f := segmenterFile{Format: segmenterFormat, Version: segmenterVersion, Segmenter: s, CRF: crf.Bytes()}
	b, err := json.Marshal(f)
	if err != nil {
		return segmenterFile{}, err
	}
	sum := sha256.Sum256(b)
	f.Seal = hex.EncodeToString(sum[:])
	return f, nil
}

const segmenterFormat = "psub segmenter"

// resealHint says how to accept an edited segmenter file on purpose.
const resealHint = "a segmenter is trained, not edited; if the change is intended, seal the file again with 'psub model -reseal FILE' (data.ResealSegmenterFile)"

// NewSegmenter pairs a pipeline with a trained CRF and fills in the label
// names and mask values from the pipeline's MaskFormat.
func NewSegmenter(p Pipeline, crf *psub.Model) *Segmenter {
	m := p.Masks
	k := m.NumClasses()
	s := &Segmenter{Pipeline: p, CRF: crf}
	if k == 2 {
		s.Classes = []string{"background", "object"}
		s.MaskValues = []float64{0, 255}
		if len(m.Values) == 2 {
			s.MaskValues = []float64{m.Values[0], m.Values[1]}
		}
		if m.Invert {
			s.MaskValues[0], s.MaskValues[1] = s.MaskValues[1], s.MaskValues[0]
		}
		return s
	}
	for c := range k {
		s.Classes = append(s.Classes, fmt.Sprintf("class %d", c))
		s.MaskValues = append(s.MaskValues, float64(c))
	}
	return s
}

// Save writes the segmenter to path atomically (internal/safefile).
func (s *Segmenter) Save(path string) error {
	f, err := s.sealed()
	if err != nil {
		return err
	}
	return safefile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(f)
	})
}

// LoadSegmenter reads a segmenter written by Save and checks it: a sealed
// file (version 2) must match its seal, else the error wraps
// ErrSegmenterEdited and says how to re-seal; a version 1 file has none.
func LoadSegmenter(path string) (*Segmenter, error) {
	return loadSegmenter(path, true)
}

// ResealSegmenterFile seals the segmenter file at path again as it now
// reads (after a deliberate edit, or a version 1 file), checked as
// LoadSegmenter checks it except for the seals, and written atomically.
func ResealSegmenterFile(path string) error {
	s, err := loadSegmenter(path, false)
	if err != nil {
		return err
	}
	return s.Save(path)
}

// IsSegmenterFile reports whether the JSON text b is a segmenter file (its
// "format"), for commands that take a model or a segmenter.
func IsSegmenterFile(b []byte) bool {
	var head struct {
		Format string `json:"format"`
	}
	return json.Unmarshal(jsontext.TrimBOM(b), &head) == nil && head.Format == segmenterFormat
}

func loadSegmenter(path string, verify bool) (*Segmenter, error) {
	b, err := membudget.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := segmenterFile{Segmenter: &Segmenter{}}
	if err := json.Unmarshal(jsontext.TrimBOM(b), &f); err != nil {
		return nil, fmt.Errorf("%s: not a segmenter file: %s", path, jsontext.Explain(err))
	}
	if f.Format != segmenterFormat || (f.Version != segmenterVersion && f.Version != segmenterVersionUnsealed) {
		return nil, fmt.Errorf("%s: format %q version %d, want %q version %d (a file of psub segment train)", path, f.Format, f.Version, segmenterFormat, segmenterVersion)
	}
	switch {
	case f.Version == segmenterVersionUnsealed && f.Seal != "":
		return nil, fmt.Errorf("%s: version %d files have no seal, but this one has \"sha256\"", path, f.Version)
	case f.Version == segmenterVersion && f.Seal == "" && verify:
		return nil, fmt.Errorf("%s: version %d file without its seal (\"sha256\"): %w; %s", path, f.Version, ErrSegmenterEdited, resealHint)
	}
	s := f.Segmenter
	load := psub.Load
	if !verify {
		load = psub.LoadUnverified
	}
	if s.CRF, err = load(bytes.NewReader(f.CRF)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Pipeline.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	k := s.Pipeline.Masks.NumClasses()
	if s.CRF.Labels != k || len(s.Classes) != k || len(s.MaskValues) != k {
		return nil, fmt.Errorf("%s: %d CRF labels, %d class names, %d mask values for %d-class masks", path, s.CRF.Labels, len(s.Classes), len(s.MaskValues), k)
	}
	if f.Version == segmenterVersion && verify {
		sf, err := s.sealed()
		if err != nil {
			return nil, err
		}
		if sf.Seal != f.Seal {
			return nil, fmt.Errorf("%s: %w; %s", path, ErrSegmenterEdited, resealHint)
		}
	}
	return s, nil
}

// Prediction is a segmenter's result on one image.
type Prediction struct {
	// SegmentedImage is the image's instance, labelled with the prediction.
	// Its Regions map is not kept: its memory holds Pixels (a whole EM
	// volume's map is 520 MB).
	*SegmentedImage
	// Pixels is the predicted class of every pixel (voxel) of the input.
	Pixels *imageio.LabelMap
	// Truncated is the number of edges inference truncated (not
	// submodular).
	Truncated int
}

// Predict segments an image as read by imageio.ReadImage: the pipeline's
// preparation, regions and features, CRF inference, and the region labels
// painted back on the input's pixels.
//
// Predict keeps no reference to raw: a caller that drops its own lets the
// image be freed once the features are computed. The region map becomes
// the pixel map, so a whole EM volume is predicted in about the memory
// SLIC needs (data/BENCHMARKS.md).
func (s *Segmenter) Predict(name string, raw *imageio.Volume) (*Prediction, error) {
	w, h, d := raw.Width, raw.Height, raw.Depth
	img, err := s.Pipeline.Prepare(name, raw)
	if err != nil {
		return nil, err
	}
	seg, err := s.Pipeline.Segment(name, img)
	if err != nil {
		return nil, err
	}
	// raw and img are dead from here (the compiler's liveness analysis).
	r, err := s.CRF.Predict(&seg.Instance)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	small := seg.Regions
	seg.Regions = nil
	// Project the region labels in place (feature.Project without the
	// copy): region ids are SLIC's, 0..Nodes−1.
	for i, reg := range small.Labels {
		if reg < 0 || int(reg) >= len(r.Labels) {
			return nil, fmt.Errorf("%s: voxel %d in region %d of %d", name, i, reg, len(r.Labels))
		}
		small.Labels[i] = int32(r.Labels[reg])
	}
	pix := small
	if f := max(s.Pipeline.Downscale, 1); f > 1 {
		pix = imageio.NewLabelMap(w, h, d)
		for z := range d {
			for y := range h {
				for x := range w {
					pix.Labels[pix.Index(x, y, z)] = small.Labels[small.Index(x/f, y/f, z)]
				}
			}
		}
	}
	seg.Instance.Labels = r.Labels
	return &Prediction{SegmentedImage: seg, Pixels: pix, Truncated: r.Truncated}, nil
}

// ScoreMask is the pixel confusion of a prediction against a mask decoded
// with a MaskFormat; IgnoreClass pixels are not counted.
func ScoreMask(truth, pred *imageio.LabelMap, classes int) (*feature.Confusion, error) {
	c := feature.NewConfusion(classes)
	return c, addMaps(c, truth, pred)
}

// MaskImage returns the predicted classes as mask samples (MaskValues), one
// channel, for writing.
func (s *Segmenter) MaskImage(pix *imageio.LabelMap) *imageio.Volume {
	v := imageio.NewVolume(pix.Width, pix.Height, pix.Depth, 1)
	for i, l := range pix.Labels {
		v.Pix[i] = float32(s.MaskValues[l])
	}
	return v
}

// WriteMask writes the predicted mask to path atomically: a TIFF (one page
// per slice) when path ends in .tif or .tiff, else an 8-bit (16-bit when a
// value exceeds 255) grey PNG of a 2-D prediction. A TIFF is written from
// pix directly, without a copy of the volume in samples.
func (s *Segmenter) WriteMask(path string, pix *imageio.LabelMap) error {
	wide := slices.ContainsFunc(s.MaskValues, func(m float64) bool { return m > 255 })
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".tif" || ext == ".tiff" {
		opt := &imageio.TIFFWriteOptions{Bits: 8}
		if wide {
			opt.Bits = 16
		}
		if len(pix.Labels) != pix.Width*pix.Height*pix.Depth {
			return fmt.Errorf("%s: label map %dx%dx%d with %d labels", path, pix.Width, pix.Height, pix.Depth, len(pix.Labels))
		}
		return imageio.WriteTIFFSamples(path, pix.Width, pix.Height, pix.Depth, func(i int) float32 {
			return float32(s.MaskValues[pix.Labels[i]])
		}, opt)
	}
	v := s.MaskImage(pix)
	if v.Depth != 1 {
		return fmt.Errorf("%s: a %d-slice prediction needs a TIFF file", path, v.Depth)
	}
	var img image.Image
	if wide {
		g := image.NewGray16(image.Rect(0, 0, v.Width, v.Height))
		for i, p := range v.Pix {
			g.SetGray16(i%v.Width, i/v.Width, color.Gray16{Y: uint16(p)})
		}
		img = g
	} else {
		g := image.NewGray(image.Rect(0, 0, v.Width, v.Height))
		for i, p := range v.Pix {
			g.Pix[i] = uint8(p)
		}
		img = g
	}
	return safefile.Write(path, func(w io.Writer) error { return fastPNG.Encode(w, img) })
}

// fastPNG favours speed: predicted masks and overlays compress well anyway.
var fastPNG = png.Encoder{CompressionLevel: png.BestSpeed}

// overlayColours tint the classes (class 0 is left as it is).
var overlayColours = []color.NRGBA{{0, 0, 0, 0}, {255, 40, 40, 255}, {40, 200, 40, 255}, {60, 90, 255, 255}, {255, 200, 0, 255}, {220, 60, 220, 255}, {0, 210, 210, 255}}

// Overlay draws the prediction on slice z of the image: each class but 0
// tinted in its colour at 45 %, the class boundaries in full colour.
func Overlay(raw *imageio.Volume, pix *imageio.LabelMap, z int) *image.NRGBA {
	base := raw.SliceImage(z)
	w, h := raw.Width, raw.Height
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	at := func(x, y int) int32 { return pix.Labels[pix.Index(x, y, z)] }
	for y := range h {
		for x := range w {
			r, g, b, _ := base.At(x, y).RGBA()
			c := color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
			l := at(x, y)
			edge := (x+1 < w && at(x+1, y) != l) || (y+1 < h && at(x, y+1) != l)
			if l > 0 || edge {
				t := overlayColours[1+int(max(l, 1)-1)%(len(overlayColours)-1)]
				if l == 0 {
					t = color.NRGBA{255, 255, 255, 255}
				}
				a := 0.45
				if edge {
					a = 1
				}
				mix := func(p, q uint8) uint8 { return uint8(math.Round((1-a)*float64(p) + a*float64(q))) }
				c = color.NRGBA{mix(c.R, t.R), mix(c.G, t.G), mix(c.B, t.B), 255}
			}
			out.SetNRGBA(x, y, c)
		}
	}
	return out
}

// SliceVolume copies slice z of a volume into a one-slice volume: what an
// overlay needs of an image whose volume is dropped before predicting.
func SliceVolume(v *imageio.Volume, z int) *imageio.Volume {
	n := v.Width * v.Height * v.Channels
	out := imageio.NewVolume(v.Width, v.Height, 1, v.Channels)
	copy(out.Pix, v.Pix[z*n:(z+1)*n])
	return out
}

// SliceLabels is slice z of a label map as a one-slice map sharing its
// labels.
func SliceLabels(m *imageio.LabelMap, z int) *imageio.LabelMap {
	n := m.Width * m.Height
	return &imageio.LabelMap{Width: m.Width, Height: m.Height, Depth: 1, Labels: m.Labels[z*n : (z+1)*n : (z+1)*n]}
}

// WriteOverlay writes Overlay as a PNG, atomically.
func WriteOverlay(path string, raw *imageio.Volume, pix *imageio.LabelMap, z int) error {
	img := Overlay(raw, pix, z)
	return safefile.Write(path, func(w io.Writer) error { return fastPNG.Encode(w, img) })
}

// SplitHoldout splits n items into a training part and a held-out fraction
// (at least one of each when n ≥ 2), by a seeded shuffle; both parts keep
// their order.
func SplitHoldout(n int, frac float64, seed uint64) (train, held []int, err error) {
	if n < 2 || !(frac > 0 && frac < 1) {
		return nil, nil, fmt.Errorf("hold-out: %d images, fraction %g: need at least 2 images and a fraction in (0, 1)", n, frac)
	}
	k := min(max(1, int(math.Round(frac*float64(n)))), n-1)
	perm := rand.New(rand.NewPCG(seed, 0x686f6c646f7574)).Perm(n)
	held, train = perm[:k:k], perm[k:]
	slices.Sort(held)
	slices.Sort(train)
	return train, held, nil
}
