package cputime

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// burn spins until clock passes from, and fails after a minute of wall time
// (a clock that never advances).
func burn(t *testing.T, name string, clock func() (time.Duration, bool), from time.Duration) time.Duration {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	x := 1.0
	for time.Now().Before(deadline) {
		for range 100_000 {
			x = math.Sqrt(x + 1)
		}
		if d, _ := clock(); d > from {
			return d
		}
	}
	t.Fatalf("%s did not advance past %v in a minute of spinning (x %g)", name, from, x)
	return 0
}

func TestClocksAdvance(t *testing.T) {
	p0, ok := Process()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("Process not measured on Linux")
		}
		t.Skip("process CPU time not measured on " + runtime.GOOS)
	}
	if s := Seconds(); math.IsNaN(s) || s < p0.Seconds() {
		t.Errorf("Seconds %g after Process %v", s, p0)
	}
	burn(t, "Process", Process, p0)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0, ok := Thread()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("Thread not measured on Linux")
		}
		return
	}
	t1 := burn(t, "Thread", Thread, t0)
	// The process's time includes this thread's.
	if p, _ := Process(); p < t1 {
		t.Errorf("process CPU %v below this thread's %v", p, t1)
	}
}

// Touching 64 MiB makes the peak at least that; on Linux the peak is the
// kernel's VmHWM read afterwards.
func TestPeakRSS(t *testing.T) {
	const n = 64 << 20
	buf := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		buf[i] = 1
	}
	rss, ok := PeakRSS()
	runtime.KeepAlive(buf)
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("PeakRSS not measured on Linux")
		}
		t.Skip("peak RSS not measured on " + runtime.GOOS)
	}
	if rss < n {
		t.Errorf("peak RSS %d bytes after touching %d", rss, n)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range bytes.Lines(status) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM line %q: %v", line, err)
			}
			if rss > kb*1024 {
				t.Errorf("PeakRSS %d bytes above VmHWM read later, %d kB", rss, kb)
			}
		}
	}
}

// StartProfile writes a non-empty profile into $PSUB_FIT_PROFILE and does
// nothing without it.
func TestStartProfile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ProfileEnv, "")
	stop, err := StartProfile("none")
	if err != nil || stop() != nil {
		t.Fatalf("without %s: %v", ProfileEnv, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("wrote %v without %s", ents, ProfileEnv)
	}
	t.Setenv(ProfileEnv, dir)
	stop, err = StartProfile("fit")
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "fit.prof")); err != nil || st.Size() == 0 {
		t.Fatalf("profile: %v, %v", st, err)
	}
}
