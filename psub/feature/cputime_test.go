package feature

import (
	"testing"
	"time"

	"github.com/probably-submodular/crf/internal/cputime"
)

// loopCPU runs f b.N times (b.Loop) and reports the process's CPU ns per
// operation beside wall time, which on a shared machine mostly measures the
// other tenants (not reported where CPU time is not measured).
func loopCPU(b *testing.B, f func()) {
	var cpu time.Duration
	measured := true
	for b.Loop() {
		start, ok1 := cputime.Process()
		f()
		end, ok2 := cputime.Process()
		cpu += end - start
		measured = measured && ok1 && ok2
	}
	if measured {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
