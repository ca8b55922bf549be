package main

import "github.com/probably-submodular/crf/internal/cputime"

// processCPU returns the CPU time, in seconds, of the whole process, all
// threads (the garbage collector's too) included, NaN where it is not
// measured: on Linux the clock the C++ yardstick in
// psub/maxflow/testdata/bk reads as well.
func processCPU() float64 { return cputime.Seconds() }

// peakRSS returns the process's peak resident memory in bytes, nil where
// it is not measured.
func peakRSS() *int64 {
	if b, ok := cputime.PeakRSS(); ok {
		return ptr(b)
	}
	return nil
}
