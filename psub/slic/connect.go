package slic

// enforceConnectivity relabels labels in place so that every label is one
// connected component (4-neighbours in 2-D, 6 in 3-D), numbered 0..n-1 in
// raster order of first voxel, and returns n. Components are grown by
// breadth-first search from their first voxel in raster order and stop
// growing at maxSize voxels (the rest becomes further components); a
// component smaller than minSize joins the region of an already relabelled
// neighbour of its first voxel, which keeps that region connected. This is
// scikit-image's rule. Relabelled voxels are stored as -(new+1) during the
// pass, so no second label array is needed.
func enforceConnectivity(labels []int32, sh shape, minSize, maxSize int) int {
	maxSize = max(maxSize, 1)
	W, H, D := sh.W, sh.H, sh.D
	plane := W * H
	var queue []int32
	next := int32(0)
	// neighbours appends the in-bounds 6-neighbours of voxel i.
	neighbours := func(i int, buf []int) []int {
		buf = buf[:0]
		x, y, z := i%W, (i/W)%H, i/plane
		if x > 0 {
			buf = append(buf, i-1)
		}
		if y > 0 {
			buf = append(buf, i-W)
		}
		if z > 0 {
			buf = append(buf, i-plane)
		}
		if x < W-1 {
			buf = append(buf, i+1)
		}
		if y < H-1 {
			buf = append(buf, i+W)
		}
		if z < D-1 {
			buf = append(buf, i+plane)
		}
		return buf
	}
	nb := make([]int, 0, 6)
	for i, l := range labels {
		if l < 0 {
			continue
		}
		adjacent := int32(-1)
		for _, n := range neighbours(i, nb) {
			if labels[n] < 0 {
				adjacent = labels[n]
				break
			}
		}
		mark := -(next + 1)
		labels[i] = mark
		queue = append(queue[:0], int32(i))
		for head := 0; head < len(queue) && len(queue) < maxSize; head++ {
			for _, n := range neighbours(int(queue[head]), nb) {
				if labels[n] == l {
					labels[n] = mark
					queue = append(queue, int32(n))
					if len(queue) >= maxSize {
						break
					}
				}
			}
		}
		if len(queue) < minSize && adjacent < 0 {
			for _, p := range queue {
				labels[p] = adjacent
			}
			continue
		}
		next++
	}
	for i, l := range labels {
		labels[i] = -l - 1
	}
	return int(next)
}

// compact renumbers the centre indices 0..k-1 that occur in labels to
// 0..n-1 in increasing order and returns n.
func compact(labels []int32, k int) int {
	newID := make([]int32, k)
	for _, l := range labels {
		newID[l] = 1
	}
	n := int32(0)
	for i, used := range newID {
		if used != 0 {
			newID[i] = n
			n++
		}
	}
	for i, l := range labels {
		labels[i] = newID[l]
	}
	return int(n)
}
