package data

import (
	"os"
	"syscall"
)

// changeTime is the file's status change time in ns: a write changes it even
// when the modification time is set back.
func changeTime(st os.FileInfo) int64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Ctim.Nano()
	}
	return 0
}
