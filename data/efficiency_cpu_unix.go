//go:build unix

package data

import (
	"syscall"
	"time"
)

// processUsage is the user+system CPU time of this process so far and its
// peak resident set size in bytes (Linux reports ru_maxrss in KiB); ok is
// false when they cannot be read.
func processUsage() (cpu time.Duration, maxRSS int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Maxrss) * 1024, true
}
