package slic

import "math"

// gaussKernel is the normalised 1-D Gaussian of standard deviation sigma,
// truncated at radius ⌊4σ + 0.5⌋ (scipy.ndimage's rule).
func gaussKernel(sigma float64) []float32 {
	r := int(4*sigma + 0.5)
	if r == 0 {
		// One tap, normalised: the identity. (Computed, exp(-0.5·0/σ²)
		// is NaN once σ² underflows to 0.)
		return []float32{1}
	}
	k := make([]float64, 2*r+1)
	sum := 0.0
	for i := range k {
		x := float64(i - r)
		k[i] = math.Exp(-0.5 * x * x / (sigma * sigma))
		sum += k[i]
	}
	out := make([]float32, len(k))
	for i := range k {
		out[i] = float32(k[i] / sum)
	}
	return out
}

// reflect maps an index outside [0, n) back inside by mirroring about the
// border, repeating the edge sample (scipy.ndimage's 'reflect': d c b a | a
// b c d | d c b a).
func reflect(i, n int) int {
	p := 2 * n
	i %= p
	if i < 0 {
		i += p
	}
	if i >= n {
		i = p - 1 - i
	}
	return i
}

// smooth filters the plane f (shape sh, one channel) with a separable
// Gaussian of standard deviation sigma[a] voxels along axis a (0 = x, 1 =
// y, 2 = z); axes with sigma 0 or length 1 are left alone. The result is in
// f or in spare (a plane of the same size, or nil to allocate one if
// needed): smooth returns the plane holding it and the other one, which
// the caller may pass as spare again.
func smooth(f, spare []float32, sh shape, sigma [3]float64, workers int) (out, newSpare []float32) {
	if sh.C != 1 {
		panic("slic: smooth needs one channel")
	}
	if sigma[0] > 0 && sh.W > 1 {
		smoothX(f, sh, gaussKernel(sigma[0]), workers)
	}
	if sigma[1] > 0 && sh.H > 1 {
		f, spare = smoothY(f, spare, sh, gaussKernel(sigma[1]), workers)
	}
	if sigma[2] > 0 && sh.D > 1 {
		smoothZ(f, sh, gaussKernel(sigma[2]), workers)
	}
	return f, spare
}

// smoothX filters every row; a row is padded by reflection into a scratch
// line so that the taps of output x are pad[x], pad[x+1], ... (convRows
// with rows(j) = pad[j:]).
func smoothX(f []float32, sh shape, k []float32, workers int) {
	r := len(k) / 2
	rows := sh.H * sh.D
	W := sh.W
	runTasks(workers, workers, func(_, w int) {
		pad := make([]float32, W+2*r)
		shifted := make([][]float32, len(k))
		for j := range shifted {
			shifted[j] = pad[j : j+W]
		}
		for row := rows * w / workers; row < rows*(w+1)/workers; row++ {
			line := f[row*W : (row+1)*W]
			for i := range r {
				pad[i] = line[reflect(i-r, W)]
				pad[r+W+i] = line[reflect(W+i, W)]
			}
			copy(pad[r:r+W], line)
			convRows(line, k, shifted)
		}
	})
}

// smoothY filters each slice along y. An output row is the sum over the
// taps j of k[j] times input row reflect(y+j-r), added in the order of j;
// see filterRows. A volume of many slices is filtered a slice at a time
// into per-worker scratch; an image (or a volume of few slices) is cut into
// bands of rows written to spare, so that all workers share it; spare then
// holds the result (see smooth).
func smoothY(f, spare []float32, sh shape, k []float32, workers int) (out, newSpare []float32) {
	r := len(k) / 2
	W := sh.W
	slice := sh.H * W
	if !smoothYNeedsSpare(sh.D, workers) {
		scratch := make([][]float32, workers)
		runTasks(sh.D, workers, func(w, z int) {
			src := f[z*slice : (z+1)*slice]
			out := grow(&scratch[w], slice)
			for y := range sh.H {
				filterRows(out[y*W:(y+1)*W], k, func(j int) []float32 {
					return src[reflect(y+j-r, sh.H)*W:][:W]
				})
			}
			copy(src, out)
		})
		return f, spare
	}
	if len(spare) != len(f) {
		spare = make([]float32, len(f))
	}
	out = spare
	bands := min(4*workers, sh.H)
	runTasks(sh.D*bands, workers, func(_, t int) {
		z, b := t/bands, t%bands
		src := f[z*slice : (z+1)*slice]
		for y := sh.H * b / bands; y < sh.H*(b+1)/bands; y++ {
			filterRows(out[z*slice+y*W:][:W], k, func(j int) []float32 {
				return src[reflect(y+j-r, sh.H)*W:][:W]
			})
		}
	})
	return out, f
}

// smoothYNeedsSpare reports whether smoothY filters a volume of the given
// depth into a spare plane (rather than slice by slice into scratch).
func smoothYNeedsSpare(depth, workers int) bool { return depth < 2*workers }

// smoothZ filters along z one y-row at a time, into scratch: the rows (z,
// y) for all z are read in contiguous runs.
func smoothZ(f []float32, sh shape, k []float32, workers int) {
	r := len(k) / 2
	W := sh.W
	slice := sh.H * W
	scratch := make([][]float32, workers)
	runTasks(sh.H, workers, func(w, y int) {
		out := grow(&scratch[w], sh.D*W)
		for z := range sh.D {
			filterRows(out[z*W:(z+1)*W], k, func(j int) []float32 {
				return f[reflect(z+j-r, sh.D)*slice+y*W:][:W]
			})
		}
		for z := range sh.D {
			copy(f[z*slice+y*W:][:W], out[z*W:(z+1)*W])
		}
	})
}

// filterRows sets dst[x] = k[0]·row(0)[x] + k[1]·row(1)[x] + ..., summed in
// that order from 0, every row(j) having len(dst) samples (see convRows).
func filterRows(dst, k []float32, row func(j int) []float32) {
	var rowsBuf [64][]float32
	rows := rowsBuf[:0]
	for j := range k {
		rows = append(rows, row(j)[:len(dst)])
	}
	convRows(dst, k, rows)
}

// grow returns *buf resized to n, allocating only when it is too short.
func grow(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}
