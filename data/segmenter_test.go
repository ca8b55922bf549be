package data

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// cubeVolume is a grey w×h×d volume with a bright box and its 0/255 mask.
func cubeVolume(w, h, d int) (*imageio.Volume, *imageio.LabelMap) {
	img, mask := imageio.NewVolume(w, h, d, 1), imageio.NewLabelMap(w, h, d)
	for z := range d {
		for y := range h {
			for x := range w {
				i := img.Index(x, y, z)
				img.Pix[i] = float32(40 + (x*7+y*3+z*5)%20)
				if x >= w/3 && x < 3*w/4 && y >= h/4 && y < 3*h/4 && z >= 1 && z < d-1 {
					img.Pix[i] += 150
					mask.Labels[i] = 1
				}
			}
		}
	}
	return img, mask
}

// volumeSegmenter trains a mitochondria-recipe segmenter on a small cube
// volume.
func volumeSegmenter(t testing.TB) *Segmenter {
	t.Helper()
	img, mask := cubeVolume(24, 20, 6)
	p := Pipeline{Recipe: Recipe{Name: RecipeHistGLCMBias}, SLIC: slic.Options{Compactness: 1}, RegionSize: 40}
	b, err := p.Builder(img.Voxels())
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Build("train", img, mask)
	if err != nil {
		t.Fatal(err)
	}
	crf, _, err := psub.Train([]psub.Instance{s.Instance}, 2, psub.Settings{C: 1, Set: psub.C4{}})
	if err != nil {
		t.Fatal(err)
	}
	return NewSegmenter(p, crf)
}

// Predict and WriteMask give what the plain steps give (the regions of
// Segment, CRF inference, feature.Project, MaskImage written by WriteTIFF),
// although Predict paints the labels into the region map and WriteMask
// writes from the labels without a sample volume.
func TestPredictAsTheSteps(t *testing.T) {
	seg := volumeSegmenter(t)
	img, _ := cubeVolume(30, 26, 8)
	for z := range img.Depth { // not the training volume
		img.Pix[img.Index(3, 5, z)] += 17
	}
	// The plain steps, on a copy (Predict may free the image).
	ref, err := seg.Pipeline.Segment("test", &imageio.Volume{Width: img.Width, Height: img.Height, Depth: img.Depth, Channels: 1, Pix: append([]float32(nil), img.Pix...)})
	if err != nil {
		t.Fatal(err)
	}
	r, err := seg.CRF.Predict(&ref.Instance)
	if err != nil {
		t.Fatal(err)
	}
	want, err := feature.Project(ref.Regions, r.Labels)
	if err != nil {
		t.Fatal(err)
	}
	var wantTIFF bytes.Buffer
	if err := imageio.EncodeTIFF(&wantTIFF, seg.MaskImage(want), nil); err != nil {
		t.Fatal(err)
	}

	pred, err := seg.Predict("test", img)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pred.Pixels, want) {
		t.Fatal("Predict's pixels differ from the projection of the CRF's labels on Segment's regions")
	}
	if !reflect.DeepEqual(pred.Instance.Labels, r.Labels) || pred.Truncated != r.Truncated {
		t.Errorf("instance labels %v, truncated %d; want %v, %d", pred.Instance.Labels, pred.Truncated, r.Labels, r.Truncated)
	}
	if c := map[int32]bool{}; true {
		for _, l := range want.Labels {
			c[l] = true
		}
		if len(c) != 2 {
			t.Fatalf("the test volume predicts classes %v: want both, so that the mask says something", c)
		}
	}
	path := filepath.Join(t.TempDir(), "mask.tif")
	if err := seg.WriteMask(path, pred.Pixels); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantTIFF.Bytes()) {
		t.Error("WriteMask's TIFF differs from WriteTIFF of MaskImage")
	}
	// The overlay of a slice is the overlay of that slice of the volume.
	z := img.Depth / 2
	if a, b := Overlay(img, want, z), Overlay(SliceVolume(img, z), SliceLabels(pred.Pixels, z), 0); !reflect.DeepEqual(a, b) {
		t.Error("the overlay of SliceVolume and SliceLabels differs from the volume's")
	}
}

// Predict keeps no reference to the image it was given: a caller that
// drops its own (psub segment predict does) lets it be collected.
func TestPredictFreesTheImage(t *testing.T) {
	seg := volumeSegmenter(t)
	img, _ := cubeVolume(30, 26, 8)
	freed := make(chan struct{})
	runtime.AddCleanup(&img.Pix[0], func(ch chan struct{}) { close(ch) }, freed)
	pred, err := seg.Predict("test", img)
	if err != nil {
		t.Fatal(err)
	}
	img = nil
	for range 50 {
		runtime.GC()
		select {
		case <-freed:
			runtime.KeepAlive(pred)
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	runtime.KeepAlive(pred)
	t.Fatal("the image was not collected while the prediction is alive: something in it refers to the image")
}

// The peak heap of Predict and WriteMask, above the heap that holds the
// image, grows with the voxels as SLIC's own buffers do: the smoothed copy,
// the labels and the distances (12 bytes a voxel), and a little for the
// features of ~1000-voxel supervoxels. Without the collection after SLIC
// the features grew the heap to twice what was live during SLIC (22
// bytes a voxel here, 3.97 GB on the whole EM volume). Skipped with
// -short.
func TestPredictPeakScales(t *testing.T) {
	if testing.Short() {
		t.Skip("predicts a 2.4 M-voxel volume")
	}
	seg := volumeSegmenter(t)
	seg.Pipeline.RegionSize = 1000 // the EM volumes' supervoxels
	defer func(v int) { collectAfterSLIC = v }(collectAfterSLIC)
	collectAfterSLIC = 0 // the small volume is collected as a large one
	path := filepath.Join(t.TempDir(), "mask.tif")
	for _, size := range [][3]int{{160, 120, 32}, {320, 240, 32}} {
		img, _ := cubeVolume(size[0], size[1], size[2])
		voxels := img.Voxels()
		runtime.GC()
		base := heapObjects()
		h := startHeapSampler()
		pred, err := seg.Predict("test", img)
		if err != nil {
			t.Fatal(err)
		}
		img = nil
		if err := seg.WriteMask(path, pred.Pixels); err != nil {
			t.Fatal(err)
		}
		peak := h.Stop()
		perVoxel := float64(peak-min(base, peak)) / float64(voxels)
		t.Logf("%d voxels, %d supervoxels: peak %.1f MB above the start, %.1f bytes a voxel", voxels, pred.Instance.Nodes(), float64(peak-min(base, peak))/(1<<20), perVoxel)
		if perVoxel > 17 {
			t.Errorf("%d voxels: peak heap %.1f bytes a voxel above the image, want at most 17 (12 for SLIC, the rest features)", voxels, perVoxel)
		}
	}
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
