package data

import (
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The Oracle of an EM build (notebooks/TARGETS.md §4) checked against an
// independent recomputation: the voxel classes against the mask PNGs read
// here with image/png, the majority labels and the oracle's voxel confusion
// from the region and class maps by a count of their own.

// checkMitoOracle checks one built volume: Truth is the derived masks of
// the crop's slices (read independently, Y > 0), every region's label is a
// majority class of its voxels, the Oracle's confusion is the majority
// labelling painted on the voxels, and the number of supervoxels is about
// the one asked for.
func checkMitoOracle(t *testing.T, dir, vol string, box MitoBox, set *SegmentedSet) {
	t.Helper()
	if len(set.Items) != 1 {
		t.Fatalf("%s: %d items, want one volume", vol, len(set.Items))
	}
	s := set.Items[0]
	box, err := box.resolve()
	if err != nil {
		t.Fatal(err)
	}
	W, H, D := box.Width, box.Height, box.Depth
	if s.Truth.Width != W || s.Truth.Height != H || s.Truth.Depth != D || s.Regions.Width != W || s.Regions.Height != H || s.Regions.Depth != D {
		t.Fatalf("%s: truth %d×%d×%d, regions %d×%d×%d, want the crop's %d×%d×%d", vol,
			s.Truth.Width, s.Truth.Height, s.Truth.Depth, s.Regions.Width, s.Regions.Height, s.Regions.Depth, W, H, D)
	}
	// Truth against the files: first, middle and last slice of the crop.
	prefix := map[string]string{"training": "train", "testing": "test"}[vol]
	for _, z := range []int{0, D / 2, D - 1} {
		file := filepath.Join(dir, vol, "masks_derived", fmt.Sprintf("%s_%03d.png", prefix, box.Z+z+1))
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		g, ok := img.(*image.Gray)
		if !ok {
			t.Fatalf("%s: %T, want 8-bit grey", file, img)
		}
		bad := 0
		for y := range H {
			for x := range W {
				want := int32(0)
				if g.GrayAt(box.X+x, box.Y+y).Y > 0 {
					want = 1
				}
				if s.Truth.Labels[s.Truth.Index(x, y, z)] != want {
					bad++
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s slice %d: %d of %d voxel classes differ from %s", vol, z, bad, W*H, file)
		}
	}
	// Votes per region, from the maps.
	n := s.Instance.Nodes()
	votes := make([][2]int64, n)
	for i, r := range s.Regions.Labels {
		if r < 0 || int(r) >= n {
			t.Fatalf("%s: voxel %d in region %d, want [0,%d)", vol, i, r, n)
		}
		votes[r][s.Truth.Labels[i]]++
	}
	var counts [4]int64 // [truth·2 + oracle label]
	right := int64(0)
	for k, v := range votes {
		y := s.Instance.Labels[k]
		if v[y] < v[1-y] {
			t.Fatalf("%s: region %d labelled %d with votes %v: not a majority", vol, k, y, v)
		}
		counts[0*2+y] += v[0]
		counts[1*2+y] += v[1]
		right += max(v[0], v[1])
	}
	if s.Oracle.K != 2 || len(s.Oracle.Counts) != 4 {
		t.Fatalf("%s: oracle confusion %d×%d, want 2×2", vol, s.Oracle.K, s.Oracle.K)
	}
	for i, c := range counts {
		if s.Oracle.Counts[i] != c {
			t.Errorf("%s: oracle confusion %v, recounted %v", vol, s.Oracle.Counts, counts)
			break
		}
	}
	total := int64(W * H * D)
	if acc := float64(right) / float64(total); math.Abs(s.Oracle.Accuracy()-acc) > 1e-12 {
		t.Errorf("%s: oracle voxel accuracy %v, best region labelling reaches %v", vol, s.Oracle.Accuracy(), acc)
	}
	if fg := counts[2] + counts[3]; fg == 0 || fg == total {
		t.Errorf("%s: %d of %d voxels foreground: one class only", vol, fg, total)
	}
	want := float64(MitoSegments) * float64(total) / float64(MitoWidth*MitoHeight*MitoSlices)
	if f := float64(n) / want; f < 0.5 || f > 2 {
		t.Errorf("%s: %d supervoxels, asked about %.0f", vol, n, want)
	}
	t.Logf("%s: %d supervoxels, %d edges; oracle voxel accuracy %.4f, class-averaged %.4f, IoU %v, VOC %.4f (paper, whole volumes: VOC 0.9005)",
		s.Instance.Name, n, len(s.Instance.Edges), s.Oracle.Accuracy(), s.Oracle.ClassAveraged(), s.Oracle.IoU(), s.Oracle.VOC())
}

// The quick profile's crop of the training volume (about a second; no
// cache: built here).
func TestMitoOracle(t *testing.T) {
	dir := needDataSet(t, MitoDir)
	set, err := BuildMito(MitoOptions{Crop: MitoQuickCrop()})
	if err != nil {
		t.Fatal(err)
	}
	checkMitoOracle(t, dir, "training", MitoQuickCrop(), set)
}

// TestMitoFullOracle builds both whole EM volumes (minutes, GBs; opt in
// with PSUB_BENCH_FULL=1) into the default cache and checks their oracles
// as above; the paper's oracle VOC on these volumes is 90.05 %
// (notebooks/TARGETS.md §4), so one far from it points at the supervoxels
// or the masks (notebook 04's full run measured 89.6 % on the testing
// volume).
func TestMitoFullOracle(t *testing.T) {
	if os.Getenv("PSUB_BENCH_FULL") != "1" {
		t.Skip("set PSUB_BENCH_FULL=1 to build the whole EM volumes")
	}
	dir := needDataSet(t, MitoDir)
	for _, vol := range []string{"training", "testing"} {
		set, err := BuildMito(MitoOptions{Volume: vol, Cache: DefaultSegmentCache()})
		if err != nil {
			t.Fatal(err)
		}
		checkMitoOracle(t, dir, vol, MitoBox{}, set)
		if voc := set.Items[0].Oracle.VOC(); math.Abs(voc-0.9005) > 0.02 {
			t.Errorf("%s: oracle VOC %.4f, more than 2 points from the paper's 0.9005", vol, voc)
		}
	}
}
