//go:build !linux

package membudget

// physicalMemory is 0 (unknown) outside Linux.
func physicalMemory() int64 { return 0 }
