package feature

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// gridScene is a w×h×d image with channels ch of random samples and a
// region map of s×s×sz blocks (regular, as a stand-in for SLIC output).
func gridScene(w, h, d, ch, s, sz int) (*imageio.Volume, *imageio.LabelMap, int) {
	rng := rand.New(rand.NewPCG(11, 12))
	img := imageio.NewVolume(w, h, d, ch)
	for i := range img.Pix {
		img.Pix[i] = float32(rng.IntN(256))
	}
	nx, ny := (w+s-1)/s, (h+s-1)/s
	m := imageio.NewLabelMap(w, h, d)
	for z := range d {
		for y := range h {
			for x := range w {
				m.Labels[m.Index(x, y, z)] = int32((z/sz*ny+y/s)*nx + x/s)
			}
		}
	}
	n, _ := Count(m)
	return img, m, n
}

// Cow setting: 1024×768 colour image, 26×20 = 520 regions.
func BenchmarkCow2D(b *testing.B) {
	img, m, _ := gridScene(1024, 768, 1, 3, 40, 1)
	b.Run("adjacency", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := Adjacency(m); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("adjacency+rgb+pairwise", func(b *testing.B) {
		loopCPU(b, func() {
			e, _ := Adjacency(m)
			u, err := CowUnary(img, m)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Pairwise(u, e); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// Retina setting: 1024×768 grey image, 520 regions, histogram + GLCM.
func BenchmarkRetina2D(b *testing.B) {
	img, m, _ := gridScene(1024, 768, 1, 1, 40, 1)
	loopCPU(b, func() {
		e, _ := Adjacency(m)
		u, err := RetinaUnary(img, m, 255)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Pairwise(u, e); err != nil {
			b.Fatal(err)
		}
	})
}

// EM quick path: 512×384×82 volume, 10×10×10 blocks = 52×39×9 = 18,252
// supervoxels.
func BenchmarkEM3D(b *testing.B) {
	img, m, _ := gridScene(512, 384, 82, 1, 10, 10)
	b.Run("adjacency", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := Adjacency(m); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("em-unary", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := EMUnary(img, m, 255); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// The paper's full EM volume: 1024×768×165 voxels, 10×10×10 blocks =
// 103×77×17 = 134,827 supervoxels. It needs about 1.5 GB and runs only when
// PSUB_BENCH_FULL=1 (go test -bench EMFull -benchtime 1x).
func BenchmarkEMFull3D(b *testing.B) {
	if os.Getenv("PSUB_BENCH_FULL") != "1" {
		b.Skip("set PSUB_BENCH_FULL=1 to run the full-volume benchmark")
	}
	img, m, _ := gridScene(1024, 768, 165, 1, 10, 10)
	b.Run("adjacency", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := Adjacency(m); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("em-unary", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := EMUnary(img, m, 255); err != nil {
				b.Fatal(err)
			}
		})
	})
}
