package safefile

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// tempSuffix ends every temporary name; tempName builds the pattern.
const tempSuffix = ".tmp"

// tempPattern is the os.CreateTemp pattern of a temporary file for path:
// hidden, named after the target, so that CleanTemps finds it.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".*" + tempSuffix }

// Write writes the file at path through write, atomically: under a
// temporary name in the same folder, flushed and synced, then renamed over
// path (mode 0644). When write or any step fails, path is left as it was
// and the temporary file is removed. The folder must exist. path must not
// name an existing file that is not a regular file (a device such as
// /dev/full, a folder): renaming over it would replace it. A path that is
// a symbolic link is written through: the file it leads to is replaced (or
// created, for a link to a missing file) and the link is kept, as a
// shell's > does. Errors name path.
func Write(path string, write func(w io.Writer) error) error {
	return writeFile(path, write, false)
}

// WriteBytes is Write of b.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}

func writeFile(path string, write func(w io.Writer) error, sealed bool) (err error) {
	if err := checkTarget(path); err != nil {
		return err
	}
	target, err := linkTarget(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	CleanTemps(target)
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, tempPattern(target))
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	tmp := f.Name()
	// The writer holds a lock on its temporary file, which tells CleanTemps
	// that it is alive.
	lockFile(f)
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("%s: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	var out io.Writer = bw
	var h hash.Hash
	if sealed {
		h = sha256.New()
		if _, err := bw.WriteString(sealMagic); err != nil {
			return err
		}
		out = io.MultiWriter(bw, h)
	}
	if err := write(out); err != nil {
		return err
	}
	if sealed {
		if _, err := bw.Write(h.Sum(nil)); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil { // CreateTemp's 0600 is for secrets
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		return unwrapPath(err)
	}
	// Closing after the rename keeps the lock until the name is gone.
	if err := f.Close(); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// maxLinks bounds the symbolic links linkTarget follows, as the kernel
// does (ELOOP).
const maxLinks = 40

// linkTarget follows path while it is a symbolic link and returns the
// file it leads to (which may not exist yet): renaming over a link would
// replace the link and leave its target as it was.
func linkTarget(path string) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		t, err := os.Readlink(path)
		if err != nil {
			return "", unwrapPath(err)
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(path), t)
		}
		path = t
	}
	return "", errors.New("too many levels of symbolic links")
}

// checkTarget refuses a target that exists and is not a regular file.
func checkTarget(path string) error {
	st, err := os.Stat(path)
	if err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s); outputs are written to a temporary file and renamed into place, which would replace it", path, kind(st.Mode()))
	}
	return nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

// CheckWritable reports, before any work is done, whether Write could put
// a file at path: path is not an existing non-regular file, its folder
// exists, and a file can be created in it (a temporary one, removed at
// once). A full disk is found only when writing.
func CheckWritable(path string) error {
	if err := checkTarget(path); err != nil {
		return err
	}
	target, err := linkTarget(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	dir := filepath.Dir(target)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: the folder %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	case !st.IsDir():
		return fmt.Errorf("%s: %s is not a folder", path, dir)
	}
	f, err := os.CreateTemp(dir, tempPattern(target))
	if err != nil {
		return fmt.Errorf("%s: cannot create a file in %s: %w", path, dir, unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// unwrapPath drops the *PathError's path (the temporary name) so that the
// message names only the target.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// orphanAge is how old an unlocked temporary file must be before CleanTemps
// removes it: a writer locks its file right after creating it, and the age
// covers that moment (and file systems without locks).
const orphanAge = time.Minute

// CleanTemps removes the temporary files that writers of path left behind
// when they died: files named like Write's temporary files for path that
// no live process holds locked and that were last modified more than a
// minute ago. It returns how many it removed. Write calls it.
func CleanTemps(path string) int {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, "."+base+".") || !strings.HasSuffix(name, tempSuffix) {
			continue
		}
		if removeOrphan(filepath.Join(dir, name)) {
			n++
		}
	}
	return n
}

// CleanTempsMatching is CleanTemps for temporary files named by another
// convention: every regular file in dir for which match(name) is true is
// an orphan when unlocked and older than a minute.
func CleanTempsMatching(dir string, match func(name string) bool) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.Type().IsRegular() && match(e.Name()) && removeOrphan(filepath.Join(dir, e.Name())) {
			n++
		}
	}
	return n
}

func removeOrphan(p string) bool {
	st, err := os.Stat(p)
	if err != nil || time.Since(st.ModTime()) < orphanAge {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if !tryLock(f) {
		return false // a live writer
	}
	return os.Remove(p) == nil
}
