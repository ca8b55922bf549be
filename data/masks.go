package data

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/probably-submodular/crf/psub/imageio"
)

// IgnoreClass is the class of a pixel that a MaskFormat's Ignore values
// mark unlabelled: it votes for no region's label and counts in no score.
const IgnoreClass = -1

// MaskFormat says how the values of a mask file become classes. The zero
// value reads binary masks whose values are 0 and one other value (0/1,
// 0/255, 0/65535): 0 is background (class 0), the other value the object
// (class 1).
//
// Binary masks (Classes 0 or 2) are read in one of three ways:
//   - Threshold > 0: object where the sample (the luma of a colour mask) is
//     ≥ Threshold, background elsewhere; for lossy masks (JPEG), whose
//     values are not exactly two;
//   - Values set: [background, object] are the two values the mask holds;
//     any other value (not in Ignore) is an error naming the file and pixel;
//   - neither: the mask must hold at most two values; the larger is the
//     object; a mask with one value is background when it is 0, object
//     otherwise.
//
// Invert then swaps object and background, for masks that mark the object
// dark.
//
// Multi-class masks (Classes K > 2) are index images: the value of a pixel
// is its class, 0..K−1 (a paletted PNG gives its palette indices, any other
// image its grey value). Training then uses the multi-label path.
//
// Ignore lists values of unlabelled pixels (e.g. 128 for "not annotated");
// they get IgnoreClass.
type MaskFormat struct {
	Classes   int       `json:"classes,omitempty"`
	Threshold float64   `json:"threshold,omitempty"`
	Values    []float64 `json:"values,omitempty"`
	Invert    bool      `json:"invert,omitempty"`
	Ignore    []float64 `json:"ignore,omitempty"`
}

// NumClasses is the number of classes the masks hold (2 for binary masks).
func (f MaskFormat) NumClasses() int { return max(f.Classes, 2) }

// Check reports a format that cannot be applied.
func (f MaskFormat) Check() error {
	switch {
	case f.Classes < 0 || f.Classes == 1:
		return fmt.Errorf("mask format: %d classes: want 2 (binary) or more", f.Classes)
	case f.Threshold < 0 || math.IsNaN(f.Threshold) || math.IsInf(f.Threshold, 0):
		return fmt.Errorf("mask format: threshold %v: want a finite value > 0 (or 0 for none)", f.Threshold)
	case f.Threshold > 0 && len(f.Values) > 0:
		return errors.New("mask format: a threshold and mask values: set one or the other")
	case len(f.Values) != 0 && len(f.Values) != 2:
		return fmt.Errorf("mask format: %d values: a binary mask has two (background, object)", len(f.Values))
	case len(f.Values) == 2 && f.Values[0] == f.Values[1]:
		return fmt.Errorf("mask format: background and object are both %g", f.Values[0])
	case f.Classes > 2 && (f.Threshold > 0 || len(f.Values) > 0 || f.Invert):
		return fmt.Errorf("mask format: %d classes (index masks) take no threshold, values or inversion", f.Classes)
	}
	for _, v := range f.Ignore {
		if slices.Contains(f.Values, v) {
			return fmt.Errorf("mask format: %g is both a class value and ignored", v)
		}
		if f.Classes > 2 && v >= 0 && v < float64(f.Classes) && v == math.Trunc(v) {
			return fmt.Errorf("mask format: ignored value %g is class %g of %d", v, v, f.Classes)
		}
	}
	return nil
}

// String describes the format for descriptions and summaries.
func (f MaskFormat) String() string {
	var s string
	switch {
	case f.Classes > 2:
		s = fmt.Sprintf("index mask, classes 0..%d", f.Classes-1)
	case f.Threshold > 0:
		s = fmt.Sprintf("object where Y ≥ %g", f.Threshold)
	case len(f.Values) == 2:
		s = fmt.Sprintf("background %g, object %g", f.Values[0], f.Values[1])
	default:
		s = "two values, the larger the object"
	}
	if f.Invert {
		s += ", inverted (object dark)"
	}
	if len(f.Ignore) > 0 {
		s += fmt.Sprintf(", ignore %v", f.Ignore)
	}
	return s
}

// ReadMask reads the mask file at path (PNG, JPEG, BMP or TIFF; a multi-page
// TIFF gives a 3-D mask) and decodes it with f.
func (f MaskFormat) ReadMask(path string) (*imageio.LabelMap, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	if f.Classes > 2 {
		if m, ok, err := readPalettedIndices(path); ok || err != nil {
			if err != nil {
				return nil, err
			}
			v := imageio.NewVolume(m.Width, m.Height, m.Depth, 1)
			for i, l := range m.Labels {
				v.Pix[i] = float32(l)
			}
			return m, f.decode(path, v, m)
		}
	}
	v, err := imageio.ReadImage(path)
	if err != nil {
		return nil, err
	}
	return f.Decode(path, v)
}

// Decode turns the samples of a mask read elsewhere (as imageio.ReadImage
// gives them) into classes; path names the file in errors.
func (f MaskFormat) Decode(path string, v *imageio.Volume) (*imageio.LabelMap, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	m := imageio.NewLabelMap(v.Width, v.Height, v.Depth)
	if v.Channels != 1 {
		v = imageio.Luma(v)
	}
	return m, f.decode(path, v, m)
}

func (f MaskFormat) decode(path string, v *imageio.Volume, m *imageio.LabelMap) error {
	ignored := func(p float32) bool { return slices.Contains(f.Ignore, float64(p)) }
	bad := func(i int, p float32, want string) error {
		x, y, z := i%v.Width, (i/v.Width)%v.Height, i/(v.Width*v.Height)
		at := fmt.Sprintf("(%d,%d)", x, y)
		if v.Depth > 1 {
			at = fmt.Sprintf("(%d,%d,%d)", x, y, z)
		}
		return fmt.Errorf("%s: pixel %s has value %g; %s (mask format: %s)", path, at, p, want, f)
	}
	switch {
	case f.Classes > 2:
		for i, p := range v.Pix {
			switch {
			case ignored(p):
				m.Labels[i] = IgnoreClass
			case p < 0 || p >= float32(f.Classes) || p != float32(math.Trunc(float64(p))):
				return bad(i, p, fmt.Sprintf("an index mask holds classes 0..%d", f.Classes-1))
			default:
				m.Labels[i] = int32(p)
			}
		}
		return nil
	case f.Threshold > 0:
		// As imageio.MaskFromVolume, the presets' masks.
		t := float32(f.Threshold)
		for i, p := range v.Pix {
			switch {
			case len(f.Ignore) > 0 && ignored(p):
				m.Labels[i] = IgnoreClass
			case (p >= t) != f.Invert:
				m.Labels[i] = 1
			}
		}
		return nil
	}
	bg, obj := float32(0), float32(math.NaN())
	if len(f.Values) == 2 {
		bg, obj = float32(f.Values[0]), float32(f.Values[1])
	} else {
		var seen []float32
		for i, p := range v.Pix {
			if ignored(p) || slices.Contains(seen, p) {
				continue
			}
			if len(seen) == 2 {
				return bad(i, p, fmt.Sprintf("a binary mask holds two values and this one holds %g and %g already: declare the mask's values, a threshold, or more classes", seen[0], seen[1]))
			}
			seen = append(seen, p)
		}
		switch {
		case len(seen) == 2:
			bg, obj = min(seen[0], seen[1]), max(seen[0], seen[1])
		case len(seen) == 1 && seen[0] != 0:
			bg, obj = float32(math.NaN()), seen[0]
		}
	}
	one, zero := int32(1), int32(0)
	if f.Invert {
		one, zero = 0, 1
	}
	for i, p := range v.Pix {
		switch {
		case p == obj:
			m.Labels[i] = one
		case p == bg:
			m.Labels[i] = zero
		case ignored(p):
			m.Labels[i] = IgnoreClass
		default:
			return bad(i, p, fmt.Sprintf("the declared values are %g (background) and %g (object)", bg, obj))
		}
	}
	return nil
}

// readPalettedIndices reads a paletted PNG's indices; ok is false for any
// other file.
func readPalettedIndices(path string) (*imageio.LabelMap, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	br := bufio.NewReader(f)
	if head, _ := br.Peek(8); !bytes.Equal(head, []byte("\x89PNG\r\n\x1a\n")) {
		return nil, false, nil
	}
	// imageio.Decode checks the declared size against the file and the
	// memory budget before the pixels are allocated.
	img, _, err := imageio.Decode(br, st.Size())
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	p, ok := img.(*image.Paletted)
	if !ok {
		return nil, false, nil
	}
	w, h := p.Rect.Dx(), p.Rect.Dy()
	m := imageio.NewLabelMap(w, h, 1)
	for y := range h {
		for x := range w {
			m.Labels[y*w+x] = int32(p.Pix[y*p.Stride+x])
		}
	}
	return m, true, nil
}

// PairOptions sets how Pair matches images with masks.
type PairOptions struct {
	// MaskSuffix is appended to an image's stem to name its mask (e.g.
	// "_mask": img_001.jpg ↔ img_001_mask.png). "" with AutoSuffix unset
	// means the same stem.
	MaskSuffix string
	// AutoSuffix, when MaskSuffix is "", tries the same stem and then each
	// of CommonMaskSuffixes, and takes the first that pairs every file.
	AutoSuffix bool
	// ImageExts and MaskExts restrict the files considered (e.g. ".png");
	// empty means .png .jpg .jpeg .tif .tiff .bmp.
	ImageExts, MaskExts []string
}

// imageExts are the extensions of the files Pair considers by default.
var imageExts = []string{".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp"}

// CommonMaskSuffixes are the suffixes PairOptions.AutoSuffix tries, in
// order.
func CommonMaskSuffixes() []string {
	return []string{"_mask", "-mask", "_masks", "_label", "_labels", "_gt", "_seg", "_segmentation", "_annotation"}
}

// Pair matches the images of imageDir with the masks of maskDir by name:
// the mask of image STEM.EXT is STEM+MaskSuffix.ANY in maskDir (the
// extension may differ: img_001.jpg ↔ img_001_mask.png). imageDir and
// maskDir may be the same folder when MaskSuffix is not "": the files whose
// stem ends with it are the masks. Hidden files, folders and files of other
// extensions are skipped. The pairs come in the images' name order. An
// image without a mask, a mask without an image, two files of one stem, or
// a folder without images is an error naming the files; the suffix used is
// returned.
func Pair(imageDir, maskDir string, opt PairOptions) (images, masks []string, suffix string, err error) {
	if opt.MaskSuffix != "" || !opt.AutoSuffix {
		images, masks, err = pairSuffix(imageDir, maskDir, opt, opt.MaskSuffix)
		return images, masks, opt.MaskSuffix, err
	}
	var first error
	for _, s := range append([]string{""}, CommonMaskSuffixes()...) {
		if s == "" && sameDir(imageDir, maskDir) {
			continue
		}
		images, masks, err = pairSuffix(imageDir, maskDir, opt, s)
		if err == nil {
			return images, masks, s, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, nil, "", fmt.Errorf("%w\n(tried the same stem and the mask suffixes %q)", first, CommonMaskSuffixes())
}

func sameDir(a, b string) bool {
	return filepath.Clean(a) == filepath.Clean(b)
}

func pairSuffix(imageDir, maskDir string, opt PairOptions, suffix string) (images, masks []string, err error) {
	same := sameDir(imageDir, maskDir)
	if same && suffix == "" {
		return nil, nil, fmt.Errorf("%s: images and masks in one folder need a mask suffix (such as _mask)", imageDir)
	}
	list := func(dir string, exts []string, keep func(stem string) (string, bool)) (map[string]string, error) {
		if len(exts) == 0 {
			exts = imageExts
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		m := map[string]string{}
		for _, e := range ents {
			ext := filepath.Ext(e.Name())
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !hasExt(exts, ext) {
				continue
			}
			stem, ok := keep(strings.TrimSuffix(e.Name(), ext))
			if !ok {
				continue
			}
			if prev, dup := m[stem]; dup {
				return nil, fmt.Errorf("%s: two files for stem %q: %s and %s", dir, stem, filepath.Base(prev), e.Name())
			}
			m[stem] = filepath.Join(dir, e.Name())
		}
		return m, nil
	}
	im, err := list(imageDir, opt.ImageExts, func(s string) (string, bool) {
		return s, !(same && strings.HasSuffix(s, suffix))
	})
	if err != nil {
		return nil, nil, err
	}
	if len(im) == 0 {
		return nil, nil, fmt.Errorf("%s: no images (files ending in %s)", imageDir, strings.Join(orDefault(opt.ImageExts), " "))
	}
	mm, err := list(maskDir, opt.MaskExts, func(s string) (string, bool) {
		if !strings.HasSuffix(s, suffix) {
			return s, !same && suffix == ""
		}
		return strings.TrimSuffix(s, suffix), true
	})
	if err != nil {
		return nil, nil, err
	}
	var bad []string
	stems := make([]string, 0, len(im))
	for s, p := range im {
		if _, ok := mm[s]; !ok {
			bad = append(bad, fmt.Sprintf("%s: no mask %s%s.* in %s", p, s, suffix, maskDir))
		}
		stems = append(stems, s)
	}
	for s, p := range mm {
		if _, ok := im[s]; !ok {
			bad = append(bad, fmt.Sprintf("%s: no image %s.* in %s", p, s, imageDir))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return nil, nil, errors.New("unpaired files:\n  " + strings.Join(bad, "\n  "))
	}
	sort.Strings(stems)
	for _, s := range stems {
		images, masks = append(images, im[s]), append(masks, mm[s])
	}
	return images, masks, nil
}

func orDefault(exts []string) []string {
	if len(exts) == 0 {
		return imageExts
	}
	return exts
}

// ListImages lists the images of dir in name order (for prediction, which
// needs no masks); an empty folder is an error.
func ListImages(dir string, exts ...string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && hasExt(orDefault(exts), filepath.Ext(e.Name())) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no images (files ending in %s)", dir, strings.Join(orDefault(exts), " "))
	}
	sort.Strings(out)
	return out, nil
}
