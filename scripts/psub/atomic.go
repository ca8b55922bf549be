package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeAtomic writes a file through write under a temporary name beside
// path and renames it to path only when everything was written, so that
// an interrupted or failed run never leaves a truncated output behind.
// Errors name path.
func writeAtomic(path string, write func(w io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	err = errors.Join(write(bw), bw.Flush(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
