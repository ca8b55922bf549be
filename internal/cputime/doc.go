// Package cputime reads how much CPU time and memory this process has used:
// the one implementation behind every benchmark's cpu-ns/op, RunEfficiency's
// CPU seconds and the psub command's timings. On a shared machine wall time
// mostly measures the other tenants; CPU time is the steadier figure.
//
//   - Process is the user+system CPU time of the whole process, all threads
//     (the garbage collector's too): clock_gettime(CLOCK_PROCESS_CPUTIME_ID)
//     on Linux, the clock the C++ max-flow yardstick reads as well, and
//     getrusage(RUSAGE_SELF) on other Unix systems.
//   - Thread is the CPU time of the calling OS thread (Linux only); a
//     benchmark that reads it locks its goroutine to the thread.
//   - PeakRSS is the process's peak resident set size (getrusage's
//     ru_maxrss, Linux's VmHWM).
//
// Each says with its second result whether the platform measures it, so a
// caller reports "not measured" instead of a zero. Seconds is Process in
// seconds, NaN where it is not measured. Notebooks, which cannot import an
// internal package, read it through data/runenv.CPUSeconds.
package cputime
