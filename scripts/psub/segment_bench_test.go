package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/cputime"
	"github.com/probably-submodular/crf/psub"
)

// BenchmarkSegmentPredict1024x768 is "psub segment predict" end to end on
// one 1024×768 colour JPEG (decode, SLIC with ~3,900 superpixels of 200 px,
// features, inference, mask, overlay and summary written), with a C4 model
// trained on the generated folder. Run with -cpu 1 for the one-core goal.
func BenchmarkSegmentPredict1024x768(b *testing.B) {
	dir := b.TempDir()
	train, big := filepath.Join(dir, "train"), filepath.Join(dir, "big")
	if _, err := data.GenerateImageFolder(train, data.ImageFolderOptions{Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if _, err := data.GenerateImageFolder(big, data.ImageFolderOptions{Seed: 3, Images: 1, Width: 1024, Height: 768}); err != nil {
		b.Fatal(err)
	}
	model := filepath.Join(dir, "m.json")
	if code := run([]string{"segment", "train", "-images", train, "-o", model, "-invert"}, io.Discard, io.Discard); code != 0 {
		b.Fatal("training failed")
	}
	b.ResetTimer()
	cpu := cputime.Seconds()
	defer func() { b.ReportMetric((cputime.Seconds()-cpu)/float64(b.N), "cpu-s/op") }()
	for i := range b.N {
		var errb bytes.Buffer
		out := filepath.Join(dir, fmt.Sprintf("out%d", i))
		if code := run([]string{"segment", "predict", "-model", model, "-images", filepath.Join(big), "-o", out}, io.Discard, &errb); code != 0 {
			b.Fatal(errb.String())
		}
	}
}

// cowsFolders finds the cows' image and mask folders, or skips.
func cowsFolders(b *testing.B) (images, masks string) {
	dir, err := data.Locator{}.Find(data.CowsDir)
	if err != nil {
		b.Skip(err)
	}
	return filepath.Join(dir, "images"), filepath.Join(dir, "masks")
}

// BenchmarkSegmentTrainCows is "psub segment train" on the 111 cows with
// the cows preset's settings written as flags (rgb-hist, 500 segments,
// m = 20, σ = 2, mask Y ≥ 1), C4, C = 1; compare with
// BenchmarkCowsBuilderFit, the same problems by data.BuildCows and one
// psub.Train.
func BenchmarkSegmentTrainCows(b *testing.B) {
	images, masks := cowsFolders(b)
	cpu := cputime.Seconds()
	defer func() { b.ReportMetric((cputime.Seconds()-cpu)/float64(b.N), "cpu-s/op") }()
	for range b.N {
		model := filepath.Join(b.TempDir(), "m.json")
		var errb bytes.Buffer
		if code := run([]string{"segment", "train", "-images", images, "-masks", masks, "-o", model,
			"-recipe", "cows", "-segments", "500", "-compactness", "20", "-sigma", "2", "-mask-threshold", "1", "-set", "C4", "-C", "1"}, io.Discard, &errb); code != 0 {
			b.Fatal(errb.String())
		}
	}
}

// BenchmarkCowsBuilderFit builds the 111 cows with data.BuildCows (no
// cache) and fits C4 with C = 1 once.
func BenchmarkCowsBuilderFit(b *testing.B) {
	cowsFolders(b)
	cpu := cputime.Seconds()
	defer func() { b.ReportMetric((cputime.Seconds()-cpu)/float64(b.N), "cpu-s/op") }()
	for range b.N {
		s, err := data.BuildCows(data.ImageSetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := psub.Train(s.Instances(), 2, psub.Settings{C: 1, Set: psub.C4{}}); err != nil {
			b.Fatal(err)
		}
	}
}
