//go:build !linux

package maxflow

// threadCPU is only implemented on Linux; elsewhere cpu-ns/op is not
// reported.
func threadCPU() (ns int64, ok bool) { return 0, false }
