//go:build !unix

package data

// processCPU is not measured on this platform.
func processCPU() float64 { return nan() }
