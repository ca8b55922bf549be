package slic

import (
	"math"
	"unsafe"
)

// updateChunks is the fixed number of row blocks whose partial centre sums
// are added in order; fixing it (rather than using one block per worker)
// keeps the floating-point sums, hence the labels, independent of Workers.
const updateChunks = 8

// stripBytes is the size of the rows of labels, distances and features
// that the assignment keeps in cache: a centre is offered to strips of rows
// of about this size at a time. (A variable so that tests can force strips
// on small images.)
var stripBytes = 256 << 10

// clusterer holds the k-means state. Centre k has position (cx, cy, cz)[k]
// and feature col[k*C : (k+1)*C]; feat holds one plane per channel.
type clusterer struct {
	sh         shape
	feat       [][]float32
	labels     []int32
	dist       []uint32 // float32 bits of the best distance so far
	cx, cy, cz []float64
	col        []float32
	w          float32    // (m/S)², the weight of squared spatial distance
	sp         [3]float32 // voxel spacing along x, y, z
	rad        [3]float64 // search window half-widths along x, y, z
	workers    int
	strip      int // rows per strip of the assignment (see stripBytes)

	partial [][]float64 // per update chunk: K × (4+C) sums
	old     [][]int32   // per worker: labels of the current strip before assignment
	yterm   [][]float32 // per worker: the spatial y and z term of a centre, per row
	tx      []float32   // the spatial x term of centre k: tx[txAt[k]:txAt[k+1]]
	txAt    []int
}

func newClusterer(feat [][]float32, sh shape, g grid, opt Options) *clusterer {
	c := &clusterer{sh: sh, feat: feat, workers: opt.Workers}
	c.cx, c.cy, c.cz = g.seeds()
	step := float64(max(g.step[0], g.step[1], g.step[2]))
	c.w = float32((opt.Compactness / step) * (opt.Compactness / step))
	for a := range 3 {
		c.sp[a] = float32(opt.Spacing[a])
		c.rad[a] = opt.SearchRadius * float64(g.step[a])
	}
	if opt.PerturbSeeds {
		c.perturbSeeds()
	}
	// Tall windows over long rows (2-D images) sweep more memory than the
	// cache holds before coming back to a row: cut them into strips. Short
	// windows (3-D supervoxels) fit as they are.
	rowBytes := sh.W * (8 + 4*sh.C)
	c.strip = sh.H
	if (2*c.rad[1]+1)*float64(rowBytes) > float64(stripBytes) {
		c.strip = max(1, stripBytes/rowBytes)
	}
	k := len(c.cx)
	c.col = make([]float32, k*sh.C)
	for i := range k {
		if opt.ZeroInit {
			break
		}
		at := c.index(int(c.cx[i]), int(c.cy[i]), int(c.cz[i]))
		for ch, plane := range feat {
			c.col[i*sh.C+ch] = plane[at]
		}
	}
	// Start from the nearest grid cell, so a voxel outside every window in
	// the first round still has a sensible label.
	n := sh.W * sh.H * sh.D
	c.labels = make([]int32, n)
	c.dist = make([]uint32, n)
	cellX := make([]int32, sh.W)
	for x := range cellX {
		cellX[x] = int32(g.cell(0, x))
	}
	parallelFor(sh.H*sh.D, c.workers, func(a, b int) {
		for row := a; row < b; row++ {
			z, y := row/sh.H, row%sh.H
			base := int32((g.cell(2, z)*g.count[1] + g.cell(1, y)) * g.count[0])
			out := c.labels[row*sh.W : (row+1)*sh.W]
			for x, cx := range cellX {
				out[x] = base + cx
			}
		}
	})
	c.partial = make([][]float64, updateChunks)
	c.old = make([][]int32, c.workers)
	c.yterm = make([][]float32, c.workers)
	return c
}

func (c *clusterer) index(x, y, z int) int { return (z*c.sh.H+y)*c.sh.W + x }

// perturbSeeds moves each seed to the voxel of lowest gradient magnitude in
// its 3×3(×3) neighbourhood (Achanta et al., Alg. 1), so seeds avoid edges.
func (c *clusterer) perturbSeeds() {
	sh := c.sh
	grad := func(x, y, z int) float64 {
		g := 0.0
		pairs := [3][2]int{
			{c.index(max(x-1, 0), y, z), c.index(min(x+1, sh.W-1), y, z)},
			{c.index(x, max(y-1, 0), z), c.index(x, min(y+1, sh.H-1), z)},
			{c.index(x, y, max(z-1, 0)), c.index(x, y, min(z+1, sh.D-1))},
		}
		for _, p := range pairs {
			for _, plane := range c.feat {
				d := float64(plane[p[1]] - plane[p[0]])
				g += d * d
			}
		}
		return g
	}
	for k := range c.cx {
		x0, y0, z0 := int(c.cx[k]), int(c.cy[k]), int(c.cz[k])
		best, bx, by, bz := math.Inf(1), x0, y0, z0
		for z := max(z0-1, 0); z <= min(z0+1, sh.D-1); z++ {
			for y := max(y0-1, 0); y <= min(y0+1, sh.H-1); y++ {
				for x := max(x0-1, 0); x <= min(x0+1, sh.W-1); x++ {
					if g := grad(x, y, z); g < best {
						best, bx, by, bz = g, x, y, z
					}
				}
			}
		}
		c.cx[k], c.cy[k], c.cz[k] = float64(bx), float64(by), float64(bz)
	}
}

// run alternates assignment and update at most maxIter times, stopping
// early once an assignment changes no label. The first assignment always
// leads to an update: the labels it is compared with are the starting
// nearest-grid-cell labels, not an assignment to the centres, so an
// unchanged first assignment does not mean the centres are the means of
// their voxels (with ZeroInit and an odd grid step the purely spatial first
// assignment reproduces the starting labels exactly, and stopping there
// returned the seed grid unclustered). From the second round on, an
// unchanged assignment means the update would return the same centres.
func (c *clusterer) run(maxIter int) {
	for it := range maxIter {
		last := it == maxIter-1
		// Whether labels changed matters only from the second round on,
		// and not in the last.
		track := it > 0 && !last
		if changed := c.step(!last, track); track && !changed {
			return
		}
		if !last {
			c.moveCentres()
		}
	}
}

// window is the clipped index range [lo, hi) of the search window of a
// centre at coordinate p with half-width r on an axis of length n.
func window(p, r float64, n int) (lo, hi int) {
	lo = max(int(math.Floor(p-r)), 0)
	hi = min(int(math.Floor(p+r))+1, n)
	return lo, hi
}

// step gives every voxel the nearest centre among those whose window
// covers it, ties to the lower centre index, and, if sums, adds up the
// voxels of every centre into c.partial for moveCentres. If track, it
// reports whether any label changed (else false).
//
// The centre sums are floating-point, so their order is fixed: rows are cut
// into updateChunks chunks, each summed in raster order into its own
// partial. With at most updateChunks workers a task assigns the rows of a
// chunk strip by strip and sums each strip as soon as it is assigned, while
// it is in cache: one pass over the volume per iteration. With more workers the assignment is cut finer and
// the sums follow in a second pass. A voxel's label does not depend on the
// cut, nor the sums on the number of workers.
func (c *clusterer) step(sums, track bool) bool {
	sh := c.sh
	// bucket[start[z]:start[z+1]] lists, in increasing order, the centres
	// whose window covers slice z.
	start := make([]int, sh.D+1)
	for k := range c.cz {
		lo, hi := window(c.cz[k], c.rad[2], sh.D)
		for z := lo; z < hi; z++ {
			start[z+1]++
		}
	}
	for z := range sh.D {
		start[z+1] += start[z]
	}
	bucket := make([]int32, start[sh.D])
	fill := append([]int(nil), start[:sh.D]...)
	for k := range c.cz {
		lo, hi := window(c.cz[k], c.rad[2], sh.D)
		for z := lo; z < hi; z++ {
			bucket[fill[z]] = int32(k)
			fill[z]++
		}
	}
	c.tabulateX()
	rows := sh.H * sh.D
	tasks := updateChunks
	fused := c.workers <= updateChunks
	if !fused {
		tasks = min(4*c.workers, rows)
	}
	changed := make([]bool, tasks)
	runTasks(tasks, c.workers, func(w, t int) {
		var partial []float64
		if fused && sums {
			partial = c.clearPartial(t)
		}
		changed[t] = c.assignRows(w, rows*t/tasks, rows*(t+1)/tasks, bucket, start, partial, track)
	})
	if !fused && sums {
		runTasks(updateChunks, c.workers, func(_, ch int) {
			c.accumulate(c.clearPartial(ch), rows*ch/updateChunks, rows*(ch+1)/updateChunks)
		})
	}
	for _, ch := range changed {
		if ch {
			return true
		}
	}
	return false
}

// tabulateX fills c.tx: the x part of every centre's spatial term,
// (m/S)²·(sx·dx)², over its window, the same on every row and slice of it.
// dx starts at the window's left end and steps down by 1, one float32
// sequence per centre whatever the rows and strips.
func (c *clusterer) tabulateX() {
	k := len(c.cx)
	c.txAt = append(c.txAt[:0], 0)
	for j := range k {
		lo, hi := window(c.cx[j], c.rad[0], c.sh.W)
		c.txAt = append(c.txAt, c.txAt[j]+hi-lo)
	}
	if cap(c.tx) < c.txAt[k] {
		c.tx = make([]float32, c.txAt[k])
	}
	c.tx = c.tx[:c.txAt[k]]
	wx := c.w * c.sp[0] * c.sp[0]
	for j := range k {
		lo, _ := window(c.cx[j], c.rad[0], c.sh.W)
		dx := float32(c.cx[j]) - float32(lo)
		tx := c.tx[c.txAt[j]:c.txAt[j+1]]
		for i := range tx {
			tx[i] = wx * dx * dx
			dx--
		}
	}
}

// assignRows assigns the voxels of rows [r0, r1) (row z·H + y) as step
// describes, w being the worker. If track, it reports whether any label
// changed (else false). If partial is not nil, it adds up the voxels of
// every strip of rows into it (accumulate) as soon as the strip is
// assigned, while the strip is in cache: the rows are still added in raster
// order.
func (c *clusterer) assignRows(w, r0, r1 int, bucket []int32, start []int, partial []float64, track bool) bool {
	sh := c.sh
	inf := math.Float32bits(float32(math.Inf(1)))
	changed := false
	for z := r0 / sh.H; z*sh.H < r1; z++ {
		y0, y1 := max(r0-z*sh.H, 0), min(r1-z*sh.H, sh.H)
		for ys := y0; ys < y1; ys += c.strip {
			ye := min(ys+c.strip, y1)
			// Only centres offered to this strip change its labels: its
			// labels before are kept for the comparison (scratch of one
			// strip per worker) and its distances reset, just before.
			first, last := c.index(0, ys, z), c.index(0, ye, z)
			var old []int32
			if track {
				if cap(c.old[w]) < last-first {
					c.old[w] = make([]int32, last-first)
				}
				old = c.old[w][:last-first]
				copy(old, c.labels[first:last])
			}
			fillInf(c.dist[first:last], inf)
			for _, k := range bucket[start[z]:start[z+1]] {
				c.assignCentre(int(k), z, ys, ye, &c.yterm[w])
			}
			if track {
				changed = changed || !equalInt32(old, c.labels[first:last])
			}
			if partial != nil {
				c.accumulate(partial, z*sh.H+ys, z*sh.H+ye)
			}
		}
	}
	return changed
}

// assignCentre offers centre k to the voxels of its window in slice z and
// rows [y0, y1). yterm is scratch space.
func (c *clusterer) assignCentre(k, z, y0, y1 int, yterm *[]float32) {
	sh := c.sh
	ylo, yhi := window(c.cy[k], c.rad[1], sh.H)
	ylo, yhi = max(ylo, y0), min(yhi, y1)
	if ylo >= yhi {
		return
	}
	xlo := max(int(math.Floor(c.cx[k]-c.rad[0])), 0)
	cy := float32(c.cy[k])
	dz := c.sp[2] * (float32(c.cz[k]) - float32(z))
	col := c.col[k*sh.C : (k+1)*sh.C]
	lab := int32(k)
	tx := c.tx[c.txAt[k]:c.txAt[k+1]]
	// The y and z part of the spatial term (tx holds the x part), per row.
	if cap(*yterm) < yhi-ylo {
		*yterm = make([]float32, yhi-ylo)
	}
	ty := (*yterm)[:yhi-ylo]
	for i := range ty {
		dy := c.sp[1] * (cy - float32(ylo+i))
		ty[i] = c.w * (dz*dz + dy*dy)
	}
	base := c.index(xlo, ylo, z)
	switch sh.C {
	case 1:
		assignWin1(c.dist[base:], c.labels[base:], c.feat[0][base:], sh.W, tx, ty, col[0], lab)
	case 3:
		assignWin3(c.dist[base:], c.labels[base:], c.feat[0][base:], c.feat[1][base:], c.feat[2][base:], sh.W, tx, ty, col[0], col[1], col[2], lab)
	default:
		// As assignWin3Go does, for any number of channels.
		for r, dyz := range ty {
			row := base + r*sh.W
			dist := c.dist[row : row+len(tx)]
			labels := c.labels[row : row+len(tx)]
			for i := range dist {
				d := dyz + tx[i]
				if math.Float32bits(d) >= dist[i] {
					continue
				}
				for ch, cv := range col {
					e := c.feat[ch][row+i] - cv
					d += e * e
				}
				keep(&dist[i], &labels[i], d, lab)
			}
		}
	}
}

// fillInf sets every element of dist to inf, doubling copies (memmove is
// vectorised, a store loop is not).
func fillInf(dist []uint32, inf uint32) {
	if len(dist) == 0 {
		return
	}
	dist[0] = inf
	for done := 1; done < len(dist); done *= 2 {
		copy(dist[done:], dist[:done])
	}
}

// equalInt32 reports whether a and b hold the same labels, comparing their
// bytes (the runtime's vectorised comparison).
func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), 4*len(a))) == string(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), 4*len(b)))
}

// keep records distance d and label lab for a voxel if d is below its best
// distance so far. Distances are non-negative, so their float32 bit patterns
// order like the values; comparing them as integers lets the compiler use
// conditional moves instead of an unpredictable branch.
func keep(best *uint32, label *int32, d float32, lab int32) {
	db, old, l := math.Float32bits(d), *best, *label
	if db < old {
		old, l = db, lab
	}
	*best, *label = old, l
}

// clearPartial returns the zeroed sums of update chunk ch.
func (c *clusterer) clearPartial(ch int) []float64 {
	n := len(c.cx) * (4 + c.sh.C)
	if c.partial[ch] == nil {
		c.partial[ch] = make([]float64, n)
	}
	clear(c.partial[ch])
	return c.partial[ch]
}

// accumulate adds up count, position and feature of the voxels of every
// centre over rows [r0, r1) into s, in raster order.
func (c *clusterer) accumulate(s []float64, r0, r1 int) {
	sh := c.sh
	stride := 4 + sh.C
	for row := r0; row < r1; row++ {
		z, y := float64(row/sh.H), float64(row%sh.H)
		base := row * sh.W
		lab := c.labels[base : base+sh.W]
		// Labels come in runs along a row: sum a run locally, then
		// add it to its centre once.
		for x0 := 0; x0 < len(lab); {
			l := lab[x0]
			x1 := x0 + 1
			for x1 < len(lab) && lab[x1] == l {
				x1++
			}
			p := s[int(l)*stride:][:stride]
			n := float64(x1 - x0)
			p[0] += n
			p[1] += float64(x0+x1-1) * n / 2 // x0 + ... + x1-1, exact
			p[2] += y * n
			p[3] += z * n
			if len(c.feat) == 3 {
				// Three chains of additions side by side; each channel's
				// sum is still taken in raster order.
				f0 := c.feat[0][base+x0 : base+x1]
				f1 := c.feat[1][base+x0 : base+x1][:len(f0)]
				f2 := c.feat[2][base+x0 : base+x1][:len(f0)]
				a0, a1, a2 := p[4], p[5], p[6]
				for i, v := range f0 {
					a0 += float64(v)
					a1 += float64(f1[i])
					a2 += float64(f2[i])
				}
				p[4], p[5], p[6] = a0, a1, a2
			} else {
				for i, plane := range c.feat {
					acc := p[4+i]
					for _, v := range plane[base+x0 : base+x1] {
						acc += float64(v)
					}
					p[4+i] = acc
				}
			}
			x0 = x1
		}
	}
}

// moveCentres moves every centre to the mean position and feature of its
// voxels (the sums of the chunks added in chunk order); a centre without
// voxels stays where it is.
func (c *clusterer) moveCentres() {
	sh := c.sh
	k := len(c.cx)
	stride := 4 + sh.C
	parallelFor(k, c.workers, func(a, b int) {
		sum := make([]float64, stride)
		for j := a; j < b; j++ {
			clear(sum)
			for _, s := range c.partial {
				for i, v := range s[j*stride : (j+1)*stride] {
					sum[i] += v
				}
			}
			if sum[0] == 0 {
				continue
			}
			inv := 1 / sum[0]
			c.cx[j], c.cy[j], c.cz[j] = sum[1]*inv, sum[2]*inv, sum[3]*inv
			for i := range sh.C {
				c.col[j*sh.C+i] = float32(sum[4+i] * inv)
			}
		}
	})
}
