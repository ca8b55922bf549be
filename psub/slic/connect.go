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
	// The queue holds coordinates with the index, so that neighbours need
	// no division.
	type voxel struct{ x, y, z, i int32 }
	var queue []voxel
	next := int32(0)
	for i0 := 0; i0 < len(labels); i0++ {
		// Skip the voxels already relabelled (most of them) in a tight
		// loop; coordinates are worked out only where a component starts.
		for i0 < len(labels) && labels[i0] < 0 {
			i0++
		}
		if i0 == len(labels) {
			break
		}
		i := i0
		x, y, z := i%W, i/W%H, i/plane
		l := labels[i]
		adjacent := int32(0) // 0: none; otherwise a relabelled value -(new+1)
		switch {
		case x > 0 && labels[i-1] < 0:
			adjacent = labels[i-1]
		case y > 0 && labels[i-W] < 0:
			adjacent = labels[i-W]
		case z > 0 && labels[i-plane] < 0:
			adjacent = labels[i-plane]
		case x < W-1 && labels[i+1] < 0:
			adjacent = labels[i+1]
		case y < H-1 && labels[i+W] < 0:
			adjacent = labels[i+W]
		case z < D-1 && labels[i+plane] < 0:
			adjacent = labels[i+plane]
		}
		mark := -(next + 1)
		labels[i] = mark
		queue = append(queue[:0], voxel{int32(x), int32(y), int32(z), int32(i)})
		for head := 0; head < len(queue) && len(queue) < maxSize; head++ {
			v := queue[head]
			j := int(v.i)
			// Neighbours in the order x-1, y-1, z-1, x+1, y+1, z+1; each
			// still in l is marked and queued, up to maxSize voxels.
			if v.x > 0 && labels[j-1] == l && len(queue) < maxSize {
				labels[j-1] = mark
				queue = append(queue, voxel{v.x - 1, v.y, v.z, v.i - 1})
			}
			if v.y > 0 && labels[j-W] == l && len(queue) < maxSize {
				labels[j-W] = mark
				queue = append(queue, voxel{v.x, v.y - 1, v.z, v.i - int32(W)})
			}
			if v.z > 0 && labels[j-plane] == l && len(queue) < maxSize {
				labels[j-plane] = mark
				queue = append(queue, voxel{v.x, v.y, v.z - 1, v.i - int32(plane)})
			}
			if int(v.x) < W-1 && labels[j+1] == l && len(queue) < maxSize {
				labels[j+1] = mark
				queue = append(queue, voxel{v.x + 1, v.y, v.z, v.i + 1})
			}
			if int(v.y) < H-1 && labels[j+W] == l && len(queue) < maxSize {
				labels[j+W] = mark
				queue = append(queue, voxel{v.x, v.y + 1, v.z, v.i + int32(W)})
			}
			if int(v.z) < D-1 && labels[j+plane] == l && len(queue) < maxSize {
				labels[j+plane] = mark
				queue = append(queue, voxel{v.x, v.y, v.z + 1, v.i + int32(plane)})
			}
		}
		if len(queue) < minSize && adjacent < 0 {
			for _, v := range queue {
				labels[v.i] = adjacent
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
