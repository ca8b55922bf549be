package slictest

import (
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

func TestUpscaleBilinear(t *testing.T) {
	v := imageio.NewVolume(3, 2, 1, 3)
	for i := range v.Pix {
		v.Pix[i] = float32(i * 10 % 256)
	}
	same, err := UpscaleBilinear(v, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v.Pix {
		if same.Pix[i] != v.Pix[i] {
			t.Fatalf("same-size resize changed sample %d: %g → %g", i, v.Pix[i], same.Pix[i])
		}
	}
	c := imageio.NewVolume(4, 4, 1, 1)
	for i := range c.Pix {
		c.Pix[i] = 77
	}
	up, err := UpscaleBilinear(c, 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	if up.Width != 10 || up.Height != 7 {
		t.Fatalf("size %d×%d", up.Width, up.Height)
	}
	for i, p := range up.Pix {
		if p != 77 {
			t.Fatalf("constant image: sample %d is %g", i, p)
		}
	}
	if _, err := UpscaleBilinear(c, 0, 5); err == nil {
		t.Error("no error for a 0×5 target")
	}
}

// A 2×1 ramp 0, 100 doubled to 4×1: pixel centres at 0.25, 0.75, 1.25,
// 1.75 of the source's (clamped at the ends) give 0, 25, 75, 100 by hand.
func TestUpscaleBilinearRamp(t *testing.T) {
	v := imageio.NewVolume(2, 1, 1, 1)
	v.Pix[0], v.Pix[1] = 0, 100
	up, err := UpscaleBilinear(v, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{0, 25, 75, 100}
	for i := range want {
		if up.Pix[i] != want[i] {
			t.Fatalf("ramp: %v, want %v", up.Pix, want)
		}
	}
}
