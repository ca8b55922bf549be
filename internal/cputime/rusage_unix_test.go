//go:build unix

package cputime

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// The process clock against getrusage, read independently: user+system
// time read before Process cannot exceed it.
func TestProcessAgainstGetrusage(t *testing.T) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skip("getrusage:", err)
	}
	before := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	p, ok := Process()
	if !ok {
		t.Skip("process CPU time not measured on " + runtime.GOOS)
	}
	if before > p {
		t.Errorf("getrusage said %v before Process said %v", before, p)
	}
}
