//go:build !unix

package data

import "time"

// processUsage is not measured on this platform.
func processUsage() (cpu time.Duration, maxRSS int64, ok bool) { return 0, 0, false }
