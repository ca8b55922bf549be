package feature

import (
	"fmt"
	"slices"

	"github.com/probably-submodular/crf/psub/imageio"
)

// checkMap verifies that a label map's slice matches its dimensions.
func checkMap(what string, m *imageio.LabelMap) error {
	if m == nil {
		return fmt.Errorf("%s: nil label map", what)
	}
	if m.Width <= 0 || m.Height <= 0 || m.Depth <= 0 {
		return fmt.Errorf("%s: label map %dx%dx%d: every dimension must be positive", what, m.Width, m.Height, m.Depth)
	}
	if n := m.Width * m.Height * m.Depth; len(m.Labels) != n {
		return fmt.Errorf("%s: label map %dx%dx%d has %d labels, expected %d", what, m.Width, m.Height, m.Depth, len(m.Labels), n)
	}
	return nil
}

// Count returns the number of regions n of a region map whose labels are
// 0..n−1: one more than the largest label. A negative label is an error
// naming the voxel. Labels need not all be used; an unused label is a
// region without voxels (its descriptors are zero rows).
func Count(regions *imageio.LabelMap) (int, error) {
	if err := checkMap("regions", regions); err != nil {
		return 0, err
	}
	top := int32(-1)
	for i, l := range regions.Labels {
		if l < 0 {
			x, y, z := coords(regions, i)
			return 0, fmt.Errorf("regions: voxel (%d,%d,%d) has negative label %d", x, y, z, l)
		}
		top = max(top, l)
	}
	return int(top) + 1, nil
}

func coords(m *imageio.LabelMap, i int) (x, y, z int) {
	return i % m.Width, i / m.Width % m.Height, i / (m.Width * m.Height)
}

// Adjacency returns the region adjacency graph of a region map: the pairs
// (a, b), a < b, of regions that touch across a face, i.e. 4-connectivity
// in 2-D (Depth 1) and 6-connectivity in 3-D. Edges are sorted
// lexicographically and unique.
//
// It makes one pass over the voxels, packing each boundary pair into a
// uint64 key (consecutive repeats along a row are skipped, which removes
// most duplicates at no cost), then sorts and compacts the keys: memory is
// a few bytes per boundary voxel, with no map per voxel.
func Adjacency(regions *imageio.LabelMap) ([][2]int, error) {
	if _, err := Count(regions); err != nil {
		return nil, err
	}
	w, h, d := regions.Width, regions.Height, regions.Depth
	L := regions.Labels
	var keys []uint64
	add := func(last *uint64, a, b int32) {
		if a > b {
			a, b = b, a
		}
		k := uint64(a)<<32 | uint64(b)
		if k != *last {
			keys = append(keys, k)
			*last = k
		}
	}
	plane := w * h
	for z := range d {
		for y := range h {
			row := L[z*plane+y*w : z*plane+y*w+w]
			lastX, lastY, lastZ := ^uint64(0), ^uint64(0), ^uint64(0)
			for x := 1; x < w; x++ {
				if row[x] != row[x-1] {
					add(&lastX, row[x-1], row[x])
				}
			}
			if y+1 < h {
				below := L[z*plane+(y+1)*w : z*plane+(y+1)*w+w]
				for x, l := range row {
					if below[x] != l {
						add(&lastY, l, below[x])
					}
				}
			}
			if z+1 < d {
				next := L[(z+1)*plane+y*w : (z+1)*plane+y*w+w]
				for x, l := range row {
					if next[x] != l {
						add(&lastZ, l, next[x])
					}
				}
			}
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	edges := make([][2]int, len(keys))
	for i, k := range keys {
		edges[i] = [2]int{int(k >> 32), int(k & 0xffffffff)}
	}
	return edges, nil
}
