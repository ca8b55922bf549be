//go:build unix && !linux

package cputime

import "time"

func process() (time.Duration, bool) {
	ru, ok := rusage()
	if !ok {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

func thread() (time.Duration, bool) { return 0, false }
