package slic

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic/slictest"
)

// writeRGBPNG saves an 8-bit RGB copy of v, for the scikit-image yardstick.
func writeRGBPNG(file string, v *imageio.Volume) error {
	img := image.NewRGBA(image.Rect(0, 0, v.Width, v.Height))
	q := func(f float32) uint8 { return uint8(min(max(f+0.5, 0), 255)) }
	for y := range v.Height {
		for x := range v.Width {
			i := v.Index(x, y, 0)
			img.Set(x, y, color.RGBA{q(v.Pix[i]), q(v.Pix[i+1]), q(v.Pix[i+2]), 255})
		}
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	defer f.Close()
	return png.Encode(f, img)
}

// cow1024 is the first cow image upscaled to 1024×768 and rounded to 8 bits
// (exactly what the yardstick reads); SLIC_BENCH_PNG=file saves it.
func cow1024(b *testing.B) *imageio.Volume {
	v, err := slictest.UpscaleBilinear(loadCow(b), 1024, 768)
	if err != nil {
		b.Fatal(err)
	}
	if file := os.Getenv("SLIC_BENCH_PNG"); file != "" {
		if err := writeRGBPNG(file, v); err != nil {
			b.Fatal(err)
		}
	}
	return v
}

// BenchmarkSegment2D: 1024×768 colour, 500 segments, m = 20, σ = 2 (the
// cows protocol), on a real cow photograph upscaled; and on the synthetic
// natural-like image when the data set is missing.
func BenchmarkSegment2D(b *testing.B) {
	opt := Options{Segments: 500, Compactness: 20, Sigma: 2, Lab: true}
	b.Run("cow1024x768", func(b *testing.B) {
		benchSegment(b, cow1024(b), opt)
	})
	// scikit-image's ±2S search window, for a like-for-like comparison.
	b.Run("cow1024x768-radius2", func(b *testing.B) {
		o := opt
		o.SearchRadius = 2
		benchSegment(b, cow1024(b), o)
	})
	b.Run("synthetic1024x768", func(b *testing.B) {
		benchSegment(b, naturalImage(1024, 768, 1, 3, 99), opt)
	})
}

func benchSegment(b *testing.B, v *imageio.Volume, opt Options) {
	b.ReportAllocs()
	var n int
	cpu0 := cpuSeconds()
	for b.Loop() {
		var err error
		if _, n, err = Segment(v, opt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "segments")
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// loadEMCrop reads slices [0, d) of the EPFL training volume, cropped to
// w×h at the origin (8-bit grey PNG slices, read with image/png here).
func loadEMCrop(tb testing.TB, w, h, d int) *imageio.Volume {
	tb.Helper()
	dir := needData(tb, "epfl_mito/training/images")
	v := imageio.NewVolume(w, h, d, 1)
	for z := range d {
		file := filepath.Join(dir, fmt.Sprintf("train_%03d.png", z+1))
		f, err := os.Open(file)
		if err != nil {
			tb.Fatalf("EM volume in %s incomplete: %v", dir, err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		g, ok := img.(*image.Gray)
		if !ok || g.Bounds().Dx() < w || g.Bounds().Dy() < h {
			tb.Fatalf("%s: want 8-bit grey of at least %dx%d, got %T %v", file, w, h, img, img.Bounds())
		}
		for y := range h {
			row := g.Pix[y*g.Stride:]
			for x := range w {
				v.Pix[v.Index(x, y, z)] = float32(row[x])
			}
		}
	}
	return v
}

// BenchmarkSegment3D: supervoxels on the 512×384×82 corner crop of the EM
// training volume with the density of the paper's 130K supervoxels on
// 1024×768×165 (16000 here), m = 20, σ = 5.
func BenchmarkSegment3D(b *testing.B) {
	v := loadEMCrop(b, 512, 384, 82)
	opt := Options{Segments: 16000, Compactness: 20, Sigma: 5}
	b.Run("radius1", func(b *testing.B) { benchSegment(b, v, opt) })
	opt.SearchRadius = 2
	b.Run("radius2", func(b *testing.B) {
		if testing.Short() {
			b.Skip("the ±2S window is 8× the work in 3-D; skipped with -short")
		}
		benchSegment(b, v, opt)
	})
}

// BenchmarkSegment3DFullVolume: the paper's setting, about 130K
// supervoxels on the whole 1024×768×165 training volume, m = 20, σ = 5.
// Long (minutes on 2 cores) and about 2.6 GB: skipped with -short.
func BenchmarkSegment3DFullVolume(b *testing.B) {
	if testing.Short() {
		b.Skip("full EM volume skipped with -short")
	}
	v := loadEMCrop(b, 1024, 768, 165)
	benchSegment(b, v, Options{Segments: 130000, Compactness: 20, Sigma: 5})
}
