package imageio

import "fmt"

// Thresholds for the data sets' masks (see the data README): the TU
// Darmstadt cow masks are 1-bit PNGs (decoded as 0/255, foreground Y > 0),
// the EPFL derived masks are 0/255 PNGs, and the Weizmann horse masks are
// JPEGs whose foreground is Y >= 128.
const (
	ThresholdNonZero float32 = 1   // Y >= 1, i.e. Y > 0 for integer images
	ThresholdHalf    float32 = 128 // Y >= 128
)

// MaskFromVolume thresholds v into a 0/1 label map: 1 where the sample (the
// luma for a colour volume, see Luma) is >= threshold, 0 elsewhere.
func MaskFromVolume(v *Volume, threshold float32) *LabelMap {
	if v.Channels != 1 {
		v = Luma(v)
	}
	m := NewLabelMap(v.Width, v.Height, v.Depth)
	for i, p := range v.Pix {
		if p >= threshold {
			m.Labels[i] = 1
		}
	}
	return m
}

// ReadMask reads a binary mask (any format ReadImage reads; a multi-page
// TIFF gives a 3-D mask) and thresholds it with MaskFromVolume.
func ReadMask(path string, threshold float32) (*LabelMap, error) {
	v, err := ReadImage(path)
	if err != nil {
		return nil, err
	}
	return MaskFromVolume(v, threshold), nil
}

// CheckSameSize returns an error naming both files when the image and the
// mask differ in width, height or depth.
func CheckSameSize(imagePath string, img *Volume, maskPath string, mask *LabelMap) error {
	if img.Width != mask.Width || img.Height != mask.Height || img.Depth != mask.Depth {
		return fmt.Errorf("image %s is %dx%dx%d but mask %s is %dx%dx%d",
			imagePath, img.Width, img.Height, img.Depth, maskPath, mask.Width, mask.Height, mask.Depth)
	}
	return nil
}

// ReadImageMask reads an image and its binary mask and checks that they
// have the same size.
func ReadImageMask(imagePath, maskPath string, threshold float32) (*Volume, *LabelMap, error) {
	img, err := ReadImage(imagePath)
	if err != nil {
		return nil, nil, err
	}
	mask, err := ReadMask(maskPath, threshold)
	if err != nil {
		return nil, nil, err
	}
	if err := CheckSameSize(imagePath, img, maskPath, mask); err != nil {
		return nil, nil, err
	}
	return img, mask, nil
}
