//go:build unix

package cputime

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
)

func rusage() (syscall.Rusage, bool) {
	var ru syscall.Rusage
	err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru, err == nil
}

func peakRSS() (int64, bool) {
	// On Linux ru_maxrss survives exec: a program started by a larger one
	// (a Python driver, say) reports its parent's peak when that is
	// higher. The kernel's VmHWM is this process image's own.
	if runtime.GOOS == "linux" {
		if b, err := os.ReadFile("/proc/self/status"); err == nil {
			for _, line := range bytes.Split(b, []byte("\n")) {
				if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
					kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
					if err == nil {
						return kb * 1024, true
					}
				}
			}
		}
	}
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
