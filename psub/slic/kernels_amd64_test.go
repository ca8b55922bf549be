//go:build amd64 && !purego

package slic

import "testing"

// TestKernelsSSE2 runs TestKernelsMatchGo on the SSE2 kernels too when the
// processor has AVX2 (which is then used by default).
func TestKernelsSSE2(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2: TestKernelsMatchGo already runs the SSE2 kernels")
	}
	useAVX2 = false
	defer func() { useAVX2 = true }()
	TestKernelsMatchGo(t)
}
