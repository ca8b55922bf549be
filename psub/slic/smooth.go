package slic

import "math"

// gaussKernel is the normalised 1-D Gaussian of standard deviation sigma,
// truncated at radius ⌊4σ + 0.5⌋ (scipy.ndimage's rule).
func gaussKernel(sigma float64) []float32 {
	r := int(4*sigma + 0.5)
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

// smooth filters f (shape sh, channels interleaved) in place with a
// separable Gaussian of standard deviation sigma[a] voxels along axis a
// (0 = x, 1 = y, 2 = z); axes with sigma 0 or length 1 are left alone.
func smooth(f []float32, sh shape, sigma [3]float64, workers int) {
	if sigma[0] > 0 && sh.W > 1 {
		smoothX(f, sh, gaussKernel(sigma[0]), workers)
	}
	if sigma[1] > 0 && sh.H > 1 {
		smoothY(f, sh, gaussKernel(sigma[1]), workers)
	}
	if sigma[2] > 0 && sh.D > 1 {
		smoothZ(f, sh, gaussKernel(sigma[2]), workers)
	}
}

// smoothX filters every row; a row is padded by reflection into a scratch
// line so the inner loop has no bounds logic.
func smoothX(f []float32, sh shape, k []float32, workers int) {
	r := len(k) / 2
	rows := sh.H * sh.D
	runTasks(workers, workers, func(_, w int) {
		pad := make([]float32, sh.W+2*r)
		for row := rows * w / workers; row < rows*(w+1)/workers; row++ {
			line := f[row*sh.W*sh.C : (row+1)*sh.W*sh.C]
			for c := range sh.C {
				for i := range pad {
					if i < r || i >= r+sh.W {
						pad[i] = line[reflect(i-r, sh.W)*sh.C+c]
					} else {
						pad[i] = line[(i-r)*sh.C+c]
					}
				}
				for x := range sh.W {
					win := pad[x : x+len(k)]
					s := float32(0)
					for j, kj := range k {
						s += kj * win[j]
					}
					line[x*sh.C+c] = s
				}
			}
		}
	})
}

// smoothY filters each slice along y, a whole row at a time (the inner loop
// runs over contiguous x and channels).
func smoothY(f []float32, sh shape, k []float32, workers int) {
	r := len(k) / 2
	rowLen := sh.W * sh.C
	slice := sh.H * rowLen
	scratch := make([][]float32, workers)
	runTasks(sh.D, workers, func(w, z int) {
		src := f[z*slice : (z+1)*slice]
		out := zeroed(&scratch[w], slice)
		for y := range sh.H {
			dst := out[y*rowLen : (y+1)*rowLen]
			for j, kj := range k {
				row := src[reflect(y+j-r, sh.H)*rowLen:][:rowLen]
				for i, v := range row {
					dst[i] += kj * v
				}
			}
		}
		copy(src, out)
	})
}

// smoothZ filters along z one y-row at a time: the rows (z, y) for all z
// are gathered into scratch, so memory is read in contiguous runs.
func smoothZ(f []float32, sh shape, k []float32, workers int) {
	r := len(k) / 2
	rowLen := sh.W * sh.C
	slice := sh.H * rowLen
	scratch := make([][]float32, workers)
	runTasks(sh.H, workers, func(w, y int) {
		out := zeroed(&scratch[w], sh.D*rowLen)
		for z := range sh.D {
			dst := out[z*rowLen : (z+1)*rowLen]
			for j, kj := range k {
				row := f[reflect(z+j-r, sh.D)*slice+y*rowLen:][:rowLen]
				for i, v := range row {
					dst[i] += kj * v
				}
			}
		}
		for z := range sh.D {
			copy(f[z*slice+y*rowLen:][:rowLen], out[z*rowLen:(z+1)*rowLen])
		}
	})
}

// zeroed returns *buf resized to n zeros, allocating only the first time.
func zeroed(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	b := (*buf)[:n]
	clear(b)
	return b
}
