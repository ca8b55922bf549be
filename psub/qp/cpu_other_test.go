//go:build !unix

package qp

func cpuSeconds() float64 { return 0 }
