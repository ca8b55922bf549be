//go:build linux

package cputime

import (
	"syscall"
	"time"
	"unsafe"
)

// The clock ids of <time.h>.
const (
	clockProcessCPUTime = 2 // CLOCK_PROCESS_CPUTIME_ID
	clockThreadCPUTime  = 3 // CLOCK_THREAD_CPUTIME_ID
)

func clock(id uintptr) (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, id, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

func process() (time.Duration, bool) { return clock(clockProcessCPUTime) }

func thread() (time.Duration, bool) { return clock(clockThreadCPUTime) }
