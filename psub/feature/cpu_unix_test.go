//go:build unix

package feature

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the user+system CPU time of this process so far. On a
// shared machine wall-clock ns/op mostly measures the other tenants; the
// benchmarks report CPU time per operation beside it.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs f b.N times (b.Loop) and reports CPU ns per operation.
func loopCPU(b *testing.B, f func()) {
	var cpu time.Duration
	for b.Loop() {
		start := processCPU()
		f()
		cpu += processCPU() - start
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}
