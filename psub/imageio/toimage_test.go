package imageio

import (
	"image"
	"image/color"
	"testing"
)

func TestSliceImage(t *testing.T) {
	v := NewVolume(2, 1, 2, 1)
	copy(v.Pix, []float32{0, 255, 10, 20})
	g := v.SliceImage(1).(*image.Gray)
	if g.GrayAt(0, 0).Y != 10 || g.GrayAt(1, 0).Y != 20 {
		t.Fatalf("slice 1: %v", g.Pix)
	}
	w := NewVolume(1, 1, 1, 3)
	copy(w.Pix, []float32{1, 2, 3})
	if c := w.ToImage().(*image.NRGBA).NRGBAAt(0, 0); c != (color.NRGBA{1, 2, 3, 255}) {
		t.Fatalf("rgb %v", c)
	}
	s := NewVolume(1, 1, 1, 1)
	s.Pix[0] = 65535
	if y := s.ToImage().(*image.Gray).GrayAt(0, 0).Y; y != 255 {
		t.Fatalf("16-bit scaled to %d", y)
	}
}
