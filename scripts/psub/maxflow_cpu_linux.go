//go:build linux

package main

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// clockProcessCPUTime is CLOCK_PROCESS_CPUTIME_ID from <time.h>.
const clockProcessCPUTime = 2

// processCPU returns the CPU time, in seconds, of the whole process, all
// threads (the garbage collector's too) included: the clock the C++
// yardstick in psub/maxflow/testdata/bk reads as well.
func processCPU() float64 {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return nan()
	}
	return float64(ts.Sec) + 1e-9*float64(ts.Nsec)
}

// peakRSS returns the process's peak resident memory (VmHWM), nil if
// /proc does not tell.
func peakRSS() *int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			if err != nil {
				return nil
			}
			return ptr(kb * 1024)
		}
	}
	return nil
}
