//go:build !unix

package data

import "time"

func segProcessCPU() (time.Duration, int64) { return 0, 0 }
