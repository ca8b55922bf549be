package data

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// writeGreyPNG writes a 1-row 8-bit grey PNG with the given values.
func writeGreyPNG(t *testing.T, path string, vals ...uint8) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, len(vals), 1))
	copy(img.Pix, vals)
	writeImagePNG(t, path, img)
}

func writeImagePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

func TestMaskFormatReadMask(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		format MaskFormat
		vals   []uint8
		want   []int32
		err    string // substring of the error; "" for none
	}{
		{"zero-one", MaskFormat{}, []uint8{0, 1, 1, 0}, []int32{0, 1, 1, 0}, ""},
		{"zero-255", MaskFormat{}, []uint8{0, 255, 0}, []int32{0, 1, 0}, ""},
		{"any two values, larger is object", MaskFormat{}, []uint8{40, 200, 40}, []int32{0, 1, 0}, ""},
		{"inverted", MaskFormat{Invert: true}, []uint8{0, 255, 255}, []int32{1, 0, 0}, ""},
		{"one value 0 is background", MaskFormat{}, []uint8{0, 0}, []int32{0, 0}, ""},
		{"one value 255 is object", MaskFormat{}, []uint8{255, 255}, []int32{1, 1}, ""},
		{"declared values", MaskFormat{Values: []float64{200, 40}}, []uint8{40, 200, 40}, []int32{1, 0, 1}, ""},
		{"declared values, other value", MaskFormat{Values: []float64{0, 255}}, []uint8{0, 255, 7}, nil, "pixel (2,0) has value 7"},
		{"three values", MaskFormat{}, []uint8{0, 128, 255}, nil, "pixel (2,0) has value 255"},
		{"ignore", MaskFormat{Ignore: []float64{128}}, []uint8{0, 128, 255}, []int32{0, IgnoreClass, 1}, ""},
		{"ignore inverted", MaskFormat{Invert: true, Ignore: []float64{128}}, []uint8{0, 128, 255}, []int32{1, IgnoreClass, 0}, ""},
		{"threshold", MaskFormat{Threshold: 128}, []uint8{0, 127, 128, 250}, []int32{0, 0, 1, 1}, ""},
		{"threshold inverted", MaskFormat{Threshold: 128, Invert: true}, []uint8{0, 127, 128, 250}, []int32{1, 1, 0, 0}, ""},
		{"index", MaskFormat{Classes: 3}, []uint8{0, 2, 1, 2}, []int32{0, 2, 1, 2}, ""},
		{"index with ignore", MaskFormat{Classes: 3, Ignore: []float64{255}}, []uint8{0, 255, 1}, []int32{0, IgnoreClass, 1}, ""},
		{"index out of range", MaskFormat{Classes: 3}, []uint8{0, 3}, nil, "pixel (1,0) has value 3; an index mask holds classes 0..2"},
		{"bad: one class", MaskFormat{Classes: 1}, []uint8{0}, nil, "1 classes"},
		{"bad: threshold and values", MaskFormat{Threshold: 1, Values: []float64{0, 1}}, []uint8{0}, nil, "one or the other"},
		{"bad: ignored class", MaskFormat{Classes: 3, Ignore: []float64{1}}, []uint8{0}, nil, "is class 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".png")
			writeGreyPNG(t, path, c.vals...)
			m, err := c.format.ReadMask(path)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				if c.format.Check() == nil && !strings.Contains(err.Error(), path) {
					t.Errorf("error %v does not name the file", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(m.Labels, c.want) {
				t.Errorf("classes %v, want %v", m.Labels, c.want)
			}
		})
	}
}

// A paletted PNG's index mask gives its palette indices, not the colours'
// luma; as a binary mask its colours count.
func TestMaskFormatPaletted(t *testing.T) {
	pal := color.Palette{color.RGBA{0, 0, 0, 255}, color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}}
	img := image.NewPaletted(image.Rect(0, 0, 3, 1), pal)
	copy(img.Pix, []uint8{2, 0, 1})
	path := filepath.Join(t.TempDir(), "p.png")
	writeImagePNG(t, path, img)
	m, err := MaskFormat{Classes: 3}.ReadMask(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{2, 0, 1}; !slices.Equal(m.Labels, want) {
		t.Errorf("index mask %v, want %v", m.Labels, want)
	}
	if _, err := (MaskFormat{}).ReadMask(path); err == nil || !strings.Contains(err.Error(), "p.png") {
		t.Errorf("binary read of a three-colour mask: %v, want an error naming the file", err)
	}
}

func TestPair(t *testing.T) {
	touch := func(t *testing.T, dir string, names ...string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = filepath.Base(p)
		}
		return out
	}
	t.Run("same stem, two folders", func(t *testing.T) {
		d := t.TempDir()
		touch(t, filepath.Join(d, "i"), "b.jpg", "a.png", "notes.txt", ".hidden.png")
		touch(t, filepath.Join(d, "m"), "a.png", "b.png")
		im, ma, suf, err := Pair(filepath.Join(d, "i"), filepath.Join(d, "m"), PairOptions{AutoSuffix: true})
		if err != nil || suf != "" || !slices.Equal(base(im), []string{"a.png", "b.jpg"}) || !slices.Equal(base(ma), []string{"a.png", "b.png"}) {
			t.Errorf("got %v %v %q %v", im, ma, suf, err)
		}
	})
	t.Run("suffix, one folder", func(t *testing.T) {
		d := t.TempDir()
		touch(t, d, "img_001.jpg", "img_001_mask.png", "img_002.jpg", "img_002_mask.png")
		im, ma, suf, err := Pair(d, d, PairOptions{AutoSuffix: true})
		if err != nil || suf != "_mask" || !slices.Equal(base(im), []string{"img_001.jpg", "img_002.jpg"}) ||
			!slices.Equal(base(ma), []string{"img_001_mask.png", "img_002_mask.png"}) {
			t.Errorf("got %v %v %q %v", im, ma, suf, err)
		}
		if _, _, _, err := Pair(d, d, PairOptions{}); err == nil || !strings.Contains(err.Error(), "need a mask suffix") {
			t.Errorf("one folder without a suffix: %v", err)
		}
	})
	t.Run("suffix, two folders", func(t *testing.T) {
		d := t.TempDir()
		touch(t, filepath.Join(d, "i"), "x.tif")
		touch(t, filepath.Join(d, "m"), "x_gt.png")
		_, ma, suf, err := Pair(filepath.Join(d, "i"), filepath.Join(d, "m"), PairOptions{AutoSuffix: true})
		if err != nil || suf != "_gt" || !slices.Equal(base(ma), []string{"x_gt.png"}) {
			t.Errorf("got %v %q %v", ma, suf, err)
		}
	})
	t.Run("unpaired", func(t *testing.T) {
		d := t.TempDir()
		touch(t, filepath.Join(d, "i"), "a.png", "b.png")
		touch(t, filepath.Join(d, "m"), "a_mask.png", "c_mask.png")
		_, _, _, err := Pair(filepath.Join(d, "i"), filepath.Join(d, "m"), PairOptions{MaskSuffix: "_mask"})
		if err == nil || !strings.Contains(err.Error(), "b.png: no mask b_mask.*") || !strings.Contains(err.Error(), "c_mask.png: no image c.*") {
			t.Errorf("unpaired: %v", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		d := t.TempDir()
		touch(t, filepath.Join(d, "i"), "readme.txt")
		touch(t, filepath.Join(d, "m"))
		if _, _, _, err := Pair(filepath.Join(d, "i"), filepath.Join(d, "m"), PairOptions{AutoSuffix: true}); err == nil || !strings.Contains(err.Error(), "no images") {
			t.Errorf("empty folder: %v", err)
		}
		if _, err := ListImages(filepath.Join(d, "i")); err == nil || !strings.Contains(err.Error(), "no images") {
			t.Errorf("ListImages of an empty folder: %v", err)
		}
	})
}

// Ignored pixels vote for no region and count in no score.
func TestIgnoredPixels(t *testing.T) {
	regions := &imageio.LabelMap{Width: 6, Height: 1, Depth: 1, Labels: []int32{0, 0, 0, 1, 1, 1}}
	truth := &imageio.LabelMap{Width: 6, Height: 1, Depth: 1, Labels: []int32{1, IgnoreClass, IgnoreClass, 0, 0, 1}}
	o, err := newOracle(regions, truth, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.RegionLabels, []int{1, 0}) {
		t.Errorf("majority %v, want [1 0] (region 0: one labelled pixel, class 1)", o.RegionLabels)
	}
	if o.Voxels.Total() != 4 || o.Voxels.Accuracy() != 0.75 {
		t.Errorf("oracle counts %v: want 4 pixels, accuracy 0.75", o.Voxels.Counts)
	}
	s := &SegmentedImage{Regions: regions, Truth: truth, Oracle: o.Voxels}
	s.Instance.Unary = [][]float64{{1}, {1}}
	c, err := s.Score([]int{0, 0})
	if err != nil || c.Total() != 4 || c.Accuracy() != 0.5 {
		t.Errorf("score: %v %v, want 4 pixels, accuracy 0.5", c, err)
	}
}
