// Package membudget is the one memory budget of the project's readers.
//
// A few bytes of a file can declare sizes that ask for tens of gigabytes
// (an image header of 100000×100000, a DIMACS "p max 2147483646 1", a label
// 10⁹ in a graph, a model file with 2⁶² labels). Every reader checks what a
// declared size would allocate with Check before allocating it, and fails
// with an *ExceededError that says what was asked, the limit, and how to
// raise it, instead of running out of memory or panicking.
//
// # The budget
//
// The budget is the value of the environment variable PSUB_MAX_MEMORY: a
// number of bytes with an optional unit (B, KB, MB, GB, TB in powers of
// 1000; KiB, MiB, GiB, TiB in powers of 1024; "64GiB", "500MB"). Unset, it is half of the machine's physical memory (12 GiB
// on a 24 GiB machine), or half of a lower limit put on the process (ulimit
// -v, a container's or a Slurm job's control group), or 4 GiB where none is
// known. A malformed value
// is an error of every Check, not silently the default.
//
// The budget bounds one allocation decision at a time (one image, one graph,
// one constraint pool), not the process: it stops sizes that cannot be real,
// and a real job that needs more sets PSUB_MAX_MEMORY higher.
package membudget
