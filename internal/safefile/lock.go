package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrLocked is wrapped by Lock's error when another process holds the lock.
var ErrLocked = errors.New("held by another run")

// A Lock is an exclusive lock on a lock file, held until Unlock or the end
// of the process (the operating system releases it when the process dies,
// however it dies).
type Lock struct {
	f    *os.File
	path string
}

// TryLock takes the lock file path without waiting. When another process
// holds it, the error wraps ErrLocked and names that process. The file
// holds the holder's process id and is removed by Unlock. On systems
// without file locks (not Unix) it always succeeds.
func TryLock(path string) (*Lock, error) {
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, unwrapPath(err))
		}
		if !tryLock(f) {
			b, _ := os.ReadFile(path)
			f.Close()
			holder := "another process"
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				holder = "process " + strconv.Itoa(pid)
			}
			return nil, fmt.Errorf("%s: %w (%s holds it)", path, ErrLocked, holder)
		}
		// The previous holder may have removed the file between our open
		// and our lock: then we locked a file nobody else will see.
		if same(f, path) || attempt >= 10 {
			l := &Lock{f: f, path: path}
			f.Truncate(0)
			f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			return l, nil
		}
		f.Close()
	}
}

// LockPath is the lock file that guards the file at path: .NAME.lock
// beside it, hidden, and never taken for a temporary file by CleanTemps.
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// Unlock removes the lock file and releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path) // while locked: no one else can be holding it
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// same reports whether the open file f is still the file at path.
func same(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	if err != nil {
		return false
	}
	return os.SameFile(a, b)
}
