//go:build !amd64 || purego

package slic

func convRows(dst, k []float32, rows [][]float32) { convRowsGo(dst, k, rows, 0) }

func assignRow3(dist []uint32, labels []int32, tx, f0, f1, f2 []float32, dyz, c0, c1, c2 float32, lab int32) {
	assignRow3Go(dist, labels, tx, f0, f1, f2, dyz, c0, c1, c2, lab)
}

func assignRow1(dist []uint32, labels []int32, tx, f0 []float32, dyz, c0 float32, lab int32) {
	assignRow1Go(dist, labels, tx, f0, dyz, c0, lab)
}
