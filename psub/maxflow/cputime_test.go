package maxflow

import "github.com/probably-submodular/crf/internal/cputime"

// threadCPU returns the CPU time in ns of the calling OS thread (Linux
// only); benchmarks lock the goroutine to its thread and report it as
// cpu-ns/op, which on the shared benchmark machine is far steadier than
// wall-clock ns/op.
func threadCPU() (ns int64, ok bool) {
	d, ok := cputime.Thread()
	return d.Nanoseconds(), ok
}
