package membudget

import (
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

// Env is the environment variable that sets the budget.
const Env = "PSUB_MAX_MEMORY"

// fallback is the budget when the machine's memory is not known.
const fallback = 4 << 30

// Limit returns the budget in bytes and where it came from, for messages.
func Limit() (int64, string, error) {
	s := strings.TrimSpace(os.Getenv(Env))
	if s == "" {
		// A limit on the process (ulimit -v, a container's or a Slurm
		// job's control group) below the machine's memory is what an
		// allocation can reach before the runtime dies of it.
		if lim, what := processLimit(); lim > 0 && (physicalMemory() == 0 || lim < physicalMemory()) {
			return lim / 2, fmt.Sprintf("the default, half of this process's %s of %s", what, Format(lim)), nil
		}
		if mem := physicalMemory(); mem > 0 {
			return mem / 2, fmt.Sprintf("the default, half of this machine's %s", Format(mem)), nil
		}
		return fallback, "the default where the machine's memory is unknown", nil
	}
	n, err := Parse(s)
	if err != nil {
		return 0, "", fmt.Errorf("%s=%q: %w", Env, s, err)
	}
	return n, Env + "=" + s, nil
}

// Parse reads a size such as "64GiB", "500MB" or "1e9" (bytes). There is
// no "off": a size read from a file that overflows or exceeds any memory is
// refused whatever the budget, and a real job names what it needs.
func Parse(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{
		{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"b", 1},
	}
	num, mult := s, 1.0
	low := strings.ToLower(s)
	for _, u := range units {
		if strings.HasSuffix(low, u.suffix) {
			num, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("not a size: want a positive number of bytes with an optional unit (e.g. 64GiB, 500MB)")
	}
	b := v * mult
	if b >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return max(int64(b), 1), nil
}

// Format writes a byte count for people: "80 GB", "12 GiB" style, in
// powers of 1024 with one decimal.
func Format(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// ExceededError is Check's error: what was asked and the limit.
type ExceededError struct {
	What   string // what would be allocated, e.g. "a 100000x100000 RGB image"
	Need   int64  // bytes asked; math.MaxInt64 when the product overflows
	Limit  int64
	Source string // where the limit came from
}

func (e *ExceededError) Error() string {
	need := Format(e.Need)
	if e.Need == math.MaxInt64 {
		need = "more than 8 EiB"
	}
	if e.Need == math.MaxInt64 {
		return fmt.Sprintf("%s needs %s, more than any memory (the memory budget is %s, %s)", e.What, need, Format(e.Limit), e.Source)
	}
	return fmt.Sprintf("%s needs %s, more than the memory budget of %s (%s); if the work is real, raise it: %s=%s",
		e.What, need, Format(e.Limit), e.Source, Env, suggest(e.Need))
}

// suggest is a budget that would admit need: the next power of two GiB.
func suggest(need int64) string {
	g := max((need+1<<30-1)>>30, 1)
	return fmt.Sprintf("%dGiB", int64(1)<<bits.Len64(uint64(g-1)))
}

// Check returns nil when need bytes fit the budget, else an
// *ExceededError naming what. A malformed PSUB_MAX_MEMORY is an error too.
func Check(what string, need int64) error {
	limit, src, err := Limit()
	if err != nil {
		return err
	}
	// An overflowing product is refused even under the largest budget:
	// no machine can allocate it.
	if need < 0 || need == math.MaxInt64 || need > limit {
		if need < 0 {
			need = math.MaxInt64
		}
		return &ExceededError{What: what, Need: need, Limit: limit, Source: src}
	}
	return nil
}

// Bytes returns the product of the factors (counts and a size per item),
// or math.MaxInt64 when it overflows or a factor is negative: the need to
// pass to Check for sizes read from a file.
func Bytes(factors ...int64) int64 {
	p := int64(1)
	for _, f := range factors {
		if f < 0 {
			return math.MaxInt64
		}
		hi, lo := bits.Mul64(uint64(p), uint64(f))
		if hi != 0 || lo > math.MaxInt64 {
			return math.MaxInt64
		}
		p = int64(lo)
	}
	return p
}

// Add is a+b, saturating at math.MaxInt64.
func Add(a, b int64) int64 {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// StreamCap bounds what ReadFile takes from a file that is not a regular
// file (a pipe, a device): its size is not known before reading, and
// /dev/zero never ends.
const StreamCap = 256 << 20

// ReadFile is os.ReadFile for files a reader takes whole (a model, a
// results file): a regular file's size is checked against the budget
// before it is read, and anything else (a pipe, a device) is read up to
// StreamCap and refused beyond, so that no path given by a user makes the
// process read without end.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Mode().IsRegular() {
		if err := Check(fmt.Sprintf("reading %s whole (%d bytes)", path, st.Size()), st.Size()); err != nil {
			return nil, err
		}
		b := make([]byte, 0, st.Size()+1)
		for {
			n, err := f.Read(b[len(b):cap(b)])
			b = b[:len(b)+n]
			if err == io.EOF {
				return b, nil
			}
			if err != nil {
				return nil, err
			}
			if len(b) == cap(b) { // the file grew while read: take the rest bounded
				rest, err := readCapped(f, path, StreamCap)
				return append(b, rest...), err
			}
		}
	}
	if st.IsDir() {
		return nil, fmt.Errorf("read %s: is a directory", path)
	}
	return readCapped(f, path, StreamCap)
}

func readCapped(r io.Reader, path string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: more than %s from a file that is not a regular file (a pipe or a device): not a file psub reads whole", path, Format(limit))
	}
	return b, nil
}
