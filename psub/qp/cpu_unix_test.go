//go:build unix

package qp

import "syscall"

// cpuSeconds is the user+system CPU time of the process so far. Benchmarks
// report it next to wall time because the machine they run on is shared.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}
