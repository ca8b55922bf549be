//go:build unix

package data

import (
	"syscall"
	"time"
)

// segProcessCPU is the user+system CPU time of this process so far, and its
// peak resident set size in bytes (Linux reports ru_maxrss in KiB).
func segProcessCPU() (time.Duration, int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Maxrss) * 1024
}
