//go:build unix

package inference

import "syscall"

// cpuSeconds is the user+system CPU time of the process so far. Benchmarks
// report it per op because on a shared machine wall time overstates the
// cost.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
