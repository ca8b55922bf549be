package data

import (
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// blobImage is a w×h RGB image with a noisy bright disc on a noisy dark
// background, and its mask (1 inside the disc).
func blobImage(seed uint64, w, h int) (*imageio.Volume, *imageio.LabelMap) {
	rng := rand.New(rand.NewPCG(seed, 7))
	v := imageio.NewVolume(w, h, 1, 3)
	m := imageio.NewLabelMap(w, h, 1)
	cx, cy, r := float64(w)/2, float64(h)/2, float64(min(w, h))/3
	for y := range h {
		for x := range w {
			in := math.Hypot(float64(x)-cx, float64(y)-cy) < r
			base := [3]float64{40, 90, 40}
			if in {
				base = [3]float64{200, 170, 120}
				m.Labels[m.Index(x, y, 0)] = 1
			}
			for c := range 3 {
				v.Pix[v.Index(x, y, 0)+c] = float32(min(255, max(0, math.Round(base[c]+rng.NormFloat64()*15))))
			}
		}
	}
	return v, m
}

func testBuilder(segments int) SegmentBuilder {
	return SegmentBuilder{
		SLIC:       slic.Options{Segments: segments, Compactness: CowsCompactness, Sigma: CowsSigma, Lab: true},
		Descriptor: CowDescriptor(),
	}
}

// checkSegmented checks the invariants every built instance must satisfy,
// against independent recomputations.
func checkSegmented(t *testing.T, s *SegmentedImage, unaryDim int) {
	t.Helper()
	in := &s.Instance
	if err := in.Validate(0, unaryDim, unaryDim, 2); err != nil {
		t.Fatal(err)
	}
	n := in.Nodes()
	// Every region id is used and is one 4-connected (6 in 3-D) component.
	if comps := components(s.Regions); len(comps) != n {
		t.Fatalf("%s: %d connected components for %d regions", in.Name, len(comps), n)
	}
	// Each descriptor block (histogram, GLCM, bias) sums to 1 per region;
	// a GLCM may be empty (0) in a region without an inner pixel pair.
	blocks := map[int][]int{125: {125}, 74: {10, 64}, 105: {40, 64, 1}}[unaryDim]
	for k, row := range in.Unary {
		off := 0
		for bi, size := range blocks {
			sum := 0.0
			for _, v := range row[off : off+size] {
				sum += v
			}
			off += size
			if math.Abs(sum-1) > 1e-9 && !(size == 64 && sum == 0) {
				t.Fatalf("%s: node %d: unary block %d sums to %v, expected 1", in.Name, k, bi, sum)
			}
		}
	}
	for e, ed := range in.Edges {
		for j, v := range in.Pairwise[e] {
			if v < 0 {
				t.Fatalf("%s: edge %d: pairwise feature %d is %v < 0", in.Name, e, j, v)
			}
			if want := math.Abs(in.Unary[ed[0]][j] - in.Unary[ed[1]][j]); v != want {
				t.Fatalf("%s: edge %d: pairwise %d = %v, |φ_k − φ_l| = %v", in.Name, e, j, v, want)
			}
		}
	}
	// Edges are exactly the touching pairs, found here by brute force.
	if got, want := in.Edges, touchingPairs(s.Regions); !(len(got) == 0 && len(want) == 0) && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: %d edges, brute force finds %d", in.Name, len(got), len(want))
	}
	// Labels are the majority of the mask, counted here directly.
	fg := make([]int, n)
	size := make([]int, n)
	for i, r := range s.Regions.Labels {
		size[r]++
		fg[r] += int(s.Truth.Labels[i])
	}
	for k := range n {
		want := 0
		if 2*fg[k] > size[k] {
			want = 1
		}
		if in.Labels[k] != want {
			t.Fatalf("%s: region %d: label %d, %d of %d pixels foreground", in.Name, k, in.Labels[k], fg[k], size[k])
		}
	}
	// Scoring the majority labels reproduces the oracle.
	c, err := s.Score(in.Labels)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, s.Oracle) {
		t.Fatalf("%s: Score(majority) = %v, oracle %v", in.Name, c.Counts, s.Oracle.Counts)
	}
}

// components labels the connected components of equal region ids
// (4-connectivity in 2-D, 6 in 3-D) by flood fill; it returns the region id
// of each component.
func components(m *imageio.LabelMap) []int32 {
	seen := make([]bool, len(m.Labels))
	var comps []int32
	var stack []int
	for start := range m.Labels {
		if seen[start] {
			continue
		}
		id := m.Labels[start]
		comps = append(comps, id)
		seen[start] = true
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y, z := i%m.Width, (i/m.Width)%m.Height, i/(m.Width*m.Height)
			for _, d := range [6][3]int{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
				nx, ny, nz := x+d[0], y+d[1], z+d[2]
				if nx < 0 || ny < 0 || nz < 0 || nx >= m.Width || ny >= m.Height || nz >= m.Depth {
					continue
				}
				j := m.Index(nx, ny, nz)
				if !seen[j] && m.Labels[j] == id {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
	}
	return comps
}

func touchingPairs(m *imageio.LabelMap) [][2]int {
	set := map[[2]int]bool{}
	for i, a := range m.Labels {
		x, y, z := i%m.Width, (i/m.Width)%m.Height, i/(m.Width*m.Height)
		for _, d := range [3][3]int{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} {
			nx, ny, nz := x+d[0], y+d[1], z+d[2]
			if nx >= m.Width || ny >= m.Height || nz >= m.Depth {
				continue
			}
			if b := m.Labels[m.Index(nx, ny, nz)]; b != a {
				set[[2]int{int(min(a, b)), int(max(a, b))}] = true
			}
		}
	}
	var out [][2]int
	for p := range set {
		out = append(out, p)
	}
	slicesSortPairs(out)
	return out
}

func slicesSortPairs(p [][2]int) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && (p[j][0] < p[j-1][0] || p[j][0] == p[j-1][0] && p[j][1] < p[j-1][1]); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

func TestSegmentBuilderInvariants(t *testing.T) {
	for _, tc := range []struct {
		name     string
		w, h     int
		segments int
	}{
		{"small", 40, 30, 12},
		{"medium", 96, 64, 60},
		{"one region", 10, 10, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			img, mask := blobImage(uint64(tc.w), tc.w, tc.h)
			s, err := testBuilder(tc.segments).Build(tc.name, img, mask)
			if err != nil {
				t.Fatal(err)
			}
			checkSegmented(t, s, 125)
			if s.Image != nil {
				t.Error("Image kept without KeepImage")
			}
		})
	}
}

func TestSegmentBuilder3D(t *testing.T) {
	v := imageio.NewVolume(20, 16, 10, 1)
	m := imageio.NewLabelMap(20, 16, 10)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range v.Pix {
		x, z := i%20, i/(20*16)
		base := 60.0
		if x >= 10 && z >= 4 {
			base, m.Labels[i] = 180, 1
		}
		v.Pix[i] = float32(min(255, max(0, math.Round(base+rng.NormFloat64()*10))))
	}
	b := SegmentBuilder{SLIC: slic.Options{Segments: 24, Compactness: 20, Sigma: 1}, Descriptor: EMDescriptor(255), KeepImage: true}
	s, err := b.Build("cube", v, m)
	if err != nil {
		t.Fatal(err)
	}
	if s.Image != v {
		t.Error("KeepImage did not keep the image")
	}
	in := &s.Instance
	if err := in.Validate(0, 105, 105, 2); err != nil {
		t.Fatal(err)
	}
	if got, want := in.Edges, touchingPairs(s.Regions); !(len(got) == 0 && len(want) == 0) && !reflect.DeepEqual(got, want) {
		t.Fatalf("3-D edges differ from brute force: %d vs %d", len(got), len(want))
	}
	if len(components(s.Regions)) != in.Nodes() {
		t.Fatal("supervoxels not 6-connected")
	}
}

func TestSegmentScore(t *testing.T) {
	img, mask := blobImage(1, 48, 40)
	s, err := testBuilder(20).Build("blob", img, mask)
	if err != nil {
		t.Fatal(err)
	}
	n := s.Instance.Nodes()
	allBG := make([]int, n)
	c, err := s.Score(allBG)
	if err != nil {
		t.Fatal(err)
	}
	fgPix := 0
	for _, l := range mask.Labels {
		fgPix += int(l)
	}
	if got := c.IoU()[1]; got != 0 {
		t.Errorf("all-background prediction: foreground IoU %v, expected 0", got)
	}
	if want := float64(len(mask.Labels)-fgPix) / float64(len(mask.Labels)); math.Abs(c.IoU()[0]-want) > 1e-12 {
		t.Errorf("all-background prediction: background IoU %v, expected %v", c.IoU()[0], want)
	}
	if _, err := s.Score(allBG[:n-1]); err == nil || !strings.Contains(err.Error(), "blob") {
		t.Errorf("short prediction: error %v, expected one naming the instance", err)
	}
}

func TestSegmentBuilderErrors(t *testing.T) {
	img, mask := blobImage(1, 20, 20)
	bad := imageio.NewLabelMap(20, 20, 1)
	bad.Labels[45] = 3
	for _, tc := range []struct {
		name    string
		b       SegmentBuilder
		mask    *imageio.LabelMap
		wantErr string
	}{
		{"no descriptor", SegmentBuilder{SLIC: slic.Options{Segments: 4}}, mask, "no Descriptor"},
		{"size mismatch", testBuilder(4), imageio.NewLabelMap(19, 20, 1), "mask size"},
		{"nil mask", testBuilder(4), nil, "mask size"},
		{"class out of range", testBuilder(4), bad, "voxel (5,2,0): class 3"},
		{"no segments", testBuilder(0), mask, "SLIC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.Build("img7", img, tc.mask)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "img7") {
				t.Fatalf("error %v, expected one naming img7 and containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestBuildSegmentedParallelAndProgress(t *testing.T) {
	var sources []SegmentSource
	for i := range 7 {
		sources = append(sources, SegmentSource{
			Name:  "blob" + string(rune('a'+i)),
			Files: nil,
			Load: func() (*imageio.Volume, *imageio.LabelMap, error) {
				v, m := blobImage(uint64(i), 30+i, 24)
				return v, m, nil
			},
		})
	}
	b := testBuilder(10)
	var mu sync.Mutex
	var calls [][2]int
	par, err := BuildSegmented(sources, b, BuildOptions{Workers: 3, Progress: func(done, total int) {
		mu.Lock()
		calls = append(calls, [2]int{done, total})
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range calls {
		if c != [2]int{i + 1, 7} {
			t.Fatalf("progress call %d = %v, expected [%d 7]", i, c, i+1)
		}
	}
	if len(calls) != 7 {
		t.Fatalf("%d progress calls, expected 7", len(calls))
	}
	seq, err := BuildSegmented(sources, b, BuildOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range seq {
		if seq[i].Instance.Name != sources[i].Name || !reflect.DeepEqual(seq[i], par[i]) {
			t.Fatalf("item %d: parallel and sequential builds differ (or order lost)", i)
		}
	}
	// An error stops the build and names its source.
	sources[4].Load = func() (*imageio.Volume, *imageio.LabelMap, error) { return nil, nil, errors.New("cannot read x.png") }
	if _, err := BuildSegmented(sources, b, BuildOptions{Workers: 2}); err == nil || !strings.Contains(err.Error(), "x.png") {
		t.Fatalf("error %v, expected the failing source's", err)
	}
}

func TestImageMaskPairs(t *testing.T) {
	dir := t.TempDir()
	im, ma := filepath.Join(dir, "img"), filepath.Join(dir, "mask")
	for _, p := range []string{"img/a.png", "img/b.png", "img/notes.txt", "mask/a.png", "mask/b.jpg"} {
		writeFile(t, filepath.Join(dir, p), "x")
	}
	images, masks, err := ImageMaskPairs(im, ma, ".png", ".jpg")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(im, "a.png"), filepath.Join(im, "b.png")}; !reflect.DeepEqual(images, want) {
		t.Errorf("images %v, expected %v", images, want)
	}
	if want := []string{filepath.Join(ma, "a.png"), filepath.Join(ma, "b.jpg")}; !reflect.DeepEqual(masks, want) {
		t.Errorf("masks %v, expected %v", masks, want)
	}
	writeFile(t, filepath.Join(im, "c.png"), "x")
	if _, _, err := ImageMaskPairs(im, ma, ".png", ".jpg"); err == nil || !strings.Contains(err.Error(), "c.png: no mask") {
		t.Errorf("unpaired image: error %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDownscale(t *testing.T) {
	v := imageio.NewVolume(5, 3, 1, 1)
	for i := range v.Pix {
		v.Pix[i] = float32(i)
	}
	got := Downscale(v, 2)
	// Blocks: {0,1,5,6} {2,3,7,8} {4,9} / {10,11} {12,13} {14}.
	want := []float32{3, 5, 6.5, 10.5, 12.5, 14}
	if got.Width != 3 || got.Height != 2 || !reflect.DeepEqual(got.Pix, want) {
		t.Errorf("Downscale = %d×%d %v, expected 3×2 %v", got.Width, got.Height, got.Pix, want)
	}
	m := imageio.NewLabelMap(4, 2, 1)
	copy(m.Labels, []int32{1, 1, 1, 0, 0, 0, 0, 0}) // blocks: 2 of 4, 1 of 4
	gm := DownscaleMask(m, 2)
	if !reflect.DeepEqual(gm.Labels, []int32{1, 0}) {
		t.Errorf("DownscaleMask = %v, expected [1 0]", gm.Labels)
	}
	if Downscale(v, 1) != v || DownscaleMask(m, 0) != m {
		t.Error("factor 1 should return the input")
	}
}

// A data folder that is not the README's: the count check names the folder.
func TestCowsCountChecked(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"tud_cows/images/a.png", "tud_cows/masks/a.png"} {
		writePNG(t, filepath.Join(dir, p))
	}
	_, err := BuildCows(ImageSetOptions{Path: dir})
	if err == nil || !strings.Contains(err.Error(), "1 image/mask pairs") || !strings.Contains(err.Error(), "expected 111") {
		t.Fatalf("error %v, expected a count mismatch", err)
	}
	if _, err := BuildCows(ImageSetOptions{Path: t.TempDir()}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty data folder: error %v, expected ErrNotFound", err)
	}
}

func writePNG(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.Gray{255})
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// The oracle of a builder equals feature.NewOracle recomputed on the output.
func TestSegmentOracleMatchesFeature(t *testing.T) {
	img, mask := blobImage(9, 50, 40)
	s, err := testBuilder(25).Build("o", img, mask)
	if err != nil {
		t.Fatal(err)
	}
	o, err := feature.NewOracle(s.Regions, mask, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o.Voxels, s.Oracle) || !reflect.DeepEqual(o.RegionLabels, s.Instance.Labels) {
		t.Fatal("oracle differs from feature.NewOracle")
	}
}

// ImageMaskPairs (for the tests) pairs the images of imageDir with the masks of maskDir by
// file stem (name without extension), in name order: Pair with the same
// stem. Files whose extension is not in exts (e.g. ".png", ".jpg"; empty
// means the image extensions) are ignored. An image without a mask, a mask
// without an image, or a folder without images is an error naming them.
func ImageMaskPairs(imageDir, maskDir string, exts ...string) (images, masks []string, err error) {
	images, masks, _, err = Pair(imageDir, maskDir, PairOptions{ImageExts: exts, MaskExts: exts})
	return images, masks, err
}
