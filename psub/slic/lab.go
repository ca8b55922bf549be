package slic

import (
	"fmt"
	"math"
	"sync"

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
	rgbToLab(out.Pix, white, sharedLabTables())
	return out, nil
}

// lutSize is the number of intervals of the interpolated tables for the
// sRGB curve and the cube root; with 16384 the interpolation error is below
// 1e-4 in L, a and b (the cube root near its toe is the worst case).
const lutSize = 16384

// labTables are piecewise-linear tables of srgbToLinear on [0, 1] and of
// labF on [labT0, 1.01]; values outside use the exact functions.
type labTables struct {
	lin, cbrt []float64
}

const labT0, labT1 = 0.008856, 1.01

// sharedLabTables are the tables, built once per process (they are
// constants; building them takes milliseconds, a tenth of a 1024×768
// conversion).
var sharedLabTables = sync.OnceValue(newLabTables)

func newLabTables() *labTables {
	t := &labTables{lin: make([]float64, lutSize+1), cbrt: make([]float64, lutSize+1)}
	for i := range lutSize + 1 {
		t.lin[i] = srgbToLinear(float64(i) / lutSize)
		t.cbrt[i] = math.Cbrt(labT0 + (labT1-labT0)*float64(i)/lutSize)
	}
	return t
}

func interp(tab []float64, u float64) float64 {
	i := int(u)
	if i >= lutSize {
		return tab[lutSize]
	}
	f := u - float64(i)
	return tab[i] + f*(tab[i+1]-tab[i])
}

func (t *labTables) linear(c float64) float64 {
	if c < 0 || c > 1 {
		return srgbToLinear(c)
	}
	return interp(t.lin, c*lutSize)
}

func (t *labTables) f(v float64) float64 {
	if v <= labT0 || v > labT1 {
		return labF(v)
	}
	return interp(t.cbrt, (v-labT0)*(lutSize/(labT1-labT0)))
}

// rgbToLab converts interleaved RGB triples in place.
func rgbToLab(pix []float32, white float32, t *labTables) {
	inv := 1 / float64(white)
	for i := 0; i+2 < len(pix); i += 3 {
		pix[i], pix[i+1], pix[i+2] = t.lab(t.linear(float64(pix[i])*inv), t.linear(float64(pix[i+1])*inv), t.linear(float64(pix[i+2])*inv))
	}
}

// lab converts linear RGB to CIELAB.
func (t *labTables) lab(r, g, b float64) (l, a, bb float32) {
	// sRGB → XYZ, divided by the D65 white point (0.95047, 1, 1.08883).
	x := (0.412453*r + 0.357580*g + 0.180423*b) / 0.95047
	y := 0.212671*r + 0.715160*g + 0.072169*b
	z := (0.019334*r + 0.119193*g + 0.950227*b) / 1.08883
	fx, fy, fz := t.f(x), t.f(y), t.f(z)
	return float32(116*fy - 16), float32(500 * (fx - fy)), float32(200 * (fy - fz))
}

// srgbToLinear undoes the sRGB transfer curve.
func srgbToLinear(c float64) float64 {
	if c > 0.04045 {
		return math.Pow((c+0.055)/1.055, 2.4)
	}
	return c / 12.92
}

// labF is the CIELAB companding function with its linear toe.
func labF(t float64) float64 {
	if t > labT0 {
		return math.Cbrt(t)
	}
	return 7.787*t + 16.0/116
}
