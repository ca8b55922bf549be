//go:build !amd64 || purego

package slic

func convRows(dst, k []float32, rows [][]float32) { convRowsGo(dst, k, rows, 0) }

func assignWin3(dist []uint32, labels []int32, f0, f1, f2 []float32, stride int, tx, ty []float32, c0, c1, c2 float32, lab int32) {
	assignWin3Go(dist, labels, f0, f1, f2, stride, tx, ty, c0, c1, c2, lab)
}

func assignWin1(dist []uint32, labels []int32, f0 []float32, stride int, tx, ty []float32, c0 float32, lab int32) {
	assignWin1Go(dist, labels, f0, stride, tx, ty, c0, lab)
}

func scanSamplesFast(x []float32, acc *scanAcc) int { return 0 }

func labBytes(t *labTables, lin *[256]float64, pix []float32, l, a, bb []float32) {
	labBytesGo(t, lin, pix, l, a, bb)
}
