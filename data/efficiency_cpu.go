package data

import (
	"time"

	"github.com/probably-submodular/crf/internal/cputime"
)

// processUsage is the user+system CPU time of this process so far and its
// peak resident set size in bytes; ok is false when they are not measured.
func processUsage() (cpu time.Duration, maxRSS int64, ok bool) {
	cpu, ok1 := cputime.Process()
	maxRSS, ok2 := cputime.PeakRSS()
	return cpu, maxRSS, ok1 && ok2
}
