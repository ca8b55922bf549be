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
