package data

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// README: masks pair with their images: mitochondria are darker (mean grey
// 96 inside, 142 outside; 38–60 levels darker on every slice), and the
// difference vanishes when a mask is paired with a slice 80 positions away.
func TestMitoMasksDarkerThanBackground(t *testing.T) {
	dir := needDataSet(t, MitoDir)
	for _, vol := range []string{"training", "testing"} {
		images, masks, err := ImageMaskPairs(filepath.Join(dir, vol, "images"), filepath.Join(dir, vol, "masks_derived"), ".png")
		if err != nil {
			t.Fatal(err)
		}
		if len(images) != MitoSlices {
			t.Fatalf("%s: %d slices, README says %d", vol, len(images), MitoSlices)
		}
		for _, z := range []int{0, 82, 164} {
			img, mask, err := imageio.ReadImageMask(images[z], masks[z], imageio.ThresholdNonZero)
			if err != nil {
				t.Fatal(err)
			}
			if img.Width != MitoWidth || img.Height != MitoHeight || img.Channels != 1 {
				t.Fatalf("%s: %d×%d, %d channels; README: 1024×768 grey", images[z], img.Width, img.Height, img.Channels)
			}
			in, out := meanInOut(img, mask)
			// The same mask over a slice 80 positions away: no contrast.
			far, err := imageio.ReadImage(images[(z+80)%MitoSlices])
			if err != nil {
				t.Fatal(err)
			}
			fin, fout := meanInOut(far, mask)
			t.Logf("%s z=%d: mean grey %.1f inside, %.1f outside; over slice %d: %.1f, %.1f", vol, z, in, out, (z+80)%MitoSlices, fin, fout)
			if out-in < 30 {
				t.Errorf("%s: mitochondria only %.1f grey levels darker than background (README: 38–60)", images[z], out-in)
			}
			if d := fout - fin; d > (out-in)/2 || d < -(out-in)/2 {
				t.Errorf("%s: mask over a slice 80 away still shows a contrast of %.1f", masks[z], d)
			}
		}
	}
}

func meanInOut(img *imageio.Volume, mask *imageio.LabelMap) (in, out float64) {
	var sIn, sOut float64
	var nIn, nOut int
	for i, l := range mask.Labels {
		if l != 0 {
			sIn, nIn = sIn+float64(img.Pix[i]), nIn+1
		} else {
			sOut, nOut = sOut+float64(img.Pix[i]), nOut+1
		}
	}
	return sIn / float64(nIn), sOut / float64(nOut)
}

// A small crop with the paper's supervoxel size: instance invariants in 3-D,
// and the crop is the right part of the slices.
func TestMitoBuildCrop(t *testing.T) {
	dir := needDataSet(t, MitoDir)
	box := MitoBox{X: 300, Y: 200, Z: 10, Width: 96, Height: 80, Depth: 12}
	set, err := BuildMito(MitoOptions{Crop: box, KeepImage: true, Volume: "testing"})
	if err != nil {
		t.Fatal(err)
	}
	s := set.Items[0]
	n := s.Instance.Nodes()
	want := MitoSegments * 96 * 80 * 12 / (MitoWidth * MitoHeight * MitoSlices)
	t.Logf("%s: %d supervoxels (asked %d), %d edges, oracle VOC %.3f", s.Instance.Name, n, want, len(s.Instance.Edges), s.Oracle.VOC())
	if n < want/2 || n > 2*want {
		t.Errorf("%d supervoxels, expected about %d", n, want)
	}
	if !set.Reduced || !strings.Contains(set.Description, "crop 96×80×12") {
		t.Errorf("a crop must say so: %q", set.Description)
	}
	if fg := s.Oracle.Counts[2] + s.Oracle.Counts[3]; fg == 0 || fg == s.Oracle.Total() {
		t.Errorf("crop holds one class only (%d of %d voxels foreground): pick another", fg, s.Oracle.Total())
	}
	checkSegmented(t, s, 105)
	// Voxel (x, y, z) of the crop is pixel (300+x, 200+y) of slice test_(11+z).
	z := 5
	slice, err := imageio.ReadImage(filepath.Join(dir, "testing", "images", fmt.Sprintf("test_%03d.png", box.Z+z+1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]int{{0, 0}, {95, 79}, {40, 17}} {
		if got, want := s.Image.Pix[s.Image.Index(p[0], p[1], z)], slice.Pix[slice.Index(box.X+p[0], box.Y+p[1], 0)]; got != want {
			t.Errorf("crop voxel %v,z=%d = %v, slice pixel %v", p, z, got, want)
		}
	}
}

func TestMitoOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  MitoOptions
		want string
	}{
		{"bad volume", MitoOptions{Volume: "validation"}, `volume "validation"`},
		{"crop outside", MitoOptions{Crop: MitoBox{X: 1000, Width: 100, Height: 10, Depth: 1}}, "does not fit"},
		{"empty crop", MitoOptions{Crop: MitoBox{X: 1}}, "does not fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := BuildMito(tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, expected %q", err, tc.want)
			}
		})
	}
}

func TestMitoBoxes(t *testing.T) {
	for i := range 2 {
		h := MitoHalf(i)
		if _, err := h.resolve(); err != nil || !h.isHalf() || h.Width*2 != MitoWidth || h.X != i*512 {
			t.Errorf("MitoHalf(%d) = %+v", i, h)
		}
	}
	if q, err := MitoQuickCrop().resolve(); err != nil || q.isHalf() {
		t.Errorf("MitoQuickCrop: %+v, %v", q, err)
	}
	if f, err := (MitoBox{}).resolve(); err != nil || f.Width*f.Height*f.Depth != MitoWidth*MitoHeight*MitoSlices {
		t.Errorf("zero box resolves to %+v, %v", f, err)
	}
}
