//go:build !linux

package main

// threadCPU is not available outside Linux; "psub maxflow" then reports
// wall-clock times only.
func threadCPU() (seconds float64, ok bool) { return 0, false }
