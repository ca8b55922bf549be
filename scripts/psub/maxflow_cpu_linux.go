//go:build linux

package main

import (
	"syscall"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID from <time.h>.
const clockThreadCPUTime = 3

// threadCPU returns the CPU time, in seconds, of the calling OS thread
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID), the clock the C++ yardstick in
// psub/maxflow/BENCHMARKS.md uses too).
func threadCPU() (seconds float64, ok bool) {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return float64(ts.Sec) + 1e-9*float64(ts.Nsec), true
}
