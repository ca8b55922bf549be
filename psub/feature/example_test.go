package feature_test

import (
	"fmt"

	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/imageio"
)

// The graph, unary and pairwise features of a 4×2 image cut into three
// superpixels.
func Example() {
	regions := imageio.NewLabelMap(4, 2, 1)
	copy(regions.Labels, []int32{
		0, 0, 1, 1,
		2, 2, 2, 1,
	})
	img := imageio.NewVolume(4, 2, 1, 1)
	copy(img.Pix, []float32{
		10, 20, 200, 210,
		90, 100, 110, 220,
	})
	edges, _ := feature.Adjacency(regions)
	unary, _ := feature.IntensityHistogram(img, regions, 2, 255) // 2 bins: <128, >=128
	pairwise, _ := feature.Pairwise(unary, edges)
	fmt.Println("edges:", edges)
	fmt.Println("unary:", unary)
	fmt.Println("pairwise:", pairwise)
	// Output:
	// edges: [[0 1] [0 2] [1 2]]
	// unary: [[1 0] [0 1] [1 0]]
	// pairwise: [[1 1] [0 0] [1 1]]
}

func ExampleNewOracle() {
	regions := imageio.NewLabelMap(4, 1, 1)
	copy(regions.Labels, []int32{0, 0, 0, 1})
	truth := imageio.NewLabelMap(4, 1, 1)
	copy(truth.Labels, []int32{0, 0, 1, 1})
	o, _ := feature.NewOracle(regions, truth, 2)
	fmt.Println("region labels:", o.RegionLabels)
	fmt.Printf("accuracy %.2f, IoU %.3f, VOC %.3f\n", o.Voxels.Accuracy(), o.Voxels.IoU(), o.Voxels.VOC())
	// Output:
	// region labels: [0 1]
	// accuracy 0.75, IoU [0.667 0.500], VOC 0.583
}

// Student's sleep data, as R's t.test(extra ~ group, data = sleep, paired = TRUE).
func ExamplePairedTTest() {
	drug1 := []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	drug2 := []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
	t, p, _ := feature.PairedTTest(drug1, drug2)
	fmt.Printf("t = %.4f, p = %.6f\n", t, p)
	// Output: t = -4.0621, p = 0.002833
}
