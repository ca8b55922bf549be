package slic

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/psub/imageio"
)

// RGBToLab converts a 3-channel sRGB volume to CIELAB (D65 white, 2°
// observer, the constants of scikit-image's rgb2lab). white is the sample
// value of full intensity: 255 for 8-bit data, 1 for data in [0, 1]. L is in
// [0, 100]; a and b are roughly in [-128, 127].
func RGBToLab(v *imageio.Volume, white float32) (*imageio.Volume, error) {
	if v == nil {
		return nil, fmt.Errorf("slic: RGBToLab: nil volume")
	}
	if err := v.Check(); err != nil {
		return nil, fmt.Errorf("slic: RGBToLab: %w", err)
	}
	if v.Channels != 3 {
		return nil, fmt.Errorf("slic: RGBToLab: volume has %d channels, expected 3 (RGB)", v.Channels)
	}
	if !(white > 0) || math.IsInf(float64(white), 0) {
		return nil, fmt.Errorf("slic: RGBToLab: white = %v, must be finite and positive", white)
	}
	out := &imageio.Volume{Width: v.Width, Height: v.Height, Depth: v.Depth, Channels: 3, Pix: make([]float32, len(v.Pix))}
	copy(out.Pix, v.Pix)
	rgbToLab(out.Pix, white)
	return out, nil
}

// rgbToLab converts interleaved RGB triples in place.
func rgbToLab(pix []float32, white float32) {
	inv := 1 / float64(white)
	for i := 0; i+2 < len(pix); i += 3 {
		r := srgbToLinear(float64(pix[i]) * inv)
		g := srgbToLinear(float64(pix[i+1]) * inv)
		b := srgbToLinear(float64(pix[i+2]) * inv)
		// sRGB → XYZ, divided by the D65 white point (0.95047, 1, 1.08883).
		x := (0.412453*r + 0.357580*g + 0.180423*b) / 0.95047
		y := 0.212671*r + 0.715160*g + 0.072169*b
		z := (0.019334*r + 0.119193*g + 0.950227*b) / 1.08883
		fx, fy, fz := labF(x), labF(y), labF(z)
		pix[i] = float32(116*fy - 16)
		pix[i+1] = float32(500 * (fx - fy))
		pix[i+2] = float32(200 * (fy - fz))
	}
}

// srgbToLinear undoes the sRGB transfer curve.
func srgbToLinear(c float64) float64 {
	if c > 0.04045 {
		return math.Exp(2.4 * math.Log((c+0.055)/1.055))
	}
	return c / 12.92
}

// labF is the CIELAB companding function with its linear toe.
func labF(t float64) float64 {
	if t > 0.008856 {
		return math.Cbrt(t)
	}
	return 7.787*t + 16.0/116
}
