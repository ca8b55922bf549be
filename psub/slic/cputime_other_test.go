//go:build !unix

package slic

func cpuSeconds() float64 { return 0 }
