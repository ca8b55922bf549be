package slic

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// refSegment is SLIC written the straightforward way, with the package's
// arithmetic: interleaved features, one Gaussian sum per sample and axis,
// every voxel offered every centre in index order (a centre counts when
// its window covers the voxel), centre sums voxel by voxel in raster order
// within each of the updateChunks row chunks. It shares with Segment only
// the parts tested on their own against independent oracles: the option
// defaults, the seed grid (scikit-image's regular_grid), the Gaussian
// kernel, the CIELAB conversion and the connectivity pass. It is the oracle
// that keeps the fast path's labels bit-identical.
func refSegment(v *imageio.Volume, opt Options) ([]int32, int, error) {
	opt, err := opt.withDefaults(v)
	if err != nil {
		return nil, 0, err
	}
	W, H, D, C := v.Width, v.Height, v.Depth, v.Channels
	N := W * H * D
	idx := func(x, y, z int) int { return (z*H+y)*W + x }

	// Features: rescale, CIELAB, smoothing.
	f := slices.Clone(v.Pix)
	lo, hi := slices.Min(f), slices.Max(f)
	if !opt.KeepRange {
		scale := float32(1)
		if hi > lo {
			scale = 1 / (hi - lo)
		}
		for i := range f {
			f[i] = (f[i] - lo) * scale
		}
	}
	if opt.Lab {
		rgbToLab(f, 1, newLabTables())
	}
	dims := [3]int{W, H, D}
	for a := range 3 {
		sigma := opt.Sigma / opt.Spacing[a]
		if sigma <= 0 || dims[a] <= 1 {
			continue
		}
		k := gaussKernel(sigma)
		r := len(k) / 2
		out := make([]float32, len(f))
		for z := range D {
			for y := range H {
				for x := range W {
					p := [3]int{x, y, z}
					for c := range C {
						s := float32(0)
						for j, kj := range k {
							q := p
							q[a] = reflect(p[a]+j-r, dims[a])
							s += kj * f[idx(q[0], q[1], q[2])*C+c]
						}
						out[idx(x, y, z)*C+c] = s
					}
				}
			}
		}
		f = out
	}

	// Centres on the grid, optionally moved off edges, coloured by their
	// seed voxel unless ZeroInit.
	g := newGrid(dims, opt.Segments)
	cx, cy, cz := g.seeds()
	K := len(cx)
	if opt.PerturbSeeds {
		grad := func(x, y, z int) float64 {
			at := func(x, y, z, c int) float32 { return f[idx(x, y, z)*C+c] }
			s := 0.0
			for c := range C {
				d := float64(at(min(x+1, W-1), y, z, c) - at(max(x-1, 0), y, z, c))
				s += d * d
			}
			for c := range C {
				d := float64(at(x, min(y+1, H-1), z, c) - at(x, max(y-1, 0), z, c))
				s += d * d
			}
			for c := range C {
				d := float64(at(x, y, min(z+1, D-1), c) - at(x, y, max(z-1, 0), c))
				s += d * d
			}
			return s
		}
		for k := range K {
			x0, y0, z0 := int(cx[k]), int(cy[k]), int(cz[k])
			best, bx, by, bz := math.Inf(1), x0, y0, z0
			for z := max(z0-1, 0); z <= min(z0+1, D-1); z++ {
				for y := max(y0-1, 0); y <= min(y0+1, H-1); y++ {
					for x := max(x0-1, 0); x <= min(x0+1, W-1); x++ {
						if gr := grad(x, y, z); gr < best {
							best, bx, by, bz = gr, x, y, z
						}
					}
				}
			}
			cx[k], cy[k], cz[k] = float64(bx), float64(by), float64(bz)
		}
	}
	col := make([]float32, K*C)
	if !opt.ZeroInit {
		for k := range K {
			copy(col[k*C:(k+1)*C], f[idx(int(cx[k]), int(cy[k]), int(cz[k]))*C:][:C])
		}
	}
	labels := make([]int32, N)
	for z := range D {
		for y := range H {
			for x := range W {
				labels[idx(x, y, z)] = int32((g.cell(2, z)*g.count[1]+g.cell(1, y))*g.count[0] + g.cell(0, x))
			}
		}
	}

	step := float64(max(g.step[0], g.step[1], g.step[2]))
	w := float32((opt.Compactness / step) * (opt.Compactness / step))
	sp := [3]float32{float32(opt.Spacing[0]), float32(opt.Spacing[1]), float32(opt.Spacing[2])}
	var rad [3]float64
	for a := range 3 {
		rad[a] = opt.SearchRadius * float64(g.step[a])
	}
	wx := w * sp[0] * sp[0]
	for it := range opt.MaxIter {
		changed := false
		for z := range D {
			for y := range H {
				for x := range W {
					i := idx(x, y, z)
					best := float32(math.Inf(1))
					for k := range K {
						xlo, xhi := window(cx[k], rad[0], W)
						ylo, yhi := window(cy[k], rad[1], H)
						zlo, zhi := window(cz[k], rad[2], D)
						if x < xlo || x >= xhi || y < ylo || y >= yhi || z < zlo || z >= zhi {
							continue
						}
						// dx starts at the window's left end and steps
						// down by 1, as the package tabulates it.
						dx := float32(cx[k]) - float32(xlo)
						for range x - xlo {
							dx--
						}
						dy := sp[1] * (float32(cy[k]) - float32(y))
						dz := sp[2] * (float32(cz[k]) - float32(z))
						d := w*(dz*dz+dy*dy) + wx*dx*dx
						for c := range C {
							e := f[i*C+c] - col[k*C+c]
							d += e * e
						}
						if d < best {
							best = d
							if labels[i] != int32(k) {
								changed = true
							}
							labels[i] = int32(k)
						}
					}
				}
			}
		}
		// The first assignment is compared with the grid cells, not with
		// an assignment, so it never stops the iterations.
		if !changed && it > 0 {
			break
		}
		if it == opt.MaxIter-1 {
			break
		}
		stride := 4 + C
		sum := make([]float64, K*stride)
		rows := H * D
		for ch := range updateChunks {
			part := make([]float64, K*stride)
			for row := rows * ch / updateChunks; row < rows*(ch+1)/updateChunks; row++ {
				z, y := row/H, row%H
				for x := range W {
					i := idx(x, y, z)
					p := part[int(labels[i])*stride:][:stride]
					p[0]++
					p[1] += float64(x)
					p[2] += float64(y)
					p[3] += float64(z)
					for c := range C {
						p[4+c] += float64(f[i*C+c])
					}
				}
			}
			for j := range sum {
				sum[j] += part[j]
			}
		}
		for k := range K {
			s := sum[k*stride : (k+1)*stride]
			if s[0] == 0 {
				continue
			}
			inv := 1 / s[0]
			cx[k], cy[k], cz[k] = s[1]*inv, s[2]*inv, s[3]*inv
			for c := range C {
				col[k*C+c] = float32(s[4+c] * inv)
			}
		}
	}
	if opt.DisableConnectivity {
		return labels, compact(labels, K), nil
	}
	size := float64(N) / float64(K)
	limit := func(f float64) int { return int(min(f*size, float64(N+1))) }
	n := enforceConnectivity(labels, shape{W, H, D, C}, limit(opt.MinSizeFactor), limit(opt.MaxSizeFactor))
	return labels, n, nil
}

// TestSegmentMatchesReference: Segment gives the reference's labels bit for
// bit on small synthetic images and volumes under every option, with 1, 2
// and 9 workers (9 takes the unfused path: more workers than update
// chunks), with and without strip-mined windows.
func TestSegmentMatchesReference(t *testing.T) {
	rgb := naturalImage(53, 41, 1, 3, 21)
	grey := naturalImage(47, 38, 1, 1, 22)
	four := naturalImage(31, 27, 1, 4, 23)
	vol := naturalImage(19, 17, 11, 1, 24)
	volRGB := naturalImage(15, 13, 7, 3, 25)
	// Many samples exactly on a few grey values, to provoke ties.
	flat := naturalImage(40, 30, 1, 1, 26)
	for i := range flat.Pix {
		flat.Pix[i] = float32(int(flat.Pix[i]) / 64 * 64)
	}
	cases := []struct {
		name string
		v    *imageio.Volume
		opt  Options
	}{
		{"rgb lab", rgb, Options{Segments: 30, Compactness: 20, Sigma: 2, Lab: true}},
		{"rgb lab radius 2 zero init", rgb, Options{Segments: 30, Compactness: 20, Sigma: 1, Lab: true, SearchRadius: 2, ZeroInit: true}},
		{"rgb perturb keep range", rgb, Options{Segments: 25, Compactness: 30, KeepRange: true, PerturbSeeds: true}},
		{"grey", grey, Options{Segments: 20, Compactness: 0.3, Sigma: 1.5}},
		{"grey no connectivity radius 1.5", grey, Options{Segments: 20, Compactness: 0.2, DisableConnectivity: true, SearchRadius: 1.5}},
		{"grey ties", flat, Options{Segments: 16, Compactness: 0.1}},
		{"four channels", four, Options{Segments: 12, Compactness: 15, Sigma: 1}},
		{"volume", vol, Options{Segments: 30, Compactness: 0.4, Sigma: 1.5}},
		{"volume spacing radius 2", vol, Options{Segments: 25, Compactness: 0.4, Sigma: 2, Spacing: [3]float64{1, 1.5, 3}, SearchRadius: 2, ZeroInit: true}},
		{"volume colour lab perturb", volRGB, Options{Segments: 12, Compactness: 10, Sigma: 1, Lab: true, PerturbSeeds: true}},
		{"volume 3 iterations", vol, Options{Segments: 30, Compactness: 0.2, MaxIter: 3, MinSizeFactor: 0.2, MaxSizeFactor: 1.5}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, wantN, err := refSegment(tc.v, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, workers := range []int{1, 2, 9} {
				// Strips of about 1 KB cut these small images into strips
				// of a few rows, as 2-D images of 1024 columns are cut.
				for _, strip := range []int{stripBytes, 1 << 10} {
					defer func(old int) { stripBytes = old }(stripBytes)
					stripBytes = strip
					opt := tc.opt
					opt.Workers = workers
					m, n, err := Segment(tc.v, opt)
					if err != nil {
						t.Fatal(err)
					}
					if n != wantN {
						t.Errorf("workers %d, strips of %d bytes: %d regions, reference %d", workers, strip, n, wantN)
					}
					if i := firstDiff(m.Labels, want); i >= 0 {
						t.Errorf("workers %d, strips of %d bytes: voxel %d labelled %d, reference %d (%s)", workers, strip, i, m.Labels[i], want[i], countDiff(m.Labels, want))
					}
				}
			}
		})
	}
}

func firstDiff(a, b []int32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func countDiff(a, b []int32) string {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return fmt.Sprintf("%d of %d voxels differ", n, len(a))
}
