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
// naming the voxel, as is a largest label above both the voxel count and
// 2^20 (ids must be dense). Labels need not all be used; an unused label is
// a region without voxels (its descriptors are zero rows).
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
	// Per-region arrays are allocated from n: a stray huge id must not
	// allocate gigabytes.
	if n := int(top) + 1; n > len(regions.Labels) && n > 1<<20 {
		return 0, fmt.Errorf("regions: largest label %d but only %d voxels; region ids must be 0..n-1", top, len(regions.Labels))
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
// uint64 key, then sorts and compacts the keys: no map, and memory of a few
// bytes per distinct boundary run. Most repeats never reach the key slice:
// for each direction, every region remembers the last partner it was
// paired with, and a boundary that continues along a row, column or slice
// hits that cache.
func Adjacency(regions *imageio.LabelMap) ([][2]int, error) {
	n, err := Count(regions)
	if err != nil {
		return nil, err
	}
	w, h, d := regions.Width, regions.Height, regions.Depth
	L := regions.Labels
	b := &ragBuilder{}
	for dir := range b.last {
		b.last[dir] = make([]int32, n)
	}
	plane := w * h
	for z := range d {
		for y := range h {
			row := L[z*plane+y*w : z*plane+y*w+w]
			for x := 1; x < w; x++ {
				if row[x] != row[x-1] {
					b.add(0, row[x-1], row[x])
				}
			}
			if y+1 < h {
				below := L[z*plane+(y+1)*w : z*plane+(y+1)*w+w]
				for x, l := range row {
					if below[x] != l {
						b.add(1, l, below[x])
					}
				}
			}
			if z+1 < d {
				next := L[(z+1)*plane+y*w : (z+1)*plane+y*w+w]
				for x, l := range row {
					if next[x] != l {
						b.add(2, l, next[x])
					}
				}
			}
		}
	}
	slices.Sort(b.keys)
	keys := slices.Compact(b.keys)
	edges := make([][2]int, len(keys))
	for i, k := range keys {
		edges[i] = [2]int{int(k >> 32), int(k & 0xffffffff)}
	}
	return edges, nil
}

// ragBuilder collects boundary pairs; last[dir][a] is 1 + the last partner
// b > a recorded for region a in direction dir (0: none yet).
type ragBuilder struct {
	keys []uint64
	last [3][]int32
}

func (r *ragBuilder) add(dir int, a, b int32) {
	if a > b {
		a, b = b, a
	}
	if r.last[dir][a] == b+1 {
		return
	}
	r.last[dir][a] = b + 1
	r.keys = append(r.keys, uint64(a)<<32|uint64(b))
}
