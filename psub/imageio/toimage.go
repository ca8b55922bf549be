package imageio

import "image"

// SliceImage returns slice z as a Go image for display: grey for one
// channel, RGB for three (other channel counts show channel 0). Samples are
// taken as 0–255; a slice whose maximum exceeds 255 (16-bit data) is scaled
// to that range.
func (v *Volume) SliceImage(z int) image.Image {
	n := v.Width * v.Height * v.Channels
	pix := v.Pix[z*n : (z+1)*n]
	scale := float32(1)
	for _, s := range pix {
		if s > 255 && 255/s < scale {
			scale = 255 / s
		}
	}
	clamp := func(s float32) uint8 {
		s = s*scale + 0.5
		if s < 0 {
			return 0
		}
		if s > 255 {
			return 255
		}
		return uint8(s)
	}
	if v.Channels == 3 {
		img := image.NewNRGBA(image.Rect(0, 0, v.Width, v.Height))
		for i := 0; i < v.Width*v.Height; i++ {
			img.Pix[4*i], img.Pix[4*i+1], img.Pix[4*i+2], img.Pix[4*i+3] = clamp(pix[3*i]), clamp(pix[3*i+1]), clamp(pix[3*i+2]), 255
		}
		return img
	}
	img := image.NewGray(image.Rect(0, 0, v.Width, v.Height))
	for i := 0; i < v.Width*v.Height; i++ {
		img.Pix[i] = clamp(pix[i*v.Channels])
	}
	return img
}

// ToImage is SliceImage(0), the image of a 2-D volume.
func (v *Volume) ToImage() image.Image { return v.SliceImage(0) }
