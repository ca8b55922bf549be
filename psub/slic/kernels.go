package slic

import "math"

// The inner loops of the Gaussian and of the assignment, in Go. On amd64
// the same arithmetic runs four lanes at a time in SSE2 (kernels_amd64.s);
// these loops do the rest of a row there and everything elsewhere.

// convRowsGo sets dst[x] = k[0]·rows[0][x] + k[1]·rows[1][x] + ..., summed
// in that order from 0, for x in [from, len(dst)); every rows[j] holds at
// least len(dst) samples. Eight outputs are summed at once in registers.
func convRowsGo(dst, k []float32, rows [][]float32, from int) {
	x := from
	for ; x+8 <= len(dst); x += 8 {
		var s0, s1, s2, s3, s4, s5, s6, s7 float32
		for j, kj := range k {
			p := rows[j][x : x+8 : x+8]
			s0 += kj * p[0]
			s1 += kj * p[1]
			s2 += kj * p[2]
			s3 += kj * p[3]
			s4 += kj * p[4]
			s5 += kj * p[5]
			s6 += kj * p[6]
			s7 += kj * p[7]
		}
		d := dst[x : x+8 : x+8]
		d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; x < len(dst); x++ {
		s := float32(0)
		for j, kj := range k {
			s += kj * rows[j][x]
		}
		dst[x] = s
	}
}

// assignRow3Go offers a centre of colour (c0, c1, c2) and label lab to a
// row of a 3-channel window: voxel i's distance is dyz + tx[i] + (f0[i] −
// c0)² + (f1[i] − c1)² + (f2[i] − c2)², summed in that order, and the
// centre takes the voxel if that is below dist[i]. A voxel whose best
// distance so far is not above the spatial term alone keeps its label:
// adding the non-negative feature terms cannot make the sum smaller
// (rounding is monotone), so skipping them changes nothing. Distances are
// non-negative, so their float32 bit patterns order like the values.
func assignRow3Go(dist []uint32, labels []int32, tx, f0, f1, f2 []float32, dyz, c0, c1, c2 float32, lab int32) {
	n := len(dist)
	labels, tx, f0, f1, f2 = labels[:n], tx[:n], f0[:n], f1[:n], f2[:n]
	for i := range dist {
		s := dyz + tx[i]
		if math.Float32bits(s) >= dist[i] {
			continue
		}
		e0, e1, e2 := f0[i]-c0, f1[i]-c1, f2[i]-c2
		if db := math.Float32bits(s + e0*e0 + e1*e1 + e2*e2); db < dist[i] {
			dist[i], labels[i] = db, lab
		}
	}
}

// assignRow1Go is assignRow3Go for one channel.
func assignRow1Go(dist []uint32, labels []int32, tx, f0 []float32, dyz, c0 float32, lab int32) {
	n := len(dist)
	labels, tx, f0 = labels[:n], tx[:n], f0[:n]
	for i, v := range f0 {
		s := dyz + tx[i]
		if math.Float32bits(s) >= dist[i] {
			continue
		}
		e := v - c0
		if db := math.Float32bits(s + e*e); db < dist[i] {
			dist[i], labels[i] = db, lab
		}
	}
}

// assignWin3Go offers a centre to a window of len(ty) rows of len(tx)
// voxels, row r starting at r·stride in dist, labels and the feature
// planes: voxel x of row r gets assignRow3Go's offer with spatial term
// ty[r] + tx[x].
func assignWin3Go(dist []uint32, labels []int32, f0, f1, f2 []float32, stride int, tx, ty []float32, c0, c1, c2 float32, lab int32) {
	w := len(tx)
	for r, dyz := range ty {
		o := r * stride
		assignRow3Go(dist[o:o+w], labels[o:o+w], tx, f0[o:o+w], f1[o:o+w], f2[o:o+w], dyz, c0, c1, c2, lab)
	}
}

// assignWin1Go is assignWin3Go for one channel.
func assignWin1Go(dist []uint32, labels []int32, f0 []float32, stride int, tx, ty []float32, c0 float32, lab int32) {
	w := len(tx)
	for r, dyz := range ty {
		o := r * stride
		assignRow1Go(dist[o:o+w], labels[o:o+w], tx, f0[o:o+w], dyz, c0, lab)
	}
}

// scanAcc holds the running results of a scan of samples: minimum and
// maximum (meaningful only if every sample is finite), the OR of the
// exponent bits (all ones: some sample is not finite) and of the bits that
// rounding to an integer changes (0: every sample an integer in [0, 2^23)).
type scanAcc struct {
	lo, hi         float32
	maxExp, notInt uint32
}

// scanSamplesGo folds the samples x into acc without branches on their
// values (minimum and maximum aside).
func scanSamplesGo(x []float32, acc *scanAcc) {
	lo, hi, maxExp, notInt := acc.lo, acc.hi, acc.maxExp, acc.notInt
	for _, v := range x {
		maxExp = max(maxExp, math.Float32bits(v)&0x7f800000)
		// Integers in [0, 2^23) are exactly those that adding and
		// subtracting 2^23 leaves alone, bit for bit.
		notInt |= math.Float32bits((v+(1<<23))-(1<<23)) ^ math.Float32bits(v)
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	*acc = scanAcc{lo, hi, maxExp, notInt}
}

// scanSamples returns the minimum and maximum of x (+Inf and -Inf if x is
// empty), whether every sample is finite (if not, the minimum and maximum
// mean nothing) and whether every one is an integer in [0, 2^23).
func scanSamples(x []float32) (lo, hi float32, finite, integral bool) {
	acc := scanAcc{lo: float32(math.Inf(1)), hi: float32(math.Inf(-1))}
	n := scanSamplesFast(x, &acc)
	scanSamplesGo(x[n:], &acc)
	return acc.lo, acc.hi, acc.maxExp != 0x7f800000, acc.notInt == 0
}

// labBytesGo converts pixels of 8-bit RGB samples (interleaved in pix) to
// CIELAB with the linear values lin of the 256 sample values, into l, a, bb.
func labBytesGo(t *labTables, lin *[256]float64, pix []float32, l, a, bb []float32) {
	for i := range l {
		p := pix[3*i : 3*i+3 : 3*i+3]
		l[i], a[i], bb[i] = t.lab(lin[uint8(p[0])], lin[uint8(p[1])], lin[uint8(p[2])])
	}
}
