package imageio

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
)

func TestFromImage(t *testing.T) {
	gray := image.NewGray(image.Rect(0, 0, 2, 1))
	gray.Pix = []byte{7, 255}
	gray16 := image.NewGray16(image.Rect(0, 0, 2, 1))
	gray16.Pix = []byte{0x12, 0x34, 0xff, 0xff}
	rgba := image.NewRGBA(image.Rect(0, 0, 1, 1))
	rgba.Pix = []byte{1, 2, 3, 255}
	nrgba := image.NewNRGBA(image.Rect(0, 0, 1, 1))
	nrgba.Pix = []byte{10, 20, 30, 128} // translucent: colour kept, alpha dropped
	pal := image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.RGBA{9, 8, 7, 255}})
	rgba64 := image.NewRGBA64(image.Rect(0, 0, 1, 1))
	rgba64.SetRGBA64(0, 0, color.RGBA64{1000, 2000, 65535, 65535})
	sub := image.NewGray(image.Rect(0, 0, 3, 2))
	sub.Pix = []byte{1, 2, 3, 4, 5, 6}
	for _, tc := range []struct {
		name     string
		img      image.Image
		w, h, ch int
		want     []float32
	}{
		{"gray", gray, 2, 1, 1, []float32{7, 255}},
		{"gray16", gray16, 2, 1, 1, []float32{0x1234, 65535}},
		{"rgba opaque", rgba, 1, 1, 3, []float32{1, 2, 3}},
		{"nrgba translucent", nrgba, 1, 1, 3, []float32{10, 20, 30}},
		{"paletted", pal, 1, 1, 3, []float32{9, 8, 7}},
		{"rgba64", rgba64, 1, 1, 3, []float32{1000, 2000, 65535}},
		{"sub-image with offset", sub.SubImage(image.Rect(1, 1, 3, 2)), 2, 1, 1, []float32{5, 6}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := FromImage(tc.img)
			if err := v.Check(); err != nil {
				t.Fatal(err)
			}
			if v.Width != tc.w || v.Height != tc.h || v.Depth != 1 || v.Channels != tc.ch {
				t.Fatalf("got %dx%dx%d ch %d, want %dx%dx1 ch %d", v.Width, v.Height, v.Depth, v.Channels, tc.w, tc.h, tc.ch)
			}
			for i := range tc.want {
				if v.Pix[i] != tc.want[i] {
					t.Fatalf("Pix = %v, want %v", v.Pix, tc.want)
				}
			}
		})
	}
}

// gradient is a w×h grey image with distinct values, for round trips.
func gradient(w, h int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = byte(i * 7)
	}
	return g
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

var pngEncode = png.Encode

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := pngEncode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadImageFormats(t *testing.T) {
	dir := t.TempDir()
	g := gradient(5, 3)
	var bmpBuf, jpgBuf bytes.Buffer
	if err := bmp.Encode(&bmpBuf, g); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpgBuf, g, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	rgb := image.NewRGBA(image.Rect(0, 0, 5, 3))
	for i := range rgb.Pix {
		rgb.Pix[i] = byte(i)
		if i%4 == 3 {
			rgb.Pix[i] = 255
		}
	}
	g16 := image.NewGray16(image.Rect(0, 0, 5, 3))
	for i := range g16.Pix {
		g16.Pix[i] = byte(i * 37)
	}
	for _, tc := range []struct {
		name  string
		data  []byte
		ch    int
		exact []float32 // nil: lossy format, size only
	}{
		{"gray.png", encodePNG(t, g), 1, FromImage(g).Pix},
		{"rgb.png", encodePNG(t, rgb), 3, FromImage(rgb).Pix},
		{"gray16.png", encodePNG(t, g16), 1, FromImage(g16).Pix},
		{"gray.bmp", bmpBuf.Bytes(), 3, nil}, // BMP has no grey type: x/image/bmp writes a palette
		{"gray.jpg", jpgBuf.Bytes(), 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			writeFile(t, p, tc.data)
			v, err := ReadImage(p)
			if err != nil {
				t.Fatal(err)
			}
			if v.Width != 5 || v.Height != 3 || v.Depth != 1 || v.Channels != tc.ch {
				t.Fatalf("got %dx%dx%d ch %d", v.Width, v.Height, v.Depth, v.Channels)
			}
			if tc.exact != nil && !equalF32(v.Pix, tc.exact) {
				t.Fatalf("Pix = %v, want %v", v.Pix, tc.exact)
			}
			if tc.name == "gray.bmp" {
				for i := 0; i < 15; i++ {
					if v.Pix[3*i] != float32(g.Pix[i]) {
						t.Fatalf("bmp pixel %d = %v, want %v", i, v.Pix[3*i], g.Pix[i])
					}
				}
			}
		})
	}
}

func TestReadImageErrors(t *testing.T) {
	dir := t.TempDir()
	full := encodePNG(t, gradient(20, 20))
	cases := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"garbage", "junk.png", []byte("this is not an image at all"), "not a PNG"},
		{"truncated png", "cut.png", full[:len(full)/2], "cut.png"},
		{"empty file", "empty.png", nil, "empty.png"},
		{"truncated tiff header", "cut.tif", []byte("II*\x00\x08"), "cut.tif"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.file)
			writeFile(t, p, tc.data)
			_, err := ReadImage(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
	if _, err := ReadImage(filepath.Join(dir, "missing.png")); err == nil || !strings.Contains(err.Error(), "missing.png") {
		t.Fatalf("missing file: err = %v", err)
	}
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReadStack(t *testing.T) {
	dir := t.TempDir()
	var want []float32
	for z := 0; z < 3; z++ {
		g := gradient(4, 2)
		for i := range g.Pix {
			g.Pix[i] += byte(z)
		}
		want = append(want, FromImage(g).Pix...)
		writeFile(t, filepath.Join(dir, "s_"+string(rune('0'+z))+".png"), encodePNG(t, g))
	}
	paths, err := filepath.Glob(filepath.Join(dir, "s_*.png"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := ReadStack(paths)
	if err != nil {
		t.Fatal(err)
	}
	if v.Width != 4 || v.Height != 2 || v.Depth != 3 || v.Channels != 1 || !equalF32(v.Pix, want) {
		t.Fatalf("got %dx%dx%d ch %d", v.Width, v.Height, v.Depth, v.Channels)
	}
	if at := v.Pix[v.Index(1, 1, 2)]; at != float32(byte(5*7+2)) {
		t.Fatalf("voxel (1,1,2) = %v", at)
	}

	writeFile(t, filepath.Join(dir, "bad_size.png"), encodePNG(t, gradient(3, 2)))
	writeFile(t, filepath.Join(dir, "bad_data.png"), []byte("nope"))
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"size mismatch", []string{filepath.Join(dir, "s_0.png"), filepath.Join(dir, "bad_size.png")}, "bad_size.png: 3x2"},
		{"unreadable", []string{filepath.Join(dir, "s_0.png"), filepath.Join(dir, "bad_data.png")}, "bad_data.png"},
		{"empty", nil, "no files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadStack(tc.paths)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
}

func TestMasks(t *testing.T) {
	dir := t.TempDir()
	g := image.NewGray(image.Rect(0, 0, 4, 1))
	g.Pix = []byte{0, 1, 127, 128}
	p := filepath.Join(dir, "m.png")
	writeFile(t, p, encodePNG(t, g))
	for _, tc := range []struct {
		name      string
		threshold float32
		want      []int32
	}{
		{"non-zero (cows, EM)", ThresholdNonZero, []int32{0, 1, 1, 1}},
		{"half (horses)", ThresholdHalf, []int32{0, 0, 0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMask(p, tc.threshold)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.want {
				if m.Labels[i] != tc.want[i] {
					t.Fatalf("labels %v, want %v", m.Labels, tc.want)
				}
			}
		})
	}
	img := filepath.Join(dir, "img.png")
	writeFile(t, img, encodePNG(t, gradient(5, 1)))
	_, _, err := ReadImageMask(img, p, 1)
	if err == nil || !strings.Contains(err.Error(), "img.png") || !strings.Contains(err.Error(), "m.png") {
		t.Fatalf("size mismatch: err = %v, want both file names", err)
	}
}

func TestLabelPNGRoundTrip(t *testing.T) {
	m := NewLabelMap(3, 2, 1)
	m.Labels = []int32{0, 1, 300, 65535, 7, 2}
	p := filepath.Join(t.TempDir(), "labels.png")
	if err := WriteLabelPNG(p, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadImage(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Channels != 1 || len(got.Pix) != len(m.Labels) {
		t.Fatalf("read back %dx%dx%d with %d channels", got.Width, got.Height, got.Depth, got.Channels)
	}
	for i := range m.Labels {
		if got.Pix[i] != float32(m.Labels[i]) {
			t.Fatalf("got %v, want %v", got.Pix, m.Labels)
		}
	}
	m.Labels[0] = 70000
	if err := WriteLabelPNG(p, m); err == nil {
		t.Fatal("label 70000 written without error")
	}
}

func TestRealData(t *testing.T) {
	for _, tc := range []struct {
		name, image, mask string
		threshold         float32
		w, h, ch          int
		minFg, maxFg      float64 // foreground fraction bounds from the data README
	}{
		{"cow", "tud_cows/images/cow-pic110-sml-lt.png", "tud_cows/masks/cow-pic110-sml-lt.png", ThresholdNonZero, 368, 272, 3, 0.087, 0.293},
		{"horse", "weizmann_horse/gray/horse001.jpg", "weizmann_horse/figure_ground/horse001.jpg", ThresholdHalf, 0, 0, 1, 0.052, 0.431},
		{"em slice", "epfl_mito/training/images/train_001.png", "epfl_mito/training/masks_derived/train_001.png", ThresholdNonZero, 1024, 768, 1, 0.033, 0.084},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The data set's folder (needData skips, saying where it looked,
			// when it is missing); a missing file in it is a failure.
			set, _, _ := strings.Cut(tc.image, "/")
			dataDir := filepath.Dir(needData(t, set))
			ip, mp := filepath.Join(dataDir, tc.image), filepath.Join(dataDir, tc.mask)
			img, mask, err := ReadImageMask(ip, mp, tc.threshold)
			if err != nil {
				t.Fatal(err)
			}
			if (tc.w > 0 && (img.Width != tc.w || img.Height != tc.h)) || img.Channels != tc.ch || img.Depth != 1 {
				t.Fatalf("image %dx%dx%d ch %d", img.Width, img.Height, img.Depth, img.Channels)
			}
			if tc.name == "em slice" {
				// Three consecutive slices as a stack, image and mask.
				var ips, mps []string
				for _, s := range []string{"001", "002", "003"} {
					ips = append(ips, filepath.Join(dataDir, "epfl_mito/training/images/train_"+s+".png"))
					mps = append(mps, filepath.Join(dataDir, "epfl_mito/training/masks_derived/train_"+s+".png"))
				}
				vol, err := ReadStack(ips)
				if err != nil {
					t.Fatal(err)
				}
				mvol, err := ReadStack(mps)
				if err != nil {
					t.Fatal(err)
				}
				mv := MaskFromVolume(mvol, ThresholdNonZero)
				if err := CheckSameSize(ips[0], vol, mps[0], mv); err != nil || vol.Depth != 3 || !equalF32(vol.Pix[:len(img.Pix)], img.Pix) {
					t.Fatalf("EM stack %dx%dx%d: %v", vol.Width, vol.Height, vol.Depth, err)
				}
			}
			fg := 0
			for _, l := range mask.Labels {
				fg += int(l)
			}
			if f := float64(fg) / float64(len(mask.Labels)); f < tc.minFg || f > tc.maxFg {
				t.Fatalf("foreground fraction %.3f outside [%v, %v]", f, tc.minFg, tc.maxFg)
			}
		})
	}
}
