package cputime

import (
	"math"
	"time"
)

// Seconds is Process in seconds, NaN where it is not measured.
func Seconds() float64 {
	d, ok := Process()
	if !ok {
		return math.NaN()
	}
	return d.Seconds()
}

// Process is the user+system CPU time of this process so far, all threads
// included; ok is false where the platform does not measure it.
func Process() (d time.Duration, ok bool) { return process() }

// Thread is the CPU time of the calling OS thread so far (Linux only; lock
// the goroutine to its thread with runtime.LockOSThread around a
// measurement); ok is false elsewhere.
func Thread() (d time.Duration, ok bool) { return thread() }

// PeakRSS is the peak resident set size of this process in bytes; ok is
// false where the platform does not measure it.
func PeakRSS() (bytes int64, ok bool) { return peakRSS() }
