package slic

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKernelsMatchGo compares convRows, assignWin1 and assignWin3 (SSE2 on
// amd64) with the Go loops bit for bit, on every length from 0 to 40 (so
// every tail, in windows of 1 to 3 rows) and on distances that make some voxels skip, some take the
// centre and some keep their label, ties included.
func TestKernelsMatchGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 43))
	vec := func(n int, scale float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = rng.Float32() * scale
		}
		return v
	}
	for n := range 41 {
		for _, taps := range []int{1, 3, 17} {
			k := vec(taps, 1)
			rows := make([][]float32, taps)
			for j := range rows {
				rows[j] = vec(n+rng.IntN(3), 100)
			}
			got, want := vec(n, 1), make([]float32, n)
			convRows(got, k, rows)
			convRowsGo(want, k, rows, 0)
			for x := range want {
				if math.Float32bits(got[x]) != math.Float32bits(want[x]) {
					t.Fatalf("convRows n=%d taps=%d: dst[%d] = %v, want %v", n, taps, x, got[x], want[x])
				}
			}
		}
		// A window of n columns and 1 to 3 rows, rows stride apart.
		rowsN := 1 + n%3
		stride := n + n%5
		size := (rowsN-1)*stride + n
		tx, ty := vec(n, 2), vec(rowsN, 1)
		f0, f1, f2 := vec(size, 1), vec(size, 1), vec(size, 1)
		dist := make([]uint32, size)
		labels := make([]int32, size)
		for i := range dist {
			s := ty[0] + tx[i%max(stride, 1)%max(n, 1)]
			switch rng.IntN(4) {
			case 0:
				dist[i] = math.Float32bits(float32(math.Inf(1)))
			case 1:
				dist[i] = math.Float32bits(s) // the spatial term may skip
			case 2:
				// A tie with the centre's distance keeps the old label.
				e0, e1, e2 := f0[i]-0.3, f1[i]-0.6, f2[i]-0.1
				dist[i] = math.Float32bits(s + e0*e0 + e1*e1 + e2*e2)
			default:
				dist[i] = math.Float32bits(rng.Float32() * 3)
			}
			labels[i] = int32(rng.IntN(1000))
		}
		d3, l3 := slices.Clone(dist), slices.Clone(labels)
		d3go, l3go := slices.Clone(dist), slices.Clone(labels)
		assignWin3(d3, l3, f0, f1, f2, stride, tx, ty, 0.3, 0.6, 0.1, 7)
		assignWin3Go(d3go, l3go, f0, f1, f2, stride, tx, ty, 0.3, 0.6, 0.1, 7)
		d1, l1 := slices.Clone(dist), slices.Clone(labels)
		d1go, l1go := slices.Clone(dist), slices.Clone(labels)
		assignWin1(d1, l1, f0, stride, tx, ty, 0.3, 7)
		assignWin1Go(d1go, l1go, f0, stride, tx, ty, 0.3, 7)
		if !slices.Equal(d3, d3go) || !slices.Equal(l3, l3go) {
			t.Fatalf("assignWin3 n=%d: distances %v labels %v, want %v %v", n, d3, l3, d3go, l3go)
		}
		if !slices.Equal(d1, d1go) || !slices.Equal(l1, l1go) {
			t.Fatalf("assignWin1 n=%d: distances %v labels %v, want %v %v", n, d1, l1, d1go, l1go)
		}
		if n == 40 && slices.Equal(l3, labels) {
			t.Fatal("assignWin3 took no voxel: the case tests nothing")
		}
	}
}

// TestScanSamplesMatchesGo compares scanSamples (AVX2 on amd64 when
// available) with the Go loop alone on integer and fractional samples,
// with a non-finite sample at every position of some lengths.
func TestScanSamplesMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 43))
	check := func(x []float32, what string) {
		t.Helper()
		lo, hi, finite, integral := scanSamples(x)
		acc := scanAcc{lo: float32(math.Inf(1)), hi: float32(math.Inf(-1))}
		scanSamplesGo(x, &acc)
		wantFinite, wantIntegral := acc.maxExp != 0x7f800000, acc.notInt == 0
		if finite != wantFinite || (finite && (lo != acc.lo || hi != acc.hi || integral != wantIntegral)) {
			t.Fatalf("%s, %d samples: got %v %v finite %v integral %v, want %v %v %v %v",
				what, len(x), lo, hi, finite, integral, acc.lo, acc.hi, wantFinite, wantIntegral)
		}
	}
	for n := range 40 {
		ints, fracs := make([]float32, n), make([]float32, n)
		for i := range ints {
			ints[i] = float32(rng.IntN(256))
			fracs[i] = (rng.Float32() - 0.5) * 1000
		}
		check(ints, "integers")
		check(fracs, "fractions")
		for i := range n {
			for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
				x := slices.Clone(ints)
				x[i] = bad
				check(x, "non-finite")
				if _, _, finite, _ := scanSamples(x); finite {
					t.Fatalf("%v at %d of %d: reported finite", bad, i, n)
				}
			}
			x := slices.Clone(ints)
			x[i] += 0.5
			if _, _, _, integral := scanSamples(x); integral {
				t.Fatalf("0.5 added at %d of %d: reported integral", i, n)
			}
		}
	}
}

// TestLabBytesMatchesGo converts a fifth of all 8-bit colours (every red
// and green, blue in steps of 5 and 255) with labBytes (AVX2 on amd64 when
// available) and with the Go loop, bit for bit; dark colours take the
// exact function rather than the table, on both paths.
func TestLabBytesMatchesGo(t *testing.T) {
	tab := sharedLabTables()
	var lin [256]float64
	for b := range lin {
		lin[b] = tab.linear(float64(b) / 255)
	}
	var pix []float32
	for r := range 256 {
		for g := range 256 {
			for b := 0; b < 256; b = min(b+5, 255+b/255*5) {
				pix = append(pix, float32(r), float32(g), float32(b))
			}
		}
	}
	n := len(pix) / 3
	// Odd offsets and lengths, so that blocks end mid-group.
	for _, cut := range [][2]int{{0, n}, {1, n - 2}, {5, 12}} {
		p := pix[3*cut[0] : 3*(cut[0]+cut[1])]
		got := [3][]float32{make([]float32, cut[1]), make([]float32, cut[1]), make([]float32, cut[1])}
		want := [3][]float32{make([]float32, cut[1]), make([]float32, cut[1]), make([]float32, cut[1])}
		labBytes(tab, &lin, p, got[0], got[1], got[2])
		labBytesGo(tab, &lin, p, want[0], want[1], want[2])
		for c := range 3 {
			for i := range want[c] {
				if math.Float32bits(got[c][i]) != math.Float32bits(want[c][i]) {
					t.Fatalf("pixel %v, channel %d: %v, want %v", p[3*i:3*i+3], c, got[c][i], want[c][i])
				}
			}
		}
	}
}
