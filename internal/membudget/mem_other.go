//go:build !linux

package membudget

// physicalMemory is 0 (unknown) outside Linux.
func physicalMemory() int64 { return 0 }

// processLimit is 0 (none known) outside Linux.
func processLimit() (int64, string) { return 0, "" }
