package data

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/imageio"
)

// BenchmarkPredictMitoCrop predicts the quick profile's crop of the EM
// training volume with a segmenter trained on that crop, as psub segment
// predict does: read the slices, Predict, write the mask (TIFF) and the
// overlay. BenchmarkPredictMitoFull predicts the whole training volume
// (1024×768×165, ~133K supervoxels): opt in with PSUB_BENCH_FULL=1 and run
// it alone (-run XXX -bench PredictMitoFull -benchtime 1x). Both report
// peak-heap-MB and maxrss-MB (see measure; the maximum RSS includes the
// training on the crop, about 100 MB). Numbers in BENCHMARKS.md.
func BenchmarkPredictMitoCrop(b *testing.B) {
	benchPredictMito(b, MitoQuickCrop())
}

func BenchmarkPredictMitoFull(b *testing.B) {
	if os.Getenv("PSUB_BENCH_FULL") != "1" {
		b.Skip("set PSUB_BENCH_FULL=1 to predict the full mitochondria volume")
	}
	benchPredictMito(b, MitoBox{})
}

// mitoSegmenter trains the mitochondria recipe with C4, C = 1 on the quick
// crop, with the preset's SLIC settings as region size (as psub segment
// train -recipe mito -region-size 998 -compactness 20 -sigma 5).
func mitoSegmenter(b *testing.B) *Segmenter {
	set, err := BuildMito(MitoOptions{Crop: MitoQuickCrop()})
	if err != nil {
		b.Fatal(err)
	}
	p := MitoPreset().Pipeline
	p.SLIC.Segments, p.RegionSize = 0, MitoWidth*MitoHeight*MitoSlices/MitoSegments
	crf, _, err := psub.Train(set.Instances(), 2, psub.Settings{C: 1, Set: psub.C4{}})
	if err != nil {
		b.Fatal(err)
	}
	return NewSegmenter(p, crf)
}

func benchPredictMito(b *testing.B, box MitoBox) {
	needDataSetB(b, MitoDir)
	seg := mitoSegmenter(b)
	dir, err := Find("", MitoDir)
	if err != nil {
		b.Fatal(err)
	}
	images, err := filepath.Glob(filepath.Join(dir, "training", "images", "*.png"))
	if err != nil || len(images) != MitoSlices {
		b.Fatalf("%d training slices (%v), want %d", len(images), err, MitoSlices)
	}
	box, err = box.resolve()
	if err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	var nodes int
	measure(b, func() error {
		v, err := imageio.ReadStack(images[box.Z : box.Z+box.Depth])
		if err != nil {
			return err
		}
		if box.Width != v.Width || box.Height != v.Height {
			c := imageio.NewVolume(box.Width, box.Height, box.Depth, 1)
			for z := range box.Depth {
				for y := range box.Height {
					copy(c.Pix[c.Index(0, y, z):][:box.Width], v.Pix[v.Index(box.X, box.Y+y, z):])
				}
			}
			v = c
		}
		z := v.Depth / 2
		base := SliceVolume(v, z)
		pred, err := seg.Predict("training", v) // v is dead from here
		if err != nil {
			return err
		}
		nodes = pred.Instance.Nodes()
		if err := seg.WriteMask(filepath.Join(out, "mask.tif"), pred.Pixels); err != nil {
			return err
		}
		return WriteOverlay(filepath.Join(out, "overlay.png"), base, SliceLabels(pred.Pixels, z), 0)
	})
	b.ReportMetric(float64(nodes), "supervoxels")
	b.ReportMetric(float64(box.Width*box.Height*box.Depth), "voxels")
}
