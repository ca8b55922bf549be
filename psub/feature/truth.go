package feature

import (
	"fmt"

	"github.com/probably-submodular/crf/psub/imageio"
)

// checkClasses verifies that a class map has the region map's size and
// labels in [0, numClasses).
func checkClasses(regions, classes *imageio.LabelMap, numClasses int) error {
	if err := checkMap("classes", classes); err != nil {
		return err
	}
	if numClasses < 1 {
		return fmt.Errorf("%d classes: need at least 1", numClasses)
	}
	if regions.Width != classes.Width || regions.Height != classes.Height || regions.Depth != classes.Depth {
		return fmt.Errorf("region map is %dx%dx%d but class map is %dx%dx%d",
			regions.Width, regions.Height, regions.Depth, classes.Width, classes.Height, classes.Depth)
	}
	for i, c := range classes.Labels {
		if c < 0 || int(c) >= numClasses {
			x, y, z := coords(classes, i)
			return fmt.Errorf("classes: voxel (%d,%d,%d) has class %d, expected 0..%d", x, y, z, c, numClasses-1)
		}
	}
	return nil
}

// MajorityVote returns the ground-truth class of every region: the class
// of most of its voxels in the class map (ties go to the smaller class; a
// region without voxels gets class 0).
func MajorityVote(regions, classes *imageio.LabelMap, numClasses int) ([]int, error) {
	n, err := Count(regions)
	if err != nil {
		return nil, err
	}
	if err := checkClasses(regions, classes, numClasses); err != nil {
		return nil, err
	}
	votes := make([]int64, n*numClasses)
	for i, r := range regions.Labels {
		votes[int(r)*numClasses+int(classes.Labels[i])]++
	}
	out := make([]int, n)
	for r := range out {
		v := votes[r*numClasses : (r+1)*numClasses]
		best := 0
		for c := 1; c < numClasses; c++ {
			if v[c] > v[best] {
				best = c
			}
		}
		out[r] = best
	}
	return out, nil
}

// Project paints every voxel with the label of its region, turning region
// labels (a prediction or a majority vote) back into a voxel label map for
// pixel-level metrics.
func Project(regions *imageio.LabelMap, regionLabels []int) (*imageio.LabelMap, error) {
	n, err := Count(regions)
	if err != nil {
		return nil, err
	}
	if len(regionLabels) < n {
		return nil, fmt.Errorf("project: %d region labels for %d regions", len(regionLabels), n)
	}
	out := imageio.NewLabelMap(regions.Width, regions.Height, regions.Depth)
	for i, r := range regions.Labels {
		out.Labels[i] = int32(regionLabels[r])
	}
	return out, nil
}

// Oracle is the best a labelling of these regions can do (the paper's
// "Oracle" row): every region takes its majority class, and the result is
// compared with the class map voxel by voxel.
type Oracle struct {
	RegionLabels []int      // majority class of each region
	Voxels       *Confusion // voxel-level confusion of the projected labels
}

// NewOracle computes the oracle of a region map against a class map. The
// majority vote maximises voxel accuracy over region labellings (checked by
// enumeration in the tests); its IoU and VOC are reported as they are,
// although another labelling could score a higher IoU.
func NewOracle(regions, classes *imageio.LabelMap, numClasses int) (*Oracle, error) {
	labels, err := MajorityVote(regions, classes, numClasses)
	if err != nil {
		return nil, err
	}
	c := NewConfusion(numClasses)
	for i, r := range regions.Labels {
		c.Add(int(classes.Labels[i]), labels[r])
	}
	return &Oracle{labels, c}, nil
}
