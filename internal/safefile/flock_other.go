//go:build !unix

package safefile

import "os"

// Without flock, writers do not mark their temporary files; CleanTemps then
// relies on their age alone.
func lockFile(f *os.File) {}

func tryLock(f *os.File) bool { return true }

func syncDir(dir string) {}
