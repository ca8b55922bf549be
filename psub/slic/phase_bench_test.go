package slic

import (
	"slices"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// BenchmarkPhases2D times Segment's phases one at a time on the 1024×768
// cow with the cows protocol's options (see BENCHMARKS.md), on the inputs
// Segment gives each: prepare (range check, rescaling, CIELAB), smooth
// (the Gaussian, three planes), cluster (the k-means iterations: assignment
// and centre update) and connectivity. Run with GOMAXPROCS=1 for one core.
func BenchmarkPhases2D(b *testing.B) {
	v := cow1024(b)
	benchPhases(b, v, Options{Segments: 500, Compactness: 20, Sigma: 2, Lab: true})
}

// BenchmarkPhases3D: the same on the 512×384×82 EM crop of
// BenchmarkSegment3D.
func BenchmarkPhases3D(b *testing.B) {
	benchPhases(b, loadEMCrop(b, 512, 384, 82), Options{Segments: 16000, Compactness: 20, Sigma: 5})
}

func benchPhases(b *testing.B, v *imageio.Volume, opt Options) {
	opt, err := opt.withDefaults(v)
	if err != nil {
		b.Fatal(err)
	}
	sh := shape{W: v.Width, H: v.Height, D: v.Depth, C: v.Channels}
	g := newGrid([3]int{v.Width, v.Height, v.Depth}, opt.Segments)
	sigma := [3]float64{opt.Sigma / opt.Spacing[0], opt.Sigma / opt.Spacing[1], opt.Sigma / opt.Spacing[2]}
	plane := shape{W: sh.W, H: sh.H, D: sh.D, C: 1}
	feat, spare, err := prepare(v, opt)
	if err != nil {
		b.Fatal(err)
	}
	raw := make([][]float32, len(feat))
	for i, p := range feat {
		raw[i] = slices.Clone(p)
		feat[i], spare = smooth(p, spare, plane, sigma, opt.Workers)
	}
	c := newClusterer(feat, sh, g, opt)
	c.run(opt.MaxIter)
	labels := c.labels
	k := len(c.cx)
	size := float64(len(labels)) / float64(k)

	phase := func(name string, f func()) {
		b.Run(name, func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				f()
			}
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
	phase("prepare", func() {
		if _, _, err := prepare(v, opt); err != nil {
			b.Fatal(err)
		}
	})
	work := make([][]float32, len(raw))
	phase("smooth", func() {
		for i, p := range raw {
			work[i] = append(work[i][:0], p...)
			work[i], spare = smooth(work[i], spare, plane, sigma, opt.Workers)
		}
	})
	phase("cluster", func() {
		c := newClusterer(feat, sh, g, opt)
		c.run(opt.MaxIter)
	})
	lab := make([]int32, len(labels))
	phase("connectivity", func() {
		copy(lab, labels)
		enforceConnectivity(lab, sh, int(opt.MinSizeFactor*size), int(opt.MaxSizeFactor*size))
	})
}
