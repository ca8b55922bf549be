package data

import (
	"io"
	"strings"
	"testing"
)

// endless is a reader that never ends: one byte repeated (/dev/zero), or
// a line repeated (/dev/urandom gives bad lines without end).
type endless struct {
	pattern []byte
	at      int
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.pattern[e.at%len(e.pattern)]
		e.at++
	}
	return len(p), nil
}

// TestReadJSONLEndless: an input without end (a device given as the data)
// is refused after bounded reading and memory, not read until the process
// runs out of memory: a line without end that is not a JSON object, and
// an endless supply of bad lines.
func TestReadJSONLEndless(t *testing.T) {
	for _, c := range []struct {
		name string
		r    io.Reader
		want string
	}{
		{"zeros", &endless{pattern: []byte{0}}, "not with a JSON object"},
		{"spaces then garbage", io.MultiReader(strings.NewReader("   "), &endless{pattern: []byte("x")}), "not with a JSON object"},
		{"bad lines", &endless{pattern: []byte("garbage\n")}, "stopped reading at line"},
		{"bad JSON objects", &endless{pattern: []byte("{\"unary\": x}\n")}, "stopped reading at line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadJSONL(c.r, 0)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

// TestReadJSONLLongObjectLine: a long line that starts like an object is
// read (it may be a real graph) while the memory budget admits it, and
// refused with the budget's message beyond.
func TestReadJSONLLongObjectLine(t *testing.T) {
	t.Setenv("PSUB_MAX_MEMORY", "8MiB")
	r := io.MultiReader(strings.NewReader(`{"name":"`), &endless{pattern: []byte("a")})
	_, err := ReadJSONL(r, 0)
	if err == nil || !strings.Contains(err.Error(), "memory budget") || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("err = %v, want the budget's refusal naming line 1", err)
	}
}

// TestReadJSONLTextChecks: bytes that are not UTF-8 are refused with the
// byte named (encoding/json would replace them by U+FFFD and change the
// instance's name), and NaN or Infinity get an explanation.
func TestReadJSONLTextChecks(t *testing.T) {
	good := `{"name":"s","unary":[[1,0.5],[1,-0.5]],"edges":[[0,1]],"pairwise":[[1,0.1]],"labels":[0,1]}`
	if _, err := ReadJSONL(strings.NewReader(good+"\n"), 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{strings.Replace(good, `"s"`, "\"\xff\xfe\"", 1), "byte 10 (0xff) is not UTF-8"},
		{strings.Replace(good, "0.5", "NaN", 1), "NaN and Infinity are not JSON numbers"},
		{strings.Replace(good, "0.5", "Infinity", 1), "NaN and Infinity are not JSON numbers"},
		{strings.Replace(good, "-0.5", "-Infinity", 1), "NaN and Infinity are not JSON numbers"},
	} {
		_, err := ReadJSONL(strings.NewReader(c.in+"\n"), 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.in, err, c.want)
		}
	}
}
