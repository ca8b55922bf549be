package membudget

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"64GiB", 64 << 30, false},
		{"64gib", 64 << 30, false},
		{"500MB", 500e6, false},
		{"1.5 GiB", 3 << 29, false},
		{"1e9", 1e9, false},
		{"2048", 2048, false},
		{"8G", 8 << 30, false},
		{"off", 0, true},
		{"1e30", math.MaxInt64, false},
		{"", 0, true},
		{"0", 0, true},
		{"-1GB", 0, true},
		{"lots", 0, true},
		{"NaN", 0, true},
		{"Inf", 0, true},
		{"12 parsecs", 0, true},
	} {
		got, err := Parse(c.in)
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("Parse(%q) = %d, %v; want %d, error %v", c.in, got, err, c.want, c.bad)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		f    []int64
		want int64
	}{
		{[]int64{100000, 100000, 3, 4}, 120e9},
		{[]int64{1 << 31, 1 << 31, 1 << 31}, math.MaxInt64}, // overflow
		{[]int64{1 << 62, 4}, math.MaxInt64},
		{[]int64{-1, 4}, math.MaxInt64},
		{[]int64{0, math.MaxInt64}, 0},
		{nil, 1},
	} {
		if got := Bytes(c.f...); got != c.want {
			t.Errorf("Bytes(%v) = %d, want %d", c.f, got, c.want)
		}
	}
	if Add(math.MaxInt64-1, 2) != math.MaxInt64 || Add(3, 4) != 7 || Add(-1, 1) != math.MaxInt64 {
		t.Error("Add does not saturate")
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		env  string
		need int64
		ok   bool
		msg  []string // parts of the error
	}{
		{"1GiB", 1 << 30, true, nil},
		{"1GiB", 1<<30 + 1, false, []string{"a thing needs 1.0 GiB", "budget of 1.0 GiB", "PSUB_MAX_MEMORY=1GiB", "PSUB_MAX_MEMORY=2GiB"}},
		{"1MB", 40e9, false, []string{"37.3 GiB", "PSUB_MAX_MEMORY=64GiB"}},
		{"1e30", 1 << 50, true, nil},
		{"1e30", math.MaxInt64, false, []string{"more than 8 EiB", "more than any memory"}},
		{"1GiB", -5, false, []string{"more than 8 EiB"}},
		{"lots", 1, false, []string{`PSUB_MAX_MEMORY="lots": not a size`}},
	} {
		t.Setenv(Env, c.env)
		err := Check("a thing", c.need)
		if (err == nil) != c.ok {
			t.Errorf("%s, need %d: error %v, want ok=%v", c.env, c.need, err, c.ok)
			continue
		}
		for _, m := range c.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s, need %d: %q does not say %q", c.env, c.need, err, m)
			}
		}
		var ee *ExceededError
		if err != nil && c.env != "lots" && !errors.As(err, &ee) {
			t.Errorf("%v is not an *ExceededError", err)
		}
	}
	t.Setenv(Env, "")
	limit, src, err := Limit()
	if err != nil || limit <= 0 || !strings.Contains(src, "default") {
		t.Errorf("default budget %d (%s), %v", limit, src, err)
	}
}

func TestReadFileBounded(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p); err != nil || string(b) != "{}\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	t.Setenv(Env, "2B")
	if _, err := ReadFile(p); err == nil {
		t.Fatal("a 3-byte file read under a 2-byte budget")
	}
	t.Setenv(Env, "")
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Fatalf("ReadFile(dir) = %v, want a directory error", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		// An endless device: refused after StreamCap, not read forever.
		if _, err := ReadFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("ReadFile(/dev/zero) = %v, want a bounded refusal", err)
		}
	}
}

// TestLimitFollowsProcessLimit: under an address-space limit below the
// machine's memory (ulimit -v), the default budget is half of that limit,
// so a size check, not the runtime's fatal out-of-memory, stops a size
// the process cannot hold.
func TestLimitFollowsProcessLimit(t *testing.T) {
	if os.Getenv("PSUB_MEMBUDGET_CHILD") == "1" {
		lim, src, err := Limit()
		fmt.Printf("%d|%s|%v\n", lim, src, err)
		return
	}
	if _, err := exec.LookPath("sh"); err != nil || physicalMemory() == 0 {
		t.Skip("no sh, or not Linux")
	}
	cmd := exec.Command("sh", "-c", "ulimit -v 3000000 && exec \"$0\" -test.run '^TestLimitFollowsProcessLimit$'", os.Args[0])
	cmd.Env = append(os.Environ(), "PSUB_MEMBUDGET_CHILD=1", Env+"=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	want := fmt.Sprintf("%d|", int64(3000000)*1024/2)
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "ulimit -v") {
		t.Fatalf("child's Limit: %s, want %s… naming ulimit -v", out, want)
	}
}
