//go:build !linux

package main

// processCPU is not available outside Linux; "psub maxflow" then reports
// wall-clock times only.
func processCPU() float64 { return nan() }

// peakRSS is not available outside Linux.
func peakRSS() *int64 { return nil }
