package slic_test

import (
	"fmt"

	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// Two superpixels on an 8×4 image, red on the left, blue on the right: the
// boundary follows the colour edge.
func ExampleSegment() {
	v := imageio.NewVolume(8, 4, 1, 3)
	for y := range 4 {
		for x := range 8 {
			i := v.Index(x, y, 0)
			if x < 4 {
				v.Pix[i] = 255 // red
			} else {
				v.Pix[i+2] = 255 // blue
			}
		}
	}
	labels, n, err := slic.Segment(v, slic.Options{Segments: 2, Compactness: 20, Lab: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n, "segments")
	for y := range 4 {
		fmt.Println(labels.Labels[y*8 : (y+1)*8])
	}
	// Output:
	// 2 segments
	// [0 0 0 0 1 1 1 1]
	// [0 0 0 0 1 1 1 1]
	// [0 0 0 0 1 1 1 1]
	// [0 0 0 0 1 1 1 1]
}

// Supervoxels of a greyscale volume: a bright cube in a dark box.
func ExampleSegment_volume() {
	v := imageio.NewVolume(12, 12, 12, 1)
	for z := 6; z < 12; z++ {
		for y := 6; y < 12; y++ {
			for x := 6; x < 12; x++ {
				v.Pix[v.Index(x, y, z)] = 200
			}
		}
	}
	labels, n, err := slic.Segment(v, slic.Options{Segments: 8, Compactness: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n, "supervoxels; corner voxels:", labels.Labels[labels.Index(0, 0, 0)], labels.Labels[labels.Index(11, 11, 11)])
	// Output:
	// 8 supervoxels; corner voxels: 0 7
}
