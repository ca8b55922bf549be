//go:build !unix

package feature

import "testing"

// loopCPU runs f b.N times; CPU time is not measured on this platform.
func loopCPU(b *testing.B, f func()) {
	for b.Loop() {
		f()
	}
}
