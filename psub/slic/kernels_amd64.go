//go:build amd64 && !purego

package slic

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

// assignRow3SSE is assignRow3Go for the first len(dist) rounded down to a
// multiple of 4 voxels; it returns that count.
//
//go:noescape
func assignRow3SSE(dist []uint32, labels []int32, tx, f0, f1, f2 []float32, dyz, c0, c1, c2 float32, lab int32) int

// assignRow1SSE is assignRow1Go for the first len(dist) rounded down to a
// multiple of 4 voxels; it returns that count.
//
//go:noescape
func assignRow1SSE(dist []uint32, labels []int32, tx, f0 []float32, dyz, c0 float32, lab int32) int

func convRows(dst, k []float32, rows [][]float32) {
	n := convRowsSSE(dst, k, rows)
	if n < len(dst) {
		convRowsGo(dst, k, rows, n)
	}
}

func assignRow3(dist []uint32, labels []int32, tx, f0, f1, f2 []float32, dyz, c0, c1, c2 float32, lab int32) {
	n := len(dist)
	labels, tx, f0, f1, f2 = labels[:n], tx[:n], f0[:n], f1[:n], f2[:n]
	i := assignRow3SSE(dist, labels, tx, f0, f1, f2, dyz, c0, c1, c2, lab)
	if i < n {
		assignRow3Go(dist[i:], labels[i:], tx[i:], f0[i:], f1[i:], f2[i:], dyz, c0, c1, c2, lab)
	}
}

func assignRow1(dist []uint32, labels []int32, tx, f0 []float32, dyz, c0 float32, lab int32) {
	n := len(dist)
	labels, tx, f0 = labels[:n], tx[:n], f0[:n]
	i := assignRow1SSE(dist, labels, tx, f0, dyz, c0, lab)
	if i < n {
		assignRow1Go(dist[i:], labels[i:], tx[i:], f0[i:], dyz, c0, lab)
	}
}
