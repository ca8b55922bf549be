package data_test

import (
	"fmt"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// An 8×4 image, red on the left and blue on the right, whose right half is
// the foreground: two superpixels, one edge, and a pairwise feature that is
// the difference of the two colour histograms.
func ExampleSegmentBuilder_Build() {
	img := imageio.NewVolume(8, 4, 1, 3)
	mask := imageio.NewLabelMap(8, 4, 1)
	for y := range 4 {
		for x := range 8 {
			i := img.Index(x, y, 0)
			if x < 4 {
				img.Pix[i] = 255 // red
			} else {
				img.Pix[i+2] = 255 // blue
				mask.Labels[mask.Index(x, y, 0)] = 1
			}
		}
	}
	b := data.SegmentBuilder{
		SLIC:       slic.Options{Segments: 2, Compactness: 20, Lab: true},
		Descriptor: data.CowDescriptor(),
	}
	s, err := b.Build("toy", img, mask)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := s.Instance
	fmt.Println("nodes", in.Nodes(), "edges", in.Edges, "labels", in.Labels)
	fmt.Println("unary dim", in.UnaryDim(), "pairwise dim", in.PairwiseDim())
	nonzero := 0.0
	for _, v := range in.Pairwise[0] {
		nonzero += v
	}
	fmt.Println("sum of |φ_0 − φ_1|:", nonzero)
	// Score a prediction that calls everything background, at pixel level.
	c, _ := s.Score([]int{0, 0})
	fmt.Printf("oracle VOC %.2f; all-background: accuracy %.2f, IoU %.2f\n", s.Oracle.VOC(), c.Accuracy(), c.IoU())
	// Output:
	// nodes 2 edges [[0 1]] labels [0 1]
	// unary dim 125 pairwise dim 125
	// sum of |φ_0 − φ_1|: 2
	// oracle VOC 1.00; all-background: accuracy 0.50, IoU [0.50 0.00]
}

// The quick profile's cows: the first 10 images at half resolution, cached
// under out/cache/segment, with a progress line. (No output is checked: the
// data may be absent.)
func ExampleBuildCows() {
	set, err := data.BuildCows(data.ImageSetOptions{
		Limit:     10,
		Downscale: 2,
		Cache:     data.DefaultSegmentCache(),
		Progress:  func(done, total int) { fmt.Printf("\rbuilt %d/%d", done, total) },
	})
	if err != nil {
		fmt.Println(err) // names where it looked and how to get the data
		return
	}
	fmt.Println()
	fmt.Println(set.Description) // say which data the results come from
	train := set.Instances()
	fmt.Println(len(train), "instances")
}
