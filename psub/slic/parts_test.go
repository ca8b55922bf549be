package slic

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// TestRGBToLabKnownValues: the oracle is scikit-image 0.19.3 rgb2lab on the
// same inputs (D65, 2°), printed by hand.
func TestRGBToLabKnownValues(t *testing.T) {
	cases := []struct {
		name string
		rgb  [3]float32
		lab  [3]float64
	}{
		{"red", [3]float32{255, 0, 0}, [3]float64{53.2405879, 80.0923082, 67.2027510}},
		{"green", [3]float32{0, 255, 0}, [3]float64{87.7350995, -86.1830297, 83.1797032}},
		{"blue", [3]float32{0, 0, 255}, [3]float64{32.2956726, 79.1855909, -107.857300}},
		{"white", [3]float32{255, 255, 255}, [3]float64{100, -2.45493786e-03, 4.65342115e-03}},
		{"brown", [3]float32{127.5, 63.75, 25.5}, [3]float64{34.5243570, 24.6099759, 34.5828376}},
		{"black", [3]float32{0, 0, 0}, [3]float64{0, 0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := &imageio.Volume{Width: 1, Height: 1, Depth: 1, Channels: 3, Pix: tc.rgb[:]}
			out, err := RGBToLab(v, 255)
			if err != nil {
				t.Fatal(err)
			}
			for c := range 3 {
				if math.Abs(float64(out.Pix[c])-tc.lab[c]) > 1e-3 {
					t.Errorf("Lab = %v, want %v", out.Pix, tc.lab)
					break
				}
			}
		})
	}
	if _, err := RGBToLab(imageio.NewVolume(2, 2, 1, 1), 255); err == nil {
		t.Error("no error for a 1-channel volume")
	}
	if _, err := RGBToLab(imageio.NewVolume(2, 2, 1, 3), 0); err == nil {
		t.Error("no error for white = 0")
	}
}

// TestLabTablesMatchExact: the interpolated tables against math.Pow and
// math.Cbrt over the whole range.
func TestLabTablesMatchExact(t *testing.T) {
	tab := newLabTables()
	worst := 0.0
	for i := range 100001 {
		u := float64(i) / 100000
		worst = max(worst, math.Abs(tab.linear(u)-srgbToLinear(u)))
		v := 1.2 * u
		worst = max(worst, 116*math.Abs(tab.f(v)-labF(v)))
	}
	if worst > 1e-4 {
		t.Errorf("largest table error %g (in L units for f), want below 1e-4", worst)
	}
}

// TestSmoothMatchesBruteForce compares the separable filter with a direct
// 3-D convolution by the product kernel with mirrored indices, including a
// kernel longer than the axis.
func TestSmoothMatchesBruteForce(t *testing.T) {
	cases := []struct {
		name  string
		sh    shape
		sigma [3]float64
	}{
		{"2-D grey", shape{9, 7, 1, 1}, [3]float64{1, 1.5, 1}},
		{"2-D colour", shape{6, 5, 1, 3}, [3]float64{0.7, 0.7, 0}},
		{"3-D", shape{5, 6, 4, 1}, [3]float64{1, 0, 0.8}},
		{"kernel longer than axis", shape{3, 4, 2, 2}, [3]float64{2, 3, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 7))
			sh := tc.sh
			f := make([]float32, sh.W*sh.H*sh.D*sh.C)
			for i := range f {
				f[i] = rng.Float32()
			}
			want := bruteSmooth(f, sh, tc.sigma)
			for _, workers := range []int{1, 3} {
				// smooth takes one channel: filter each plane apart.
				got := slices.Clone(f)
				plane := make([]float32, len(f)/sh.C)
				for c := range sh.C {
					for i := range plane {
						plane[i] = f[i*sh.C+c]
					}
					out, _ := smooth(plane, nil, shape{sh.W, sh.H, sh.D, 1}, tc.sigma, workers)
					copy(plane, out)
					for i, v := range plane {
						got[i*sh.C+c] = v
					}
				}
				for i := range got {
					if math.Abs(float64(got[i])-want[i]) > 1e-5 {
						t.Fatalf("workers %d: sample %d = %v, want %v", workers, i, got[i], want[i])
					}
				}
			}
		})
	}
}

func bruteSmooth(f []float32, sh shape, sigma [3]float64) []float64 {
	kern := func(a, n int) []float64 {
		if sigma[a] == 0 || n == 1 {
			return []float64{1}
		}
		k := gaussKernel(sigma[a])
		out := make([]float64, len(k))
		for i, v := range k {
			out[i] = float64(v)
		}
		return out
	}
	kx, ky, kz := kern(0, sh.W), kern(1, sh.H), kern(2, sh.D)
	out := make([]float64, len(f))
	for z := range sh.D {
		for y := range sh.H {
			for x := range sh.W {
				for c := range sh.C {
					s := 0.0
					for k, wz := range kz {
						zz := reflect(z+k-len(kz)/2, sh.D)
						for j, wy := range ky {
							yy := reflect(y+j-len(ky)/2, sh.H)
							for i, wx := range kx {
								xx := reflect(x+i-len(kx)/2, sh.W)
								s += wz * wy * wx * float64(f[((zz*sh.H+yy)*sh.W+xx)*sh.C+c])
							}
						}
					}
					out[((z*sh.H+y)*sh.W+x)*sh.C+c] = s
				}
			}
		}
	}
	return out
}

func TestReflect(t *testing.T) {
	// scipy.ndimage 'reflect' on n = 3: ... 2 1 0 | 0 1 2 | 2 1 0 | 0 ...
	want := map[int]int{-7: 0, -6: 0, -4: 2, -3: 2, -2: 1, -1: 0, 0: 0, 2: 2, 3: 2, 4: 1, 5: 0, 6: 0, 8: 2}
	for i, w := range want {
		if got := reflect(i, 3); got != w {
			t.Errorf("reflect(%d, 3) = %d, want %d", i, got, w)
		}
	}
}

// TestEnforceConnectivityHandMade checks the relabelling rules on label maps
// small enough to work out by hand.
func TestEnforceConnectivityHandMade(t *testing.T) {
	cases := []struct {
		name             string
		sh               shape
		in, want         []int32
		minSize, maxSize int
		n                int
	}{
		{"split label becomes two", shape{5, 1, 1, 1}, []int32{0, 0, 1, 0, 0}, []int32{0, 0, 1, 2, 2}, 0, 100, 3},
		{"small piece merges left", shape{6, 1, 1, 1}, []int32{0, 0, 1, 0, 0, 0}, []int32{0, 0, 0, 1, 1, 1}, 2, 100, 2},
		{"first component stays even if small", shape{4, 1, 1, 1}, []int32{5, 3, 3, 3}, []int32{0, 1, 1, 1}, 2, 100, 2},
		{"max size cuts", shape{5, 1, 1, 1}, []int32{0, 0, 0, 0, 0}, []int32{0, 0, 1, 1, 2}, 0, 2, 3},
		{"2-D diagonal is not connected", shape{2, 2, 1, 1}, []int32{0, 1, 1, 0}, []int32{0, 1, 2, 3}, 0, 100, 4},
		{"3-D through z", shape{2, 1, 2, 1}, []int32{0, 1, 0, 1}, []int32{0, 1, 0, 1}, 0, 100, 2},
		{"island merges into surround", shape{3, 3, 1, 1}, []int32{4, 4, 4, 4, 9, 4, 4, 4, 4}, []int32{0, 0, 0, 0, 0, 0, 0, 0, 0}, 2, 100, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Clone(tc.in)
			n := enforceConnectivity(got, tc.sh, tc.minSize, tc.maxSize)
			if n != tc.n || !slices.Equal(got, tc.want) {
				t.Errorf("got %d labels %v, want %d labels %v", n, got, tc.n, tc.want)
			}
		})
	}
}

// TestEnforceConnectivityRandom: on random label maps, every output label
// is connected, labels are 0..n-1, and output regions refine the input
// unless merged (each output region of at least minSize voxels lies in one
// input label).
func TestEnforceConnectivityRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 50 {
		sh := shape{1 + rng.IntN(9), 1 + rng.IntN(9), 1 + rng.IntN(4), 1}
		in := make([]int32, sh.W*sh.H*sh.D)
		for i := range in {
			in[i] = int32(rng.IntN(3))
		}
		minSize, maxSize := rng.IntN(4), 1+rng.IntN(20)
		got := slices.Clone(in)
		n := enforceConnectivity(got, sh, minSize, maxSize)
		m := &imageio.LabelMap{Width: sh.W, Height: sh.H, Depth: sh.D, Labels: got}
		checkLabels(t, m, n, true)
		if minSize <= 1 {
			for i := range in {
				for j := range in {
					if got[i] == got[j] && in[i] != in[j] {
						t.Fatalf("trial %d: voxels %d and %d share output label %d but not input label", trial, i, j, got[i])
					}
				}
			}
		}
	}
}
