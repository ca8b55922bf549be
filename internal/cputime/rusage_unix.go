//go:build unix

package cputime

import (
	"runtime"
	"syscall"
)

func rusage() (syscall.Rusage, bool) {
	var ru syscall.Rusage
	err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru, err == nil
}

func peakRSS() (int64, bool) {
	ru, ok := rusage()
	if !ok {
		return 0, false
	}
	// ru_maxrss is in KiB, except on macOS and iOS, which report bytes.
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), true
	}
	return int64(ru.Maxrss) * 1024, true
}
