//go:build !unix

package cputime

import "time"

// CPU time and memory are not measured on this platform.
func process() (time.Duration, bool) { return 0, false }
func thread() (time.Duration, bool)  { return 0, false }
func peakRSS() (int64, bool)         { return 0, false }
