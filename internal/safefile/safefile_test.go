package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// content is the k-th version of a test file: long enough to take many
// writes, and recognisable as whole.
func content(k int) []byte {
	var b bytes.Buffer
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "version %d line %d\n", k, i)
	}
	return b.Bytes()
}

// writeChunks writes b in chunks of 1 KiB, calling at(i) before chunk i.
func writeChunks(w io.Writer, b []byte, at func(i int)) error {
	for i := 0; len(b) > 0; i++ {
		at(i)
		n := min(len(b), 1024)
		if _, err := w.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// TestHelperKilledWriter is run by TestKilledWrites in a child process: it
// writes version 2 of the file and kills itself (SIGKILL, no clean-up of
// any kind) before chunk SAFEFILE_KILL_AT.
func TestHelperKilledWriter(t *testing.T) {
	path := os.Getenv("SAFEFILE_PATH")
	if path == "" {
		t.Skip("run by TestKilledWrites")
	}
	killAt, _ := strconv.Atoi(os.Getenv("SAFEFILE_KILL_AT"))
	write := Write
	if os.Getenv("SAFEFILE_SEALED") != "" {
		write = WriteSealed
	}
	write(path, func(w io.Writer) error {
		return writeChunks(w, content(2), func(i int) {
			if i == killAt {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		})
	})
	// Past the end: killed after the rename, which must show the new file.
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

// TestKilledWrites kills a writer at many points of a write (every 7th
// chunk, and after the rename) and checks that the file is always the old
// version or the new one, whole; that the orphaned temporary file is
// removed by the next write once it is old; and, for sealed files, that
// the content verifies.
func TestKilledWrites(t *testing.T) {
	for _, sealed := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.txt")
		write, read := Write, os.ReadFile
		if sealed {
			write, read = WriteSealed, ReadSealed
		}
		if err := write(path, func(w io.Writer) error { _, err := w.Write(content(1)); return err }); err != nil {
			t.Fatal(err)
		}
		chunks := len(content(2)) / 1024
		for killAt := 0; killAt <= chunks+1; killAt += 7 {
			if killAt > chunks {
				killAt = chunks + 1 // after the rename
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledWriter$")
			cmd.Env = append(os.Environ(), "SAFEFILE_PATH="+path, "SAFEFILE_KILL_AT="+strconv.Itoa(killAt))
			if sealed {
				cmd.Env = append(cmd.Env, "SAFEFILE_SEALED=1")
			}
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("kill at chunk %d: child ended with %v, want SIGKILL", killAt, err)
			}
			got, err := read(path)
			if err != nil {
				t.Fatalf("sealed %v, kill at chunk %d: %v", sealed, killAt, err)
			}
			want := content(1)
			if killAt > chunks {
				want = content(2)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("sealed %v, kill at chunk %d: the file is neither the old version nor the new one (%d bytes)", sealed, killAt, len(got))
			}
			temps := tempsOf(t, path)
			if killAt <= chunks && len(temps) != 1 {
				t.Fatalf("kill at chunk %d: %d temporary files, want the one the killed writer left", killAt, len(temps))
			}
			// A fresh orphan may be a writer that has not locked it yet: kept.
			if n := CleanTemps(path); n != 0 {
				t.Fatalf("CleanTemps removed %d fresh files", n)
			}
			old := time.Now().Add(-2 * orphanAge)
			for _, p := range temps {
				os.Chtimes(p, old, old)
			}
			if err := write(path, func(w io.Writer) error { _, err := w.Write(content(1)); return err }); err != nil {
				t.Fatal(err)
			}
			if left := tempsOf(t, path); len(left) != 0 {
				t.Fatalf("kill at chunk %d: orphans left after the next write: %v", killAt, left)
			}
		}
	}
}

func tempsOf(t *testing.T, path string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLiveTempKept: a temporary file locked by a live writer is not
// removed however old it looks.
func TestLiveTempKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x")
	err := Write(path, func(w io.Writer) error {
		temps := tempsOf(t, path)
		if len(temps) != 1 {
			return fmt.Errorf("%d temporary files while writing", len(temps))
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(temps[0], old, old)
		if n := CleanTemps(path); n != 0 {
			return fmt.Errorf("CleanTemps removed the live writer's file")
		}
		_, err := io.WriteString(w, "ok\n")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestFailedWriteKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x")
	WriteBytes(path, []byte("old\n"))
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error { io.WriteString(w, "new, partial"); return boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want boom naming %s", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" || len(tempsOf(t, path)) != 0 {
		t.Fatalf("after a failed write: %q, temps %v", b, tempsOf(t, path))
	}
}

// TestNotRegular: a device is never renamed over (as root that would
// replace /dev/full by a file), and CheckWritable finds a missing folder
// before any work.
func TestNotRegular(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	for _, f := range []func() error{
		func() error { return WriteBytes("/dev/full", []byte("x")) },
		func() error { return CheckWritable("/dev/full") },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("/dev/full: %v, want 'not a regular file'", err)
		}
	}
	if st, err := os.Stat("/dev/full"); err != nil || st.Mode()&fs.ModeDevice == 0 {
		t.Fatalf("/dev/full is no longer a device: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "missing_dir", "m.json")
	if err := CheckWritable(missing); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing folder: %v", err)
	}
	if err := CheckWritable(filepath.Join(t.TempDir(), "m.json")); err != nil {
		t.Errorf("writable folder: %v", err)
	}
}

// TestSealedBitFlips flips every bit of a small sealed file in turn (and
// truncates it at every length): every damaged copy is refused.
func TestSealedBitFlips(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s")
	payload := []byte("checkpoint payload: 3.14159\n")
	if err := WriteSealed(path, func(w io.Writer) error { _, err := w.Write(payload); return err }); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	if b, err := ReadSealed(path); err != nil || !bytes.Equal(b, payload) {
		t.Fatalf("intact: %q, %v", b, err)
	}
	for bit := 0; bit < 8*len(good); bit++ {
		bad := bytes.Clone(good)
		bad[bit/8] ^= 1 << (bit % 8)
		os.WriteFile(path, bad, 0o644)
		if b, err := ReadSealed(path); err == nil {
			t.Fatalf("bit %d flipped: accepted %q", bit, b)
		} else if !errors.Is(err, ErrChecksum) && !errors.Is(err, ErrNotSealed) {
			t.Fatalf("bit %d flipped: %v", bit, err)
		}
	}
	for n := 0; n < len(good); n++ {
		os.WriteFile(path, good[:n], 0o644)
		if _, err := ReadSealed(path); err == nil {
			t.Fatalf("cut to %d bytes: accepted", n)
		}
	}
}

func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.lock")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	// A second holder in another process is refused with the first's pid.
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperLocker$")
	cmd.Env = append(os.Environ(), "SAFEFILE_LOCK="+path)
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "held by another run (process "+strconv.Itoa(os.Getpid())+" holds it)") {
		t.Fatalf("second locker said %q", out)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("lock file left after Unlock: %v", err)
	}
	cmd = exec.Command(os.Args[0], "-test.run=^TestHelperLocker$")
	cmd.Env = append(os.Environ(), "SAFEFILE_LOCK="+path)
	if out, _ = cmd.CombinedOutput(); !strings.Contains(string(out), "LOCKED OK") {
		t.Fatalf("after Unlock, a new locker said %q", out)
	}
}

// The lock file of a target sits beside it and outlives the target's
// writes: CleanTemps does not take it for an orphan, even when old and
// unlocked (left by a killed run).
func TestLockPath(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "results.jsonl")
	lock := LockPath(target)
	if lock != filepath.Join(dir, ".results.jsonl.lock") {
		t.Fatalf("LockPath(%s) = %s", target, lock)
	}
	if err := os.WriteFile(lock, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(lock, old, old)
	if err := WriteBytes(target, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("a write of the target removed its lock file: %v", err)
	}
	l, err := TryLock(lock)
	if err != nil {
		t.Fatalf("a stale lock file: %v", err)
	}
	l.Unlock()
}

func TestHelperLocker(t *testing.T) {
	path := os.Getenv("SAFEFILE_LOCK")
	if path == "" {
		t.Skip("run by TestLock")
	}
	l, err := TryLock(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("LOCKED OK")
	l.Unlock()
}

// TestWriteThroughSymlink checks that a symbolic link as target is written
// through: the link stays a link and the file it leads to gets the new
// content, for a relative link, an absolute one, a chain of two, and a link
// to a file that does not exist yet (created). A link cycle is refused.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		links  [][2]string // link name -> target as stored
		target string      // the file the write must reach
		exists bool
	}{
		{"relative", [][2]string{{"rel", "sub/a"}}, "sub/a", true},
		{"absolute", [][2]string{{"abs", filepath.Join(sub, "b")}}, "sub/b", true},
		{"chain", [][2]string{{"c1", "c2"}, {"c2", "sub/c"}}, "sub/c", true},
		{"dangling", [][2]string{{"dang", "sub/new"}}, "sub/new", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := filepath.Join(dir, c.target)
			if c.exists {
				if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, l := range c.links {
				if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
					t.Fatal(err)
				}
			}
			link := filepath.Join(dir, c.links[0][0])
			if err := CheckWritable(link); err != nil {
				t.Fatal(err)
			}
			if err := WriteBytes(link, []byte("new")); err != nil {
				t.Fatal(err)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s is no longer a symbolic link (%v)", link, err)
			}
			if b, err := os.ReadFile(target); err != nil || string(b) != "new" {
				t.Fatalf("target %s holds %q (%v), want the new content", target, b, err)
			}
		})
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(loop, []byte("x")); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Fatalf("write through a link cycle: %v, want a refusal", err)
	}
}
