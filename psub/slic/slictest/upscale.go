package slictest

import (
	"fmt"

	"github.com/probably-submodular/crf/psub/imageio"
)

// UpscaleBilinear resizes a 2-D volume to w×h (pixel centres aligned,
// bilinear) and rounds to 8 bits, as the SLIC benchmark does with the
// first cow photograph to obtain its 1024×768 test image.
func UpscaleBilinear(v *imageio.Volume, w, h int) (*imageio.Volume, error) {
	if v.Depth != 1 || v.Width < 1 || v.Height < 1 || w < 1 || h < 1 {
		return nil, fmt.Errorf("upscale: need a non-empty 2-D image and size, got %d×%d×%d to %d×%d", v.Width, v.Height, v.Depth, w, h)
	}
	out := imageio.NewVolume(w, h, 1, v.Channels)
	for y := range h {
		fy := max((float64(y)+0.5)*float64(v.Height)/float64(h)-0.5, 0)
		y0 := min(int(fy), v.Height-1)
		y1, ty := min(y0+1, v.Height-1), float32(fy-float64(y0))
		for x := range w {
			fx := max((float64(x)+0.5)*float64(v.Width)/float64(w)-0.5, 0)
			x0 := min(int(fx), v.Width-1)
			x1, tx := min(x0+1, v.Width-1), float32(fx-float64(x0))
			for c := range v.Channels {
				p := func(x, y int) float32 { return v.Pix[v.Index(x, y, 0)+c] }
				top := p(x0, y0)*(1-tx) + p(x1, y0)*tx
				bot := p(x0, y1)*(1-tx) + p(x1, y1)*tx
				out.Pix[out.Index(x, y, 0)+c] = float32(uint8(min(max(top*(1-ty)+bot*ty+0.5, 0), 255)))
			}
		}
	}
	return out, nil
}
