package grid

import (
	"fmt"
	"math"
)

// LogSpace returns n values log-spaced from lo to hi inclusive (the paper's
// grids: LogSpace(0.1, 10, 5) for cows, LogSpace(1e-2, 1e3, 11) for EM).
func LogSpace(lo, hi float64, n int) []float64 {
	if n < 1 || lo <= 0 || hi <= 0 {
		panic(fmt.Sprintf("grid: LogSpace(%v, %v, %d): need positive bounds and n ≥ 1", lo, hi, n))
	}
	if n == 1 {
		return []float64{lo}
	}
	out := make([]float64, n)
	a, b := math.Log10(lo), math.Log10(hi)
	for i := range out {
		e := (a*float64(n-1-i) + b*float64(i)) / float64(n-1)
		if r := math.Round(e); math.Abs(e-r) < 1e-12 {
			e = r // decades exact: Log10(0.1) is not exactly −1
		}
		out[i] = math.Pow(10, e)
	}
	out[0], out[n-1] = lo, hi // exact ends, free of round-off
	return out
}
