//go:build linux

package maxflow

import (
	"syscall"
	"unsafe"
)

// threadCPU returns the CPU time in ns of the calling OS thread
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID)); benchmarks lock the goroutine
// to its thread and report it as cpu-ns/op, which on the shared benchmark
// machine is far steadier than wall-clock ns/op.
func threadCPU() (ns int64, ok bool) {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return ts.Nano(), true
}
