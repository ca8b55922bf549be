//go:build !linux

package data

import "os"

// changeTime is 0 where the status change time is not read.
func changeTime(os.FileInfo) int64 { return 0 }
