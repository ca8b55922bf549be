package data_test

import (
	"fmt"
	"os"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/slic"
)

// A folder of images with masks beside them (img_001.jpg, img_001_mask.png,
// the object dark) becomes CRF instances, a trained Segmenter, and a mask
// for a new image.
func ExamplePipeline() {
	dir, err := os.MkdirTemp("", "pipeline-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if _, err := data.GenerateImageFolder(dir, data.ImageFolderOptions{Seed: 1, Images: 4}); err != nil {
		panic(err)
	}
	images, masks, suffix, err := data.Pair(dir, dir, data.PairOptions{AutoSuffix: true})
	if err != nil {
		panic(err)
	}
	p := data.Pipeline{
		Recipe:     data.Recipe{Name: data.RecipeRGBHist},
		SLIC:       slic.Options{Compactness: 10, Sigma: 1},
		RegionSize: 100,
		Masks:      data.MaskFormat{Invert: true},
	}
	items, err := p.Build(images[:3], masks[:3], false, data.BuildOptions{})
	if err != nil {
		panic(err)
	}
	var train []psub.Instance
	for _, it := range items {
		train = append(train, it.Instance)
	}
	crf, _, err := psub.Train(train, 2, psub.Settings{C: 1, Set: psub.C4{}})
	if err != nil {
		panic(err)
	}
	seg := data.NewSegmenter(p, crf)
	img, truth, err := p.Load(images[3], masks[3])
	if err != nil {
		panic(err)
	}
	pred, err := seg.Predict(data.Stem(images[3]), img)
	if err != nil {
		panic(err)
	}
	score, err := data.ScoreMask(truth, pred.Pixels, 2)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d pairs, mask suffix %q, unary dimension %d\n", len(images), suffix, items[0].Instance.UnaryDim())
	fmt.Printf("%s: %d×%d mask, classes %v written as %v, pixel accuracy above 0.8: %v\n",
		pred.Instance.Name, pred.Pixels.Width, pred.Pixels.Height, seg.Classes, seg.MaskValues, score.Accuracy() > 0.8)
	// Output:
	// 4 pairs, mask suffix "_mask", unary dimension 125
	// img_004: 192×144 mask, classes [background object] written as [255 0], pixel accuracy above 0.8: true
}
