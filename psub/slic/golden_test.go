package slic

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic/slictest"
)

// goldenFile holds the SHA-256 of the label maps that Segment returned, at
// the settings the committed problems are built with, before the
// assignment and smoothing were restructured for speed (commit 6f1ee04).
// Cached problems (cows, horses, mito) were built from those labels, so any
// change of them must be deliberate: set SLIC_GOLDEN_WRITE=1 to rewrite
// the file, and say why in the commit.
const goldenFile = "testdata/golden-labels.txt"

// labelHash is the SHA-256 of the labels as little-endian int32 values.
func labelHash(m *imageio.LabelMap) string {
	h := sha256.New()
	buf := make([]byte, 4*len(m.Labels))
	for i, l := range m.Labels {
		binary.LittleEndian.PutUint32(buf[4*i:], uint32(l))
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

func readGolden(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("%s: bad line %q", goldenFile, line)
		}
		out[name] = rest
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkGolden compares every case with the golden file, or rewrites the
// cases' lines with SLIC_GOLDEN_WRITE=1.
func checkGolden(t *testing.T, got map[string]string) {
	t.Helper()
	if os.Getenv("SLIC_GOLDEN_WRITE") == "1" {
		all := map[string]string{}
		if _, err := os.Stat(goldenFile); err == nil {
			all = readGolden(t)
		}
		for k, v := range got {
			all[k] = v
		}
		names := make([]string, 0, len(all))
		for k := range all {
			names = append(names, k)
		}
		sort.Strings(names)
		var b strings.Builder
		b.WriteString("# name sha256(labels as little-endian int32) regions; see golden_test.go\n")
		for _, k := range names {
			fmt.Fprintf(&b, "%s %s\n", k, all[k])
		}
		if err := os.WriteFile(goldenFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d cases to %s", len(got), goldenFile)
		return
	}
	want := readGolden(t)
	bad := 0
	for k, v := range got {
		w, ok := want[k]
		if !ok {
			t.Errorf("%s: not in %s", k, goldenFile)
			continue
		}
		if w != v {
			bad++
			if bad <= 10 {
				t.Errorf("%s: labels %s, golden %s", k, v, w)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d label maps differ from %s", bad, len(got), goldenFile)
	}
}

func segmentHash(t *testing.T, v *imageio.Volume, opt Options) string {
	t.Helper()
	m, n, err := Segment(v, opt)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %d", labelHash(m), n)
}

// TestGoldenCows: the 111 TU Darmstadt cows at the protocol's settings
// (500 segments, m = 20, σ = 2, CIELAB), at full size and downscaled by 2
// as the quick profile builds them, give the labels of the golden file bit
// for bit. Skipped without the data set.
func TestGoldenCows(t *testing.T) {
	if testing.Short() {
		t.Skip("111 images; skipped with -short")
	}
	dir := needData(t, "tud_cows/images")
	names, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(names) != 111 {
		t.Fatalf("%s: %d images, expected 111", dir, len(names))
	}
	got := map[string]string{}
	opt := Options{Segments: 500, Compactness: 20, Sigma: 2, Lab: true}
	for _, name := range names {
		v, err := imageio.ReadImage(name)
		if err != nil {
			t.Fatal(err)
		}
		got["cows/"+filepath.Base(name)] = segmentHash(t, v, opt)
	}
	// The benchmark's image: the first cow upscaled to 1024×768, whose
	// tall windows over long rows take the strip-mined assignment.
	big, err := slictest.UpscaleBilinear(loadCow(t), 1024, 768)
	if err != nil {
		t.Fatal(err)
	}
	got["cows-upscaled/1024x768"] = segmentHash(t, big, opt)
	r2 := opt
	r2.SearchRadius = 2
	got["cows-upscaled/1024x768-radius2"] = segmentHash(t, big, r2)
	checkGolden(t, got)
}

// TestGoldenMito: supervoxels of the EM volume's quick-profile crop
// (256×192×40 at x 384, y 288, z 62; 1 970 supervoxels as data.BuildMito
// asks for it, m = 20, σ = 5) and of the corner crop the 3-D benchmark
// uses, with the ±2S window and a low compactness too.
func TestGoldenMito(t *testing.T) {
	if testing.Short() {
		t.Skip("EM crops; skipped with -short")
	}
	quick := loadEMBox(t, 384, 288, 62, 256, 192, 40)
	frac := float64(256*192*40) / float64(1024*768*165)
	segs := max(1, int(math.Round(130000*frac)))
	got := map[string]string{}
	got["mito/quick-crop"] = segmentHash(t, quick, Options{Segments: segs, Compactness: 20, Sigma: 5})
	got["mito/quick-crop-radius2"] = segmentHash(t, quick, Options{Segments: segs, Compactness: 20, Sigma: 5, SearchRadius: 2})
	// m = 20 on [0, 1] grey values is almost purely spatial; m = 0.5 lets
	// the intensities shape the supervoxels.
	got["mito/quick-crop-m0.5"] = segmentHash(t, quick, Options{Segments: segs, Compactness: 0.5, Sigma: 5})
	corner := loadEMBox(t, 0, 0, 0, 200, 150, 30)
	got["mito/corner-200x150x30"] = segmentHash(t, corner, Options{Segments: 900, Compactness: 20, Sigma: 5})
	checkGolden(t, got)
}

// loadEMBox reads the w×h×d box at (x0, y0, z0) of the EPFL training
// volume.
func loadEMBox(tb testing.TB, x0, y0, z0, w, h, d int) *imageio.Volume {
	tb.Helper()
	dir := needData(tb, "epfl_mito/training/images")
	v := imageio.NewVolume(w, h, d, 1)
	for z := range d {
		s, err := imageio.ReadImage(filepath.Join(dir, fmt.Sprintf("train_%03d.png", z0+z+1)))
		if err != nil {
			tb.Fatal(err)
		}
		if s.Channels != 1 || s.Width < x0+w || s.Height < y0+h {
			tb.Fatalf("EM slice %d: %dx%d, %d channels", z0+z+1, s.Width, s.Height, s.Channels)
		}
		for y := range h {
			for x := range w {
				v.Pix[v.Index(x, y, z)] = s.Pix[s.Index(x0+x, y0+y, 0)]
			}
		}
	}
	return v
}

// TestGoldenSynthetic: the tests' synthetic images under option
// combinations the data sets do not exercise (grey, 4 channels, 3-D
// colour, anisotropic spacing, ±2S, ZeroInit, PerturbSeeds, KeepRange, no
// connectivity, 1 and 3 workers). Always on.
func TestGoldenSynthetic(t *testing.T) {
	got := map[string]string{}
	for name, tc := range goldenSyntheticCases() {
		got["synthetic/"+name] = segmentHash(t, tc.v, tc.opt)
	}
	checkGolden(t, got)
}

type goldenCase struct {
	v   *imageio.Volume
	opt Options
}

func goldenSyntheticCases() map[string]goldenCase {
	rgb := naturalImage(211, 157, 1, 3, 7)
	grey := naturalImage(190, 143, 1, 1, 8)
	four := naturalImage(120, 90, 1, 4, 9)
	vol := naturalImage(61, 47, 23, 1, 10)
	volRGB := naturalImage(40, 33, 12, 3, 11)
	return map[string]goldenCase{
		"rgb-lab":            {rgb, Options{Segments: 150, Compactness: 20, Sigma: 2, Lab: true}},
		"rgb-lab-r2-zero":    {rgb, Options{Segments: 150, Compactness: 20, Sigma: 2, Lab: true, SearchRadius: 2, ZeroInit: true}},
		"rgb-perturb-w1":     {rgb, Options{Segments: 90, Compactness: 5, Sigma: 1, PerturbSeeds: true, Workers: 1}},
		"rgb-keeprange-w3":   {rgb, Options{Segments: 200, Compactness: 30, KeepRange: true, Workers: 3}},
		"grey":               {grey, Options{Segments: 120, Compactness: 0.5, Sigma: 1.5}},
		"grey-noconn-r1.5":   {grey, Options{Segments: 120, Compactness: 0.3, Sigma: 0.7, DisableConnectivity: true, SearchRadius: 1.5}},
		"four-channels":      {four, Options{Segments: 60, Compactness: 15, Sigma: 1}},
		"vol":                {vol, Options{Segments: 200, Compactness: 0.4, Sigma: 1.5}},
		"vol-spacing-r2":     {vol, Options{Segments: 150, Compactness: 0.4, Sigma: 2, Spacing: [3]float64{1, 1.5, 3}, SearchRadius: 2, ZeroInit: true}},
		"vol-rgb-lab-w1":     {volRGB, Options{Segments: 80, Compactness: 10, Sigma: 1, Lab: true, Workers: 1}},
		"vol-iter3-perturb":  {vol, Options{Segments: 100, Compactness: 0.2, MaxIter: 3, PerturbSeeds: true}},
		"vol-factors-w5":     {vol, Options{Segments: 300, Compactness: 0.4, MinSizeFactor: 0.2, MaxSizeFactor: 1.5, Workers: 5}},
		"rgb-many-workers12": {rgb, Options{Segments: 150, Compactness: 20, Sigma: 2, Lab: true, Workers: 12}},
	}
}
