package slic

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/psub/imageio"
)

// Options sets up Segment. The zero value of every field except Segments
// means scikit-image's default.
type Options struct {
	// Segments is the approximate number of regions wanted (n_segments);
	// it must be positive. The seed grid has about this many points.
	Segments int
	// Compactness is m, the weight of spatial against feature distance
	// (compactness); 0 means 10. Higher values give more regular regions.
	// The spatial term must stay below 1e30 within a search window (float32
	// distances): Segment's error gives the largest m a volume allows.
	Compactness float64
	// Sigma is the standard deviation, in units of Spacing, of the Gaussian
	// pre-smoothing (sigma); 0 means no smoothing. In voxels (Sigma /
	// Spacing) it must not exceed the longest axis.
	Sigma float64
	// MaxIter bounds the k-means iterations (max_num_iter); 0 means 10.
	MaxIter int
	// DisableConnectivity skips the connected-component pass
	// (enforce_connectivity=False); regions may then be fragmented.
	DisableConnectivity bool
	// MinSizeFactor and MaxSizeFactor scale N/K, the mean region size, into
	// the smallest kept and the largest allowed component
	// (min_size_factor, max_size_factor); 0 means 0.5 and 3. Sizes beyond
	// the volume mean no limit.
	MinSizeFactor, MaxSizeFactor float64
	// Lab converts a 3-channel RGB input to CIELAB (D65) before clustering
	// (convert2lab). It requires Channels == 3.
	Lab bool
	// KeepRange uses the samples as given; by default they are rescaled to
	// [0, 1] by the global minimum and maximum, as scikit-image does, so that
	// Compactness does not depend on the bit depth.
	KeepRange bool
	// Spacing is the voxel size along x, y, z (spacing, in the order
	// Width, Height, Depth); zero entries mean 1.
	Spacing [3]float64
	// SearchRadius is the half-width of a centre's search window in grid
	// steps; 0 means 1 (Achanta et al.). scikit-image uses 2. At most the
	// longest axis length (a wider window covers nothing more).
	SearchRadius float64
	// PerturbSeeds moves each seed to the lowest-gradient voxel of its 3×3
	// (3×3×3 in 3-D) neighbourhood, as in Achanta et al.; scikit-image does
	// not.
	PerturbSeeds bool
	// ZeroInit starts every centre with feature 0, as scikit-image does,
	// instead of the feature of its seed voxel (Achanta et al.); the first
	// assignment is then purely spatial. With SearchRadius 2 this follows
	// skimage.segmentation.slic closely.
	ZeroInit bool
	// Workers is the number of goroutines, at most 4096; 0 means
	// GOMAXPROCS. The result does not depend on it.
	Workers int
}

// Bounds of the options that would otherwise overflow a conversion, hang
// or allocate without limit (see withDefaults and checkSpatial).
const (
	// maxWorkers bounds Workers (per-worker scratch is allocated up front).
	maxWorkers = 1 << 12
	// maxSpatial bounds the spatial term of the distance, which is summed
	// in float32 (largest finite value about 3.4e38) with the feature term.
	maxSpatial = 1e30
)

// withDefaults validates opt for the volume v and fills in the defaults.
// Every error names the option, its value and the allowed range.
func (opt Options) withDefaults(v *imageio.Volume) (Options, error) {
	bad := func(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
	dims := [3]int{v.Width, v.Height, v.Depth}
	longest := max(dims[0], dims[1], dims[2])
	switch {
	case opt.Segments <= 0:
		return opt, fmt.Errorf("slic: Segments = %d, must be positive", opt.Segments)
	case bad(opt.Compactness):
		return opt, fmt.Errorf("slic: Compactness = %v, must be finite and positive", opt.Compactness)
	case bad(opt.Sigma):
		return opt, fmt.Errorf("slic: Sigma = %v, must be finite and non-negative", opt.Sigma)
	case opt.MaxIter < 0:
		return opt, fmt.Errorf("slic: MaxIter = %d, must be non-negative", opt.MaxIter)
	case bad(opt.MinSizeFactor), bad(opt.MaxSizeFactor):
		return opt, fmt.Errorf("slic: MinSizeFactor = %v, MaxSizeFactor = %v: must be finite and non-negative", opt.MinSizeFactor, opt.MaxSizeFactor)
	case bad(opt.SearchRadius) || opt.SearchRadius > float64(longest):
		return opt, fmt.Errorf("slic: SearchRadius = %v grid steps, must be in [0, %d] (0 means 1; at %d steps a window already covers the whole %dx%dx%d volume)",
			opt.SearchRadius, longest, longest, dims[0], dims[1], dims[2])
	case opt.Workers < 0 || opt.Workers > maxWorkers:
		return opt, fmt.Errorf("slic: Workers = %d, must be in [0, %d] (0 means GOMAXPROCS)", opt.Workers, maxWorkers)
	case opt.Lab && v.Channels != 3:
		return opt, fmt.Errorf("slic: Lab conversion needs 3 channels (RGB), volume has %d", v.Channels)
	}
	for i, s := range opt.Spacing {
		if bad(s) {
			return opt, fmt.Errorf("slic: Spacing[%d] = %v, must be finite and positive", i, s)
		}
		if s == 0 {
			opt.Spacing[i] = 1
		}
	}
	// The Gaussian's support is 4σ on each side and costs time in
	// proportion; beyond the volume's extent it only flattens it. (Bounding
	// by the longest axis rather than each axis keeps a thin crop, say 3
	// slices with σ = 5, valid.)
	for a, name := range []string{"x", "y", "z"} {
		if s := opt.Sigma / opt.Spacing[a]; dims[a] > 1 && s > float64(longest) {
			return opt, fmt.Errorf("slic: Sigma = %v is %.4g voxels along %s (Spacing[%d] = %v), must be in [0, %d] voxels (the longest axis of the %dx%dx%d volume), i.e. Sigma at most %.4g",
				opt.Sigma, s, name, a, opt.Spacing[a], longest, dims[0], dims[1], dims[2], float64(longest)*opt.Spacing[a])
		}
	}
	if opt.Compactness == 0 {
		opt.Compactness = 10
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = 10
	}
	if opt.MinSizeFactor == 0 {
		opt.MinSizeFactor = 0.5
	}
	if opt.MaxSizeFactor == 0 {
		opt.MaxSizeFactor = 3
	}
	if opt.MaxSizeFactor < opt.MinSizeFactor {
		return opt, fmt.Errorf("slic: MaxSizeFactor = %v is below MinSizeFactor = %v", opt.MaxSizeFactor, opt.MinSizeFactor)
	}
	if opt.SearchRadius == 0 {
		opt.SearchRadius = 1
	}
	if opt.Workers == 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	return opt, nil
}

// checkSpatial checks that the spatial term (m/S)²·‖s ⊙ (p − p_k)‖² stays
// below maxSpatial over every search window of grid g, so that float32
// distances neither overflow nor lose the feature term entirely; the error
// gives the largest Compactness that fits.
func checkSpatial(opt Options, g grid) error {
	step := float64(max(g.step[0], g.step[1], g.step[2]))
	reach := 0.0 // the largest Σ (s_a·Δ_a)² within a window
	for a := range 3 {
		d := min(opt.SearchRadius*float64(g.step[a])+1, float64(g.dims[a]))
		reach += (opt.Spacing[a] * d) * (opt.Spacing[a] * d)
	}
	w := (opt.Compactness / step) * (opt.Compactness / step)
	if w*reach <= maxSpatial && !math.IsInf(reach, 0) {
		return nil
	}
	if reach > maxSpatial {
		return fmt.Errorf("slic: Spacing %v: spatial distances within a search window reach %.3g even before Compactness weighs them, more than float32 distances hold (%.0e); give the spacing in smaller units",
			opt.Spacing, reach, maxSpatial)
	}
	return fmt.Errorf("slic: Compactness = %v with Spacing %v and grid step %v: spatial distances reach %.3g, more than float32 distances hold (%.0e); Compactness must be in [0, %.4g] here",
		opt.Compactness, opt.Spacing, step, w*reach, maxSpatial, step*math.Sqrt(maxSpatial/reach))
}

// WorkBytesPerVoxel is what Segment holds per voxel of a volume with the
// given channels, the volume included: the volume's and the feature
// planes' float32 samples (4 bytes a channel each), and the labels, the
// distances and the smoothing scratch (4 bytes each). Peak RSS of psub slic
// on a 4000×4000 image (2 cores, Go 1.26): 21 bytes a pixel grey, 35 RGB,
// decoding included; this gives 20 and 36. Segment checks it against the
// memory budget (internal/membudget) before allocating.
func WorkBytesPerVoxel(channels int) int64 { return 8*int64(channels) + 12 }

// Segment partitions v into about opt.Segments regions and returns a label
// map with labels 0..n-1 (every label used) and n. It works for 2-D images
// (Depth 1, any channel count) and for volumes; v is not modified.
// With connectivity enforced (the default) every label is one connected
// region (4-connected in 2-D, 6-connected in 3-D).
func Segment(v *imageio.Volume, opt Options) (*imageio.LabelMap, int, error) {
	if v == nil {
		return nil, 0, errors.New("slic: nil volume")
	}
	if err := v.Check(); err != nil {
		return nil, 0, fmt.Errorf("slic: %w", err)
	}
	if v.Voxels() >= math.MaxInt32 {
		return nil, 0, fmt.Errorf("slic: volume %dx%dx%d has %d voxels, at most %d supported (int32 labels)", v.Width, v.Height, v.Depth, v.Voxels(), math.MaxInt32-1)
	}
	if err := membudget.Check(fmt.Sprintf("slic: SLIC of a %dx%dx%d volume with %d channel(s)", v.Width, v.Height, v.Depth, v.Channels),
		membudget.Bytes(int64(v.Voxels()), WorkBytesPerVoxel(v.Channels))); err != nil {
		return nil, 0, err
	}
	opt, err := opt.withDefaults(v)
	if err != nil {
		return nil, 0, err
	}
	g := newGrid([3]int{v.Width, v.Height, v.Depth}, opt.Segments)
	if err := checkSpatial(opt, g); err != nil {
		return nil, 0, err
	}
	feat, spare, err := prepare(v, opt)
	if err != nil {
		return nil, 0, err
	}
	sh := shape{W: v.Width, H: v.Height, D: v.Depth, C: v.Channels}
	sigma := [3]float64{opt.Sigma / opt.Spacing[0], opt.Sigma / opt.Spacing[1], opt.Sigma / opt.Spacing[2]}
	for i := range feat {
		feat[i], spare = smooth(feat[i], spare, shape{W: sh.W, H: sh.H, D: sh.D, C: 1}, sigma, opt.Workers)
	}

	c := newClusterer(feat, sh, g, opt)
	feat = nil
	c.run(opt.MaxIter)
	labels := c.labels
	k := len(c.cx)
	c = nil // let the distance buffer go before the connectivity pass

	var n int
	if opt.DisableConnectivity {
		n = compact(labels, k)
	} else {
		// Sizes beyond the volume mean no limit; clamping first keeps the
		// conversion to int in range.
		size := float64(len(labels)) / float64(k)
		limit := func(f float64) int { return int(min(f*size, float64(len(labels)+1))) }
		n = enforceConnectivity(labels, sh, limit(opt.MinSizeFactor), limit(opt.MaxSizeFactor))
	}
	return &imageio.LabelMap{Width: v.Width, Height: v.Height, Depth: v.Depth, Labels: labels}, n, nil
}

// shape is the geometry of a feature buffer.
type shape struct{ W, H, D, C int }

// prepare returns the samples of v as one plane per channel, and a spare
// plane for smooth if it needs one (else nil), rescaled to
// [0, 1] (unless KeepRange) and converted to CIELAB (if Lab), after
// checking that every sample is finite. Rescaling, conversion and the
// change of layout are one pass; the arithmetic is that of rescaling in
// place and then converting (rgbToLab), so the values are the same.
func prepare(v *imageio.Volume, opt Options) (planes [][]float32, spare []float32, err error) {
	pix, channels := v.Pix, v.Channels
	// Range, finiteness and 8-bit check in parallel pieces; minimum and
	// maximum do not depend on the split, and the first bad sample is
	// reported.
	type summary struct {
		lo, hi float32
		bytes  bool // Lab, and every sample an integer in [0, 255]
		bad    int  // index of the first non-finite sample, or -1
	}
	parts := make([]summary, max(opt.Workers, 1))
	runTasks(len(parts), len(parts), func(_, w int) {
		a, b := len(pix)*w/len(parts), len(pix)*(w+1)/len(parts)
		s := summary{float32(math.Inf(1)), float32(math.Inf(-1)), opt.Lab, -1}
		part := pix[a:b]
		if lo, hi, finite, integral := scanSamples(part); finite {
			s.lo, s.hi = lo, hi
			s.bytes = s.bytes && integral && lo >= 0 && hi <= 255
		} else {
			for i, x := range part {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					s.bad = a + i
					break
				}
			}
		}
		parts[w] = s
	})
	lo, hi, bytes := float32(math.Inf(1)), float32(math.Inf(-1)), true
	for _, s := range parts {
		if s.bad >= 0 {
			return nil, nil, fmt.Errorf("slic: voxel %d channel %d is %v, samples must be finite", s.bad/channels, s.bad%channels, pix[s.bad])
		}
		lo, hi, bytes = min(lo, s.lo), max(hi, s.hi), bytes && s.bytes
	}
	if spread := float64(hi) - float64(lo); opt.KeepRange && spread*spread*float64(channels) > maxSpatial {
		return nil, nil, fmt.Errorf("slic: KeepRange with samples in [%v, %v]: squared feature differences up to %.3g, more than float32 distances hold (%.0e); rescale the data or leave KeepRange off", lo, hi, spread*spread*float64(channels), maxSpatial)
	}
	scale := float32(1)
	if hi > lo {
		scale = 1 / (hi - lo)
	}
	rescale := func(x float32) float32 {
		if opt.KeepRange {
			return x
		}
		return (x - lo) * scale
	}
	n := len(pix) / channels
	planes = make([][]float32, channels)
	for c := range planes {
		planes[c] = staggered(n, c)
	}
	if opt.Sigma > 0 && smoothYNeedsSpare(v.Depth, opt.Workers) {
		spare = staggered(n, channels)
	}
	if !opt.Lab {
		parallelFor(n, opt.Workers, func(a, b int) {
			for c, plane := range planes {
				for i := a; i < b; i++ {
					plane[i] = rescale(pix[i*channels+c])
				}
			}
		})
		return planes, spare, nil
	}
	t := sharedLabTables()
	if bytes {
		// 8-bit data: the sRGB curve of the 256 possible values, once.
		var lin [256]float64
		for b := range lin {
			lin[b] = t.linear(float64(rescale(float32(b))))
		}
		parallelFor(n, opt.Workers, func(a, b int) {
			labBytes(t, &lin, pix[3*a:3*b], planes[0][a:b], planes[1][a:b], planes[2][a:b])
		})
		return planes, spare, nil
	}
	parallelFor(n, opt.Workers, func(a, b int) {
		for i := a; i < b; i++ {
			p := pix[3*i : 3*i+3 : 3*i+3]
			planes[0][i], planes[1][i], planes[2][i] = t.lab(t.linear(float64(rescale(p[0]))), t.linear(float64(rescale(p[1]))), t.linear(float64(rescale(p[2]))))
		}
	})
	return planes, spare, nil
}

// staggered returns a plane of n samples starting 80·c bytes past the
// start of its allocation. Large allocations start at page boundaries, so
// planes of a multiple of 1024 samples would otherwise map sample i of
// every plane to the same cache set, and the assignment and the centre
// sums read them side by side.
func staggered(n, c int) []float32 {
	off := 20 * c
	return make([]float32, n+off)[off : off+n : off+n]
}

// parallelFor splits [0, n) into contiguous pieces, one per worker. Use it
// only for work whose result does not depend on the split.
func parallelFor(n, workers int, f func(a, b int)) {
	if workers <= 1 || n < 4096 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		a, b := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(a, b)
		}()
	}
	wg.Wait()
}

// runTasks calls f(worker, task) for every task in [0, n) on the given
// number of goroutines, handing out tasks in order.
func runTasks(n, workers int, f func(worker, task int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for t := 0; t < n; t++ {
			f(0, t)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				t := int(next.Add(1) - 1)
				if t >= n {
					return
				}
				f(w, t)
			}
		}()
	}
	wg.Wait()
}
