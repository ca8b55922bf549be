//go:build amd64 && !purego

package slic

import "math"

// SSE2 kernels (every amd64 processor has SSE2, so no feature check is
// needed). They do the same float32 operations in the same order as the
// Go loops in kernels.go, four lanes at a time, so their results are
// bit-identical; kernels_test.go compares the two.

// convRowsSSE sets dst[x] = k[0]·rows[0][x] + k[1]·rows[1][x] + ... (summed
// in that order from 0) for x < len(dst) rounded down to a multiple of 4,
// and returns that count. Every rows[j] holds at least len(dst) samples and
// len(rows) == len(k) > 0.
//
//go:noescape
func convRowsSSE(dst, k []float32, rows [][]float32) int

// assignWin3SSE and assignWin1SSE are assignWin3Go and assignWin1Go; the
// callers (assignWin3, assignWin1) check the lengths.
//
//go:noescape
func assignWin3SSE(dist []uint32, labels []int32, f0, f1, f2 []float32, stride int, tx, ty []float32, c0, c1, c2 float32, lab int32)

//go:noescape
func assignWin1SSE(dist []uint32, labels []int32, f0 []float32, stride int, tx, ty []float32, c0 float32, lab int32)

// assignWin3AVX and assignWin1AVX are the same, eight lanes at a time
// with AVX2 (checked at start-up: hasAVX2).
//
//go:noescape
func assignWin3AVX(dist []uint32, labels []int32, f0, f1, f2 []float32, stride int, tx, ty []float32, c0, c1, c2 float32, lab int32)

//go:noescape
func assignWin1AVX(dist []uint32, labels []int32, f0 []float32, stride int, tx, ty []float32, c0 float32, lab int32)

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv0() (a uint32)

// hasAVX2 reports whether the processor has AVX2 and the operating system
// saves the YMM registers (CPUID and XGETBV, as Intel's manual describes).
// useAVX2 may be turned off by tests, to run the SSE2 kernels too.
var hasAVX2 = func() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c&osxsave == 0 || c&avx == 0 || xgetbv0()&6 != 6 {
		return false
	}
	_, b, _, _ := cpuid(7, 0)
	return b&(1<<5) != 0
}()

var useAVX2 = hasAVX2

// convRowsAVX is convRowsSSE eight lanes at a time (a multiple of 8).
//
//go:noescape
func convRowsAVX(dst, k []float32, rows [][]float32) int

func convRows(dst, k []float32, rows [][]float32) {
	var n int
	if useAVX2 {
		n = convRowsAVX(dst, k, rows)
	} else {
		n = convRowsSSE(dst, k, rows)
	}
	if n < len(dst) {
		convRowsGo(dst, k, rows, n)
	}
}

func assignWin3(dist []uint32, labels []int32, f0, f1, f2 []float32, stride int, tx, ty []float32, c0, c1, c2 float32, lab int32) {
	if len(tx) == 0 || len(ty) == 0 {
		return
	}
	n := (len(ty)-1)*stride + len(tx)
	if useAVX2 {
		assignWin3AVX(dist[:n], labels[:n], f0[:n], f1[:n], f2[:n], stride, tx, ty, c0, c1, c2, lab)
		return
	}
	assignWin3SSE(dist[:n], labels[:n], f0[:n], f1[:n], f2[:n], stride, tx, ty, c0, c1, c2, lab)
}

func assignWin1(dist []uint32, labels []int32, f0 []float32, stride int, tx, ty []float32, c0 float32, lab int32) {
	if len(tx) == 0 || len(ty) == 0 {
		return
	}
	n := (len(ty)-1)*stride + len(tx)
	if useAVX2 {
		assignWin1AVX(dist[:n], labels[:n], f0[:n], stride, tx, ty, c0, lab)
		return
	}
	assignWin1SSE(dist[:n], labels[:n], f0[:n], stride, tx, ty, c0, lab)
}

// scanAVX folds x (a multiple of 8 samples) into eight lanes of each of
// lanes[0] (minimum), lanes[1] (maximum), lanes[2] (OR of the exponent bits
// compared with all ones: all ones where a sample is not finite) and
// lanes[3] (OR of the bits rounding changes), as scanSamplesGo does one
// lane at a time.
//
//go:noescape
func scanAVX(x []float32, lanes *[4][8]uint32)

// scanSamplesFast folds the first samples of x into acc with AVX2 and
// returns how many it took (0 without AVX2).
func scanSamplesFast(x []float32, acc *scanAcc) int {
	n := len(x) &^ 7
	if !useAVX2 || n == 0 {
		return 0
	}
	var lanes [4][8]uint32
	for i := range 8 {
		lanes[0][i] = math.Float32bits(acc.lo)
		lanes[1][i] = math.Float32bits(acc.hi)
	}
	scanAVX(x[:n], &lanes)
	for i := range 8 {
		acc.lo = min(acc.lo, math.Float32frombits(lanes[0][i]))
		acc.hi = max(acc.hi, math.Float32frombits(lanes[1][i]))
		if lanes[2][i] != 0 {
			acc.maxExp = 0x7f800000
		}
		acc.notInt |= lanes[3][i]
	}
	return n
}

// labAVX is labTables.lab on four pixels at a time, for the first len(r)
// rounded down to a multiple of 4 pixels (returned): from linear r, g, b
// to l, a, bb, with the cube-root table tab (labTables.cbrt, lut+1
// entries). Bit i of flags[j] is set when pixel 4j+i has an x, y or z
// outside the table (labTables.f then uses the exact function); its
// outputs are then meaningless and the caller converts it again.
//
//go:noescape
func labAVX(r, g, b []float64, l, a, bb []float32, tab []float64, flags []uint8, consts *[18][4]float64, lut int32) int

// labConsts are labTables.lab's constants, each in four lanes: the same
// Go constants, so the same float64 values.
var labConsts = func() *[18][4]float64 {
	vals := [18]float64{
		0.412453, 0.357580, 0.180423, 0.95047,
		0.212671, 0.715160, 0.072169,
		0.019334, 0.119193, 0.950227, 1.08883,
		labT0, labT1, lutSize / (labT1 - labT0),
		116, 16, 500, 200,
	}
	var c [18][4]float64
	for i, v := range vals {
		c[i] = [4]float64{v, v, v, v}
	}
	return &c
}()

// labBytes converts pixels of 8-bit RGB samples (interleaved in pix) to
// CIELAB with the linear values lin of the 256 sample values, into l, a, bb.
func labBytes(t *labTables, lin *[256]float64, pix []float32, l, a, bb []float32) {
	if !useAVX2 {
		labBytesGo(t, lin, pix, l, a, bb)
		return
	}
	const block = 256
	var r, g, b [block]float64
	var flags [block / 4]uint8
	for i0 := 0; i0 < len(l); i0 += block {
		n := min(block, len(l)-i0)
		p := pix[3*i0 : 3*(i0+n)]
		for i := range n {
			r[i], g[i], b[i] = lin[uint8(p[3*i])], lin[uint8(p[3*i+1])], lin[uint8(p[3*i+2])]
		}
		done := labAVX(r[:n], g[:n], b[:n], l[i0:i0+n], a[i0:i0+n], bb[i0:i0+n], t.cbrt, flags[:], labConsts, lutSize)
		for j, f := range flags[:done/4] {
			for i := 4 * j; f != 0; i, f = i+1, f>>1 {
				if f&1 != 0 {
					l[i0+i], a[i0+i], bb[i0+i] = t.lab(r[i], g[i], b[i])
				}
			}
		}
		for i := done; i < n; i++ {
			l[i0+i], a[i0+i], bb[i0+i] = t.lab(r[i], g[i], b[i])
		}
	}
}
