package inference

import "github.com/probably-submodular/crf/internal/cputime"

// cpuSeconds is the process's CPU time so far, NaN where it is not
// measured: benchmarks report it per op beside wall time, which on a shared
// machine mostly measures the other tenants.
var cpuSeconds = cputime.Seconds
