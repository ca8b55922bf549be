package feature

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// volume builds a volume from samples in (z, y, x, c) order.
func volume(w, h, d, ch int, pix ...float32) *imageio.Volume {
	v := imageio.NewVolume(w, h, d, ch)
	copy(v.Pix, pix)
	return v
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func rowsNear(got, want [][]float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return false
		}
		for j := range got[i] {
			if !near(got[i][j], want[i][j]) {
				return false
			}
		}
	}
	return true
}

// oneHot returns a row of dim zeros with the given cells set.
func cells(dim int, kv ...float64) []float64 {
	r := make([]float64, dim)
	for i := 0; i+1 < len(kv); i += 2 {
		r[int(kv[i])] = kv[i+1]
	}
	return r
}

func TestHistogramsHandMade(t *testing.T) {
	// Regions: 0 0 1 2 (region 3 is unused: a zero row).
	regions := labelMap(4, 1, 1, 0, 0, 1, 2)
	grey := volume(4, 1, 1, 1, 25, 26, 255, 51)
	rgb := volume(4, 1, 1, 3, 0, 0, 0, 255, 255, 255, 51, 52, 102, 103, 0, 255)
	for _, tc := range []struct {
		name string
		run  func() ([][]float64, error)
		want [][]float64
	}{
		// 10 bins over 0..255: 25 → 0, 26 → 1 (edge at 25.6), 255 → 9, 51 → 1.
		{"intensity 10 bins", func() ([][]float64, error) { return IntensityHistogram(grey, regions, 10, 255) },
			[][]float64{cells(10, 0, 0.5, 1, 0.5), cells(10, 9, 1), cells(10, 1, 1)}},
		// 5 bins per channel, edges at 51.2, 102.4: 51 → 0, 52 → 1, 102 → 1, 103 → 2.
		{"rgb 5x5x5", func() ([][]float64, error) { return ColorHistogram(rgb, regions, 5, 255) },
			[][]float64{cells(125, 0, 0.5, 124, 0.5), cells(125, (0*5+1)*5+1, 1), cells(125, (2*5+0)*5+4, 1)}},
		{"cow unary", func() ([][]float64, error) { return CowUnary(rgb, regions) },
			[][]float64{cells(125, 0, 0.5, 124, 0.5), cells(125, 6, 1), cells(125, 54, 1)}},
		{"16-bit range", func() ([][]float64, error) {
			return IntensityHistogram(volume(4, 1, 1, 1, 0, 65535, 32767, 32768), regions, 2, 65535)
		}, [][]float64{cells(2, 0, 0.5, 1, 0.5), cells(2, 0, 1), cells(2, 1, 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			if !rowsNear(got, tc.want) {
				t.Fatalf("got %v\nwant %v", got, tc.want)
			}
		})
	}
}

// randomScene is a random image and a random region map with every region
// used.
func randomScene(rng *rand.Rand, w, h, d, ch, regions int) (*imageio.Volume, *imageio.LabelMap) {
	img := imageio.NewVolume(w, h, d, ch)
	for i := range img.Pix {
		img.Pix[i] = float32(rng.IntN(256))
	}
	m := imageio.NewLabelMap(w, h, d)
	for i := range m.Labels {
		m.Labels[i] = int32(i % regions) // every region used ...
	}
	rng.Shuffle(len(m.Labels), func(i, j int) { m.Labels[i], m.Labels[j] = m.Labels[j], m.Labels[i] }) // ... in random places
	return img, m
}

func TestHistogramsSumToOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rgb, m := randomScene(rng, 9, 7, 2, 3, 5)
	grey, _ := randomScene(rng, 9, 7, 2, 1, 5)
	for _, tc := range []struct {
		name string
		run  func() ([][]float64, error)
		dim  int
	}{
		{"rgb", func() ([][]float64, error) { return ColorHistogram(rgb, m, ColorBins, 255) }, 125},
		{"intensity 40", func() ([][]float64, error) { return IntensityHistogram(grey, m, EMBins, 255) }, 40},
		{"glcm", func() ([][]float64, error) { return GLCM(grey, m, GLCMLevels, 255) }, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 5 {
				t.Fatalf("%d rows, want 5", len(rows))
			}
			for k, r := range rows {
				s := 0.0
				for _, v := range r {
					if v < 0 {
						t.Fatalf("region %d: negative value", k)
					}
					s += v
				}
				if len(r) != tc.dim || !(math.Abs(s-1) < 1e-12) {
					t.Fatalf("region %d: %d values summing to %v", k, len(r), s)
				}
			}
		})
	}
}

func TestGLCMConstantImage(t *testing.T) {
	for _, d := range []int{1, 3} {
		img := imageio.NewVolume(5, 4, d, 1)
		for i := range img.Pix {
			img.Pix[i] = 140 // level floor(140·8/256) = 4
		}
		m := imageio.NewLabelMap(5, 4, d) // one region
		rows, err := GLCM(img, m, 8, 255)
		if err != nil {
			t.Fatal(err)
		}
		if want := cells(64, 4*8+4, 1); !rowsNear(rows, [][]float64{want}) {
			t.Fatalf("depth %d: GLCM %v, want a single cell (4,4)", d, rows[0])
		}
	}
}

func TestGLCMHandMade(t *testing.T) {
	// Region 0 is the left column, region 1 the right one. Within region 0
	// the only pair is vertical (0, 255); within region 1, (32, 32). The
	// horizontal pairs cross regions and do not count.
	img := volume(2, 2, 1, 1, 0, 32, 255, 32)
	m := labelMap(2, 2, 1, 0, 1, 0, 1)
	rows, err := GLCM(img, m, 8, 255)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{cells(64, 0*8+7, 0.5, 7*8+0, 0.5), cells(64, 1*8+1, 1)}
	if !rowsNear(rows, want) {
		t.Fatalf("got %v\nwant %v", rows, want)
	}
	single, err := GLCM(volume(1, 1, 1, 1, 9), labelMap(1, 1, 1, 0), 8, 255)
	if err != nil || !rowsNear(single, [][]float64{make([]float64, 64)}) {
		t.Fatalf("single voxel: %v, %v; want a zero row", single, err)
	}
}

// bruteGLCM enumerates all voxel pairs at Manhattan distance 1 in the same
// region: an independent oracle for GLCM.
func bruteGLCM(img *imageio.Volume, m *imageio.LabelMap, n, levels int) [][]float64 {
	rows := make([][]float64, n)
	for k := range rows {
		rows[k] = make([]float64, levels*levels)
	}
	lvl := func(v float32) int { return min(levels-1, int(math.Floor(float64(v)*float64(levels)/256))) }
	for i := range m.Labels {
		xi, yi, zi := coords(m, i)
		for j := i + 1; j < len(m.Labels); j++ {
			xj, yj, zj := coords(m, j)
			if abs(xi-xj)+abs(yi-yj)+abs(zi-zj) == 1 && m.Labels[i] == m.Labels[j] {
				a, b := lvl(img.Pix[i]), lvl(img.Pix[j])
				rows[m.Labels[i]][a*levels+b]++
				rows[m.Labels[i]][b*levels+a]++
			}
		}
	}
	for _, r := range rows {
		s := 0.0
		for _, v := range r {
			s += v
		}
		for j := range r {
			if s > 0 {
				r[j] /= s
			}
		}
	}
	return rows
}

func TestGLCMBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 20 {
		w, h, d := 1+rng.IntN(5), 1+rng.IntN(5), 1+rng.IntN(3)
		img, _ := randomScene(rng, w, h, d, 1, 1)
		m := imageio.NewLabelMap(w, h, d)
		for i := range m.Labels {
			m.Labels[i] = int32(rng.IntN(3))
		}
		n, _ := Count(m)
		got, err := GLCM(img, m, 8, 255)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteGLCM(img, m, n, 8); !rowsNear(got, want) {
			t.Fatalf("trial %d: GLCM differs from brute force", trial)
		}
	}
}

func TestConcatBiasPairwise(t *testing.T) {
	a := [][]float64{{1, 2}, {3, 4}, {0.5, 9}}
	b := [][]float64{{7}, {8}, {9}}
	got, err := Concat(a, b, Bias(3))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{1, 2, 7, 1}, {3, 4, 8, 1}, {0.5, 9, 9, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("concat %v, want %v", got, want)
	}
	if _, err := Concat(a, b[:2]); err == nil {
		t.Fatal("row count mismatch accepted")
	}
	p, err := Pairwise(got, [][2]int{{0, 1}, {1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	wantP := [][]float64{{2, 2, 1, 0}, {2.5, 5, 1, 0}}
	if !reflect.DeepEqual(p, wantP) {
		t.Fatalf("pairwise %v, want %v", p, wantP)
	}
	if _, err := Pairwise(got, [][2]int{{0, 3}}); err == nil || !strings.Contains(err.Error(), "edge 0 (0,3)") {
		t.Fatalf("out-of-range edge: err = %v", err)
	}
}

func TestPaperDescriptorDims(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	grey, m := randomScene(rng, 6, 5, 3, 1, 4)
	for _, tc := range []struct {
		name string
		run  func() ([][]float64, error)
		dim  int
	}{
		{"retina", func() ([][]float64, error) { return RetinaUnary(grey, m, 255) }, 74},
		{"em", func() ([][]float64, error) { return EMUnary(grey, m, 255) }, 105},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				if len(r) != tc.dim {
					t.Fatalf("%d values, want %d", len(r), tc.dim)
				}
			}
		})
	}
}

func TestDescriptorErrors(t *testing.T) {
	grey := imageio.NewVolume(3, 2, 1, 1)
	rgb := imageio.NewVolume(3, 2, 1, 3)
	m := imageio.NewLabelMap(3, 2, 1)
	small := imageio.NewLabelMap(2, 2, 1)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"rgb on grey", second(ColorHistogram(grey, m, 5, 255)), "needs 3"},
		{"glcm on rgb", second(GLCM(rgb, m, 8, 255)), "needs 1"},
		{"size mismatch", second(IntensityHistogram(grey, small, 10, 255)), "3x2x1 but region map is 2x2x1"},
		{"zero bins", second(IntensityHistogram(grey, m, 0, 255)), "bins"},
		{"bad max", second(IntensityHistogram(grey, m, 4, 0)), "maximum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", tc.err, tc.want)
			}
		})
	}
}

func second[T any](_ T, err error) error { return err }
