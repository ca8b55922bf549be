package membudget

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// physicalMemory is the machine's RAM in bytes, or 0.
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// processLimit is the smallest limit put on this process's memory, and
// what set it: the address-space limit (ulimit -v) or the control group's
// (cgroup v2 memory.max, v1 memory.limit_in_bytes, as Slurm and
// containers set it); 0 when there is none.
func processLimit() (int64, string) {
	limit, src := int64(0), ""
	take := func(n int64, s string) {
		if n > 0 && (limit == 0 || n < limit) {
			limit, src = n, s
		}
	}
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &rl) == nil && rl.Cur != ^uint64(0) && rl.Cur < 1<<62 {
		take(int64(rl.Cur), "address-space limit (ulimit -v)")
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n < 1<<62 {
			take(n, "control group's memory limit")
		}
	}
	return limit, src
}
