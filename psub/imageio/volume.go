package imageio

import "fmt"

// Volume is a dense raster of Width×Height×Depth samples with Channels values
// each: a 2-D image has Depth 1, a greyscale stack has Channels 1. Sample
// (x, y, z, c) is Pix[((z*Height+y)*Width+x)*Channels+c]. Values keep the
// range of the source (0–255 for 8-bit, 0–65535 for 16-bit) unless a
// function says otherwise.
type Volume struct {
	Width, Height, Depth, Channels int
	Pix                            []float32
}

// NewVolume allocates a zero volume.
func NewVolume(width, height, depth, channels int) *Volume {
	return &Volume{width, height, depth, channels, make([]float32, width*height*depth*channels)}
}

// Index is the offset of channel 0 of voxel (x, y, z) in Pix.
func (v *Volume) Index(x, y, z int) int { return ((z*v.Height+y)*v.Width + x) * v.Channels }

// Voxels is Width×Height×Depth.
func (v *Volume) Voxels() int { return v.Width * v.Height * v.Depth }

// Check reports whether the dimensions are positive and match len(Pix).
func (v *Volume) Check() error {
	if v.Width <= 0 || v.Height <= 0 || v.Depth <= 0 || v.Channels <= 0 {
		return fmt.Errorf("volume %dx%dx%d with %d channels: every dimension must be positive", v.Width, v.Height, v.Depth, v.Channels)
	}
	if n := v.Voxels() * v.Channels; len(v.Pix) != n {
		return fmt.Errorf("volume %dx%dx%dx%d: %d samples, expected %d", v.Width, v.Height, v.Depth, v.Channels, len(v.Pix), n)
	}
	return nil
}

// LabelMap assigns an integer label (a class, or a superpixel/supervoxel
// id) to every voxel of a Width×Height×Depth grid, in the same order as
// Volume.
type LabelMap struct {
	Width, Height, Depth int
	Labels               []int32
}

// NewLabelMap allocates a label map of zeros.
func NewLabelMap(width, height, depth int) *LabelMap {
	return &LabelMap{width, height, depth, make([]int32, width*height*depth)}
}

// Index is the offset of voxel (x, y, z) in Labels.
func (m *LabelMap) Index(x, y, z int) int { return (z*m.Height+y)*m.Width + x }
