package slic

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// naturalImage is a deterministic "natural-like" test image: a few large
// soft colour blobs over a gradient, plus pixel noise, all from seed.
func naturalImage(w, h, d, channels int, seed uint64) *imageio.Volume {
	rng := rand.New(rand.NewPCG(seed, 1))
	v := imageio.NewVolume(w, h, d, channels)
	type blob struct {
		x, y, z, r float64
		col        []float64
	}
	blobs := make([]blob, 12)
	for i := range blobs {
		b := blob{rng.Float64() * float64(w), rng.Float64() * float64(h), rng.Float64() * float64(d),
			(0.1 + 0.25*rng.Float64()) * float64(min(w, h)), make([]float64, channels)}
		for c := range b.col {
			b.col[c] = 255 * rng.Float64()
		}
		blobs[i] = b
	}
	for z := range d {
		for y := range h {
			for x := range w {
				i := v.Index(x, y, z)
				for c := range channels {
					val := 60 * float64(x+c*y) / float64(w+h)
					for _, b := range blobs {
						dx, dy, dz := float64(x)-b.x, float64(y)-b.y, float64(z)-b.z
						if dx*dx+dy*dy+dz*dz < b.r*b.r {
							val = b.col[c]
						}
					}
					val += 10 * rng.NormFloat64()
					v.Pix[i+c] = float32(min(max(val, 0), 255))
				}
			}
		}
	}
	return v
}

// componentsPerLabel counts, for every label, its 4-/6-connected
// components by breadth-first search: an independent check of the
// connectivity pass.
func componentsPerLabel(m *imageio.LabelMap) map[int32]int {
	seen := make([]bool, len(m.Labels))
	comps := map[int32]int{}
	W, H, D := m.Width, m.Height, m.Depth
	for start := range m.Labels {
		if seen[start] {
			continue
		}
		l := m.Labels[start]
		comps[l]++
		seen[start] = true
		queue := []int{start}
		for len(queue) > 0 {
			i := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			x, y, z := i%W, (i/W)%H, i/(W*H)
			for _, d := range [][3]int{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}} {
				nx, ny, nz := x+d[0], y+d[1], z+d[2]
				if nx < 0 || ny < 0 || nz < 0 || nx >= W || ny >= H || nz >= D {
					continue
				}
				n := m.Index(nx, ny, nz)
				if !seen[n] && m.Labels[n] == l {
					seen[n] = true
					queue = append(queue, n)
				}
			}
		}
	}
	return comps
}

// checkLabels verifies labels 0..n-1 are all used and, if connected, that
// each is one component.
func checkLabels(t *testing.T, m *imageio.LabelMap, n int, connected bool) {
	t.Helper()
	used := make([]bool, n)
	for i, l := range m.Labels {
		if l < 0 || int(l) >= n {
			t.Fatalf("voxel %d has label %d, want 0..%d", i, l, n-1)
		}
		used[l] = true
	}
	if i := slices.Index(used, false); i >= 0 {
		t.Fatalf("label %d of %d unused", i, n)
	}
	if !connected {
		return
	}
	for l, c := range componentsPerLabel(m) {
		if c != 1 {
			t.Fatalf("label %d has %d connected components, want 1", l, c)
		}
	}
}

func loadCow(t testing.TB) *imageio.Volume {
	t.Helper()
	dir := needData(t, "tud_cows/images")
	names, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(names) == 0 {
		t.Fatalf("no cow images (*.png) in %s", dir)
	}
	f, err := os.Open(names[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", names[0], err)
	}
	return rgbVolume(img)
}

func rgbVolume(img image.Image) *imageio.Volume {
	b := img.Bounds()
	v := imageio.NewVolume(b.Dx(), b.Dy(), 1, 3)
	for y := range b.Dy() {
		for x := range b.Dx() {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			i := v.Index(x, y, 0)
			v.Pix[i], v.Pix[i+1], v.Pix[i+2] = float32(r>>8), float32(g>>8), float32(bl>>8)
		}
	}
	return v
}

func TestSegmentCountAndConnectivity(t *testing.T) {
	cases := []struct {
		name string
		v    func(t *testing.T) *imageio.Volume
		opt  Options
	}{
		{"colour 200x150 n=100", func(*testing.T) *imageio.Volume { return naturalImage(200, 150, 1, 3, 1) }, Options{Segments: 100, Compactness: 20, Sigma: 2, Lab: true}},
		{"colour 200x150 n=500 m=5", func(*testing.T) *imageio.Volume { return naturalImage(200, 150, 1, 3, 2) }, Options{Segments: 500, Compactness: 5, Sigma: 1, Lab: true}},
		{"grey 160x120 n=300", func(*testing.T) *imageio.Volume { return naturalImage(160, 120, 1, 1, 3) }, Options{Segments: 300, Compactness: 0.1, Sigma: 1}},
		{"grey 0-255 KeepRange", func(*testing.T) *imageio.Volume { return naturalImage(160, 120, 1, 1, 4) }, Options{Segments: 200, Compactness: 40, Sigma: 1, KeepRange: true}},
		{"2 channels no Lab", func(*testing.T) *imageio.Volume { return naturalImage(120, 90, 1, 2, 5) }, Options{Segments: 80}},
		{"4 channels perturbed", func(*testing.T) *imageio.Volume { return naturalImage(120, 90, 1, 4, 6) }, Options{Segments: 80, PerturbSeeds: true}},
		{"skimage window", func(*testing.T) *imageio.Volume { return naturalImage(120, 90, 1, 3, 7) }, Options{Segments: 100, Compactness: 20, Sigma: 1, Lab: true, SearchRadius: 2}},
		{"skimage-like init", func(*testing.T) *imageio.Volume { return naturalImage(120, 90, 1, 3, 10) }, Options{Segments: 100, Compactness: 20, Sigma: 1, Lab: true, SearchRadius: 2, ZeroInit: true}},
		{"3-D grey 40x30x20", func(*testing.T) *imageio.Volume { return naturalImage(40, 30, 20, 1, 8) }, Options{Segments: 200, Compactness: 0.2, Sigma: 1}},
		{"3-D anisotropic", func(*testing.T) *imageio.Volume { return naturalImage(40, 30, 10, 1, 9) }, Options{Segments: 100, Compactness: 0.2, Sigma: 1, Spacing: [3]float64{1, 1, 2}}},
		{"cow image n=500", func(t *testing.T) *imageio.Volume { return loadCow(t) }, Options{Segments: 500, Compactness: 20, Sigma: 2, Lab: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v(t)
			m, n, err := Segment(v, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkLabels(t, m, n, true)
			want := float64(newGridFor(v, tc.opt.Segments))
			if math.Abs(float64(n)-want) > 0.3*want {
				t.Errorf("%d segments, want within 30%% of %v (grid for %d)", n, want, tc.opt.Segments)
			}
			if math.Abs(float64(n)-float64(tc.opt.Segments)) > 0.3*float64(tc.opt.Segments) {
				t.Errorf("%d segments, want within 30%% of target %d", n, tc.opt.Segments)
			}
		})
	}
}

func newGridFor(v *imageio.Volume, n int) int {
	g := newGrid([3]int{v.Width, v.Height, v.Depth}, n)
	return g.count[0] * g.count[1] * g.count[2]
}

func TestDisableConnectivityLabelsConsecutive(t *testing.T) {
	v := naturalImage(100, 80, 1, 3, 11)
	m, n, err := Segment(v, Options{Segments: 60, Lab: true, DisableConnectivity: true})
	if err != nil {
		t.Fatal(err)
	}
	checkLabels(t, m, n, false)
	if g := newGridFor(v, 60); n > g {
		t.Errorf("%d labels without connectivity, more than the %d centres", n, g)
	}
}

// TestTwoColourExact: an 8×4 image, left half red, right half blue, two
// segments. The grid puts seeds at (2, 2) and (6, 2); the only sensible
// answer is the colour boundary, exactly.
func TestTwoColourExact(t *testing.T) {
	v := imageio.NewVolume(8, 4, 1, 3)
	want := make([]int32, 32)
	for y := range 4 {
		for x := range 8 {
			i := v.Index(x, y, 0)
			if x < 4 {
				v.Pix[i] = 255
			} else {
				v.Pix[i+2] = 255
				want[y*8+x] = 1
			}
		}
	}
	for _, opt := range []Options{
		{Segments: 2, Lab: true},
		{Segments: 2, Lab: true, Compactness: 1, Sigma: 0.5},
		{Segments: 2, Compactness: 0.01},
		{Segments: 2, Lab: true, SearchRadius: 2, PerturbSeeds: true},
	} {
		t.Run(fmt.Sprintf("%+v", opt), func(t *testing.T) {
			m, n, err := Segment(v, opt)
			if err != nil {
				t.Fatal(err)
			}
			if n != 2 || !slices.Equal(m.Labels, want) {
				t.Errorf("got %d segments %v, want 2 segments %v", n, m.Labels, want)
			}
		})
	}
}

// TestGridMatchesScikitImage: seed lattices of skimage.util.regular_grid
// (scikit-image 0.19.3), printed by hand for these shapes; shape is
// (depth, height, width) there.
func TestGridMatchesScikitImage(t *testing.T) {
	cases := []struct {
		name               string
		dims               [3]int
		n                  int
		start, step, count [3]int
	}{
		{"1024x768 n=500", [3]int{1024, 768, 1}, 500, [3]int{19, 19, 0}, [3]int{40, 40, 1}, [3]int{26, 19, 1}},
		{"512x384x82 n=16000", [3]int{512, 384, 82}, 16000, [3]int{5, 5, 5}, [3]int{10, 10, 10}, [3]int{51, 38, 8}},
		{"1024x768x165 n=130000", [3]int{1024, 768, 165}, 130000, [3]int{4, 4, 4}, [3]int{10, 10, 10}, [3]int{102, 77, 17}},
		{"8x4 n=2", [3]int{8, 4, 1}, 2, [3]int{2, 2, 0}, [3]int{4, 4, 1}, [3]int{2, 1, 1}},
		{"100x100 n=9", [3]int{100, 100, 1}, 9, [3]int{16, 16, 0}, [3]int{33, 33, 1}, [3]int{3, 3, 1}},
		{"more seeds than pixels", [3]int{3, 2, 1}, 10, [3]int{0, 0, 0}, [3]int{1, 1, 1}, [3]int{3, 2, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := newGrid(tc.dims, tc.n)
			if g.start != tc.start || g.step != tc.step || g.count != tc.count {
				t.Errorf("start %v step %v count %v, want %v %v %v", g.start, g.step, g.count, tc.start, tc.step, tc.count)
			}
		})
	}
}

// meanIsoperimetric is the mean over regions of perimeter²/area, with the
// perimeter counted as 4-neighbour label changes (each boundary pixel edge
// once per side); it grows as regions get more ragged.
func meanIsoperimetric(m *imageio.LabelMap, n int) float64 {
	area := make([]float64, n)
	perim := make([]float64, n)
	W, H := m.Width, m.Height
	for y := range H {
		for x := range W {
			l := m.Labels[y*W+x]
			area[l]++
			for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				nx, ny := x+d[0], y+d[1]
				if nx < 0 || ny < 0 || nx >= W || ny >= H || m.Labels[ny*W+nx] != l {
					perim[l]++
				}
			}
		}
	}
	s := 0.0
	for l := range n {
		s += perim[l] * perim[l] / area[l]
	}
	return s / float64(n)
}

func TestCompactnessGivesRegularRegions(t *testing.T) {
	v := naturalImage(240, 180, 1, 3, 21)
	prev := math.Inf(1)
	for _, m := range []float64{1, 5, 20, 80} {
		labels, n, err := Segment(v, Options{Segments: 200, Compactness: m, Sigma: 1, Lab: true})
		if err != nil {
			t.Fatal(err)
		}
		q := meanIsoperimetric(labels, n)
		t.Logf("m=%v: %d segments, mean perimeter²/area %.2f", m, n, q)
		if q >= prev {
			t.Errorf("m=%v: mean perimeter²/area %.2f, not below %.2f at the smaller m", m, q, prev)
		}
		prev = q
	}
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	cases := []struct {
		name string
		v    *imageio.Volume
		opt  Options
	}{
		{"2-D colour", naturalImage(150, 110, 1, 3, 31), Options{Segments: 120, Compactness: 20, Sigma: 2, Lab: true}},
		{"3-D grey", naturalImage(40, 36, 24, 1, 32), Options{Segments: 150, Compactness: 0.1, Sigma: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ref *imageio.LabelMap
			for _, w := range []int{1, 2, 3, 7} {
				opt := tc.opt
				opt.Workers = w
				for range 2 {
					m, _, err := Segment(tc.v, opt)
					if err != nil {
						t.Fatal(err)
					}
					if ref == nil {
						ref = m
					} else if !slices.Equal(ref.Labels, m.Labels) {
						t.Fatalf("labels with %d workers differ from the first run", w)
					}
				}
			}
		})
	}
}

func TestSegmentDoesNotModifyInput(t *testing.T) {
	v := naturalImage(60, 40, 1, 3, 41)
	before := slices.Clone(v.Pix)
	if _, _, err := Segment(v, Options{Segments: 20, Sigma: 2, Lab: true}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, v.Pix) {
		t.Error("Segment modified its input")
	}
}

func TestBadOptions(t *testing.T) {
	good := naturalImage(20, 10, 1, 3, 51)
	grey := naturalImage(20, 10, 1, 1, 52)
	nan := naturalImage(20, 10, 1, 1, 53)
	nan.Pix[7] = float32(math.NaN())
	cases := []struct {
		name string
		v    *imageio.Volume
		opt  Options
	}{
		{"nil volume", nil, Options{Segments: 5}},
		{"zero segments", good, Options{}},
		{"negative segments", good, Options{Segments: -3}},
		{"negative compactness", good, Options{Segments: 5, Compactness: -1}},
		{"NaN sigma", good, Options{Segments: 5, Sigma: math.NaN()}},
		{"negative sigma", good, Options{Segments: 5, Sigma: -1}},
		{"negative iterations", good, Options{Segments: 5, MaxIter: -1}},
		{"max below min size", good, Options{Segments: 5, MinSizeFactor: 2, MaxSizeFactor: 1}},
		{"negative spacing", good, Options{Segments: 5, Spacing: [3]float64{1, -1, 1}}},
		{"infinite radius", good, Options{Segments: 5, SearchRadius: math.Inf(1)}},
		{"negative workers", good, Options{Segments: 5, Workers: -1}},
		{"Lab on grey", grey, Options{Segments: 5, Lab: true}},
		{"NaN sample", nan, Options{Segments: 5}},
		{"short Pix", &imageio.Volume{Width: 4, Height: 4, Depth: 1, Channels: 1, Pix: make([]float32, 15)}, Options{Segments: 5}},
		{"zero width", &imageio.Volume{Width: 0, Height: 4, Depth: 1, Channels: 1}, Options{Segments: 5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, n, err := Segment(tc.v, tc.opt)
			if err == nil {
				t.Fatalf("no error; got %d segments (%v)", n, m != nil)
			}
			t.Log(err)
		})
	}
}

// TestOptionLimits: values that used to overflow a float-to-int
// conversion, hang (a Gaussian of σ = 1e6 on every row) or allocate
// without bound (σ = 1e10: a 640 GB kernel) are refused with an error
// naming the option, the value and the allowed range; values at the
// limits and tiny ones still work.
func TestOptionLimits(t *testing.T) {
	img := naturalImage(20, 10, 1, 3, 51)
	vol := naturalImage(12, 10, 6, 1, 54)
	huge := naturalImage(20, 10, 1, 1, 55)
	for i := range huge.Pix {
		huge.Pix[i] *= 1e30
	}
	bad := []struct {
		name string
		v    *imageio.Volume
		opt  Options
		want []string // substrings of the error
	}{
		{"sigma 1e300", img, Options{Segments: 5, Sigma: 1e300}, []string{"Sigma = 1e+300", "[0, 20]"}},
		{"sigma 1e10", img, Options{Segments: 5, Sigma: 1e10}, []string{"Sigma = 1e+10", "along x", "20x10x1"}},
		{"sigma 1e6", img, Options{Segments: 5, Sigma: 1e6}, []string{"Sigma = 1e+06"}},
		{"sigma above the longest axis", img, Options{Segments: 5, Sigma: 10.5, Spacing: [3]float64{1, 0.5, 1}}, []string{"along y", "[0, 20]"}},
		{"sigma over tiny spacing", vol, Options{Segments: 5, Sigma: 1, Spacing: [3]float64{1, 1, 1e-300}}, []string{"along z", "Spacing[2]"}},
		{"radius 1e18", img, Options{Segments: 5, SearchRadius: 1e18}, []string{"SearchRadius = 1e+18", "[0, 20]"}},
		{"compactness 1e300", img, Options{Segments: 5, Compactness: 1e300}, []string{"Compactness = 1e+300", "must be in [0, "}},
		{"compactness 1e20", vol, Options{Segments: 5, Compactness: 1e20}, []string{"Compactness = 1e+20"}},
		{"spacing 1e200", vol, Options{Segments: 5, Spacing: [3]float64{1e200, 1, 1}}, []string{"Spacing [1e+200 1 1]", "smaller units"}},
		{"spacing 1e10, compactness 1e10", vol, Options{Segments: 5, Compactness: 1e10, Spacing: [3]float64{1e10, 1, 1}}, []string{"Compactness = 1e+10", "Spacing [1e+10 1 1]"}},
		{"workers 1e9", img, Options{Segments: 5, Workers: 1e9}, []string{"Workers = 1000000000", "[0, 4096]"}},
		{"KeepRange 1e30", huge, Options{Segments: 5, KeepRange: true}, []string{"KeepRange"}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Segment(tc.v, tc.opt)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
	good := []struct {
		name string
		v    *imageio.Volume
		opt  Options
	}{
		{"sigma at the width", img, Options{Segments: 5, Sigma: 10, Spacing: [3]float64{0.5, 1, 1}}},
		{"sigma beyond a thin axis", vol, Options{Segments: 5, Sigma: 9}},
		{"sigma 1e-300", img, Options{Segments: 5, Sigma: 1e-300}},
		{"radius at the longest axis", img, Options{Segments: 5, SearchRadius: 20}},
		{"compactness 1e12", img, Options{Segments: 5, Compactness: 1e12}},
		{"size factors 1e300", img, Options{Segments: 5, MinSizeFactor: 1e300, MaxSizeFactor: 1e300}},
		{"more segments than voxels", vol, Options{Segments: 1 << 40}},
		{"huge samples rescaled", huge, Options{Segments: 5}},
	}
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) {
			m, n, err := Segment(tc.v, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			checkLabels(t, m, n, true)
		})
	}
	// σ = 1e-300 is no smoothing at all (its kernel used to be NaN).
	a, _, _ := Segment(img, Options{Segments: 5, Sigma: 1e-300})
	b, _, _ := Segment(img, Options{Segments: 5})
	if !slices.Equal(a.Labels, b.Labels) {
		t.Error("σ = 1e-300 does not give the labels of σ = 0")
	}
}

// TestTinyInputs: more seeds than pixels, single pixels and lines must not
// break the grid, the windows or the connectivity pass.
func TestTinyInputs(t *testing.T) {
	cases := []struct {
		name    string
		v       *imageio.Volume
		opt     Options
		wantMax int // the number of segments cannot exceed this
	}{
		{"1x1 grey", imageio.NewVolume(1, 1, 1, 1), Options{Segments: 3}, 1},
		{"3x2 colour, 10 seeds", naturalImage(3, 2, 1, 3, 61), Options{Segments: 10, Lab: true, Sigma: 1}, 6},
		{"1x9 line", naturalImage(1, 9, 1, 1, 62), Options{Segments: 3, Sigma: 2}, 9},
		{"1x1x7 column", naturalImage(1, 1, 7, 1, 63), Options{Segments: 2, Sigma: 1}, 7},
		{"constant image", imageio.NewVolume(30, 20, 1, 3), Options{Segments: 6, Lab: true}, 30 * 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, n, err := Segment(tc.v, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if n < 1 || n > tc.wantMax {
				t.Errorf("%d segments, want 1..%d", n, tc.wantMax)
			}
			checkLabels(t, m, n, true)
		})
	}
}

// TestNonFiniteSampleNamed checks that the first non-finite sample is the
// one reported, wherever it lies in the blocks and pieces of the check.
func TestNonFiniteSampleNamed(t *testing.T) {
	for _, at := range []int{0, 255, 256, 3*97*61 - 1, 5000} {
		for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
			v := naturalImage(97, 61, 1, 3, 7)
			v.Pix[at] = bad
			if at+1000 < len(v.Pix) {
				v.Pix[at+1000] = float32(math.NaN()) // a later one is not reported
			}
			for _, workers := range []int{1, 3} {
				_, _, err := Segment(v, Options{Segments: 20, Lab: true, Workers: workers})
				want := fmt.Sprintf("voxel %d channel %d is %v,", at/3, at%3, bad)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("sample %d = %v, workers %d: error %v, want it to say %q", at, bad, workers, err, want)
				}
			}
		}
	}
}
