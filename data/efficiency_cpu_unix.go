//go:build unix

package data

import "syscall"

// processCPU is the user+system CPU time of this process so far, in seconds.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nan()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
