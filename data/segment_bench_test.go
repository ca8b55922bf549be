package data

import (
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/probably-submodular/crf/internal/cputime"
)

// Benchmarks of the problem builders on the real data (skipped without it).
// Each reports, beside ns/op: cpu-ns/op (user+system CPU; on a shared
// machine wall time mostly measures the other tenants), peak-heap-MB (the
// largest live heap seen by a 2 ms sampler during the operation) and
// maxrss-MB (the process's peak resident set so far: meaningful when the
// benchmark runs alone in its process). Commands and numbers are in
// BENCHMARKS.md.

func dirMB(dir string) float64 {
	ents, _ := os.ReadDir(dir)
	var n int64
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return float64(n) / (1 << 20)
}

func needDataSetB(b *testing.B, sub string) {
	b.Helper()
	if _, err := Find("", sub); err != nil {
		b.Skipf("real data set %s not available: %v", sub, err)
	}
}

// heapSampler records the peak of the live heap while it runs.
type heapSampler struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

func startHeapSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > h.peak {
			h.peak = v
		}
	}
	read()
	h.wg.Go(func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-h.stop:
				read()
				return
			case <-t.C:
				read()
			}
		}
	})
	return h
}

func (h *heapSampler) Stop() uint64 {
	close(h.stop)
	h.wg.Wait()
	return h.peak
}

// measure runs f b.N times and reports CPU time, peak heap and peak RSS.
func measure(b *testing.B, f func() error) {
	runtime.GC()
	var cpu time.Duration
	var peak uint64
	for b.Loop() {
		h := startHeapSampler()
		start, _, _ := processUsage()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		end, _, _ := processUsage()
		cpu += end - start
		peak = max(peak, h.Stop())
	}
	_, rss, _ := processUsage()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(rss)/(1<<20), "maxrss-MB")
}

// BenchmarkBuildCows builds all 111 cow images with the paper's settings:
// "first" with an empty cache (SLIC, descriptors, cache writes), "cached"
// from a filled one (hashing the inputs and decoding the entries).
func BenchmarkBuildCows(b *testing.B) {
	needDataSetB(b, CowsDir)
	b.Run("first", func(b *testing.B) {
		measure(b, func() error {
			dir, err := os.MkdirTemp("", "segcache")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			_, err = BuildCows(ImageSetOptions{Cache: &SegmentCache{Dir: dir}})
			return err
		})
	})
	b.Run("cached", func(b *testing.B) {
		cache := &SegmentCache{Dir: b.TempDir()}
		if _, err := BuildCows(ImageSetOptions{Cache: cache}); err != nil {
			b.Fatal(err)
		}
		measure(b, func() error {
			_, err := BuildCows(ImageSetOptions{Cache: cache})
			return err
		})
		b.ReportMetric(dirMB(cache.Dir), "cache-MB")
	})
}

// BenchmarkBuildMitoCrop builds the quick profile's 256×192×40 crop of the
// training volume (~1,970 supervoxels), first and cached.
func BenchmarkBuildMitoCrop(b *testing.B) {
	benchMito(b, MitoOptions{Crop: MitoQuickCrop()})
}

// BenchmarkBuildMitoFull builds the whole training volume (1024×768×165,
// ~130K supervoxels). It needs several GB and minutes: opt in with
// PSUB_BENCH_FULL=1 and run it alone (-run XXX -bench MitoFull -benchtime 1x).
func BenchmarkBuildMitoFull(b *testing.B) {
	if os.Getenv("PSUB_BENCH_FULL") != "1" {
		b.Skip("set PSUB_BENCH_FULL=1 to build the full mitochondria volume")
	}
	benchMito(b, MitoOptions{})
}

func benchMito(b *testing.B, opt MitoOptions) {
	needDataSetB(b, MitoDir)
	b.Run("first", func(b *testing.B) {
		measure(b, func() error {
			dir, err := os.MkdirTemp("", "segcache")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			o := opt
			o.Cache = &SegmentCache{Dir: dir}
			_, err = BuildMito(o)
			return err
		})
	})
	b.Run("cached", func(b *testing.B) {
		o := opt
		o.Cache = &SegmentCache{Dir: b.TempDir()}
		set, err := BuildMito(o)
		if err != nil {
			b.Fatal(err)
		}
		nodes, edges := set.Items[0].Instance.Nodes(), len(set.Items[0].Instance.Edges)
		set = nil
		measure(b, func() error {
			_, err := BuildMito(o)
			return err
		})
		b.ReportMetric(dirMB(o.Cache.Dir), "cache-MB")
		// After the loop: b.Loop's timer reset drops metrics reported before.
		b.ReportMetric(float64(nodes), "supervoxels")
		b.ReportMetric(float64(edges), "edges")
	})
}

// processUsage is the user+system CPU time of this process so far and its
// peak resident set size in bytes; ok is false when they are not measured.
func processUsage() (cpu time.Duration, maxRSS int64, ok bool) {
	cpu, ok1 := cputime.Process()
	maxRSS, ok2 := cputime.PeakRSS()
	return cpu, maxRSS, ok1 && ok2
}
