//go:build !unix

package inference

// cpuSeconds is unavailable here; benchmarks then report 0 CPU time.
func cpuSeconds() float64 { return 0 }
