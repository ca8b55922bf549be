package protocol

import "testing"

// Two runs of one protocol writing different results files keep their warm
// working sets apart (tests of two packages ran cows tiny at once, and one
// removed the other's working sets); the same file finds the same place.
func TestWarmDirPerResultsFile(t *testing.T) {
	a := warmDir("cows", Options{Profile: Tiny, Results: "/tmp/a/cows-tiny.jsonl"})
	b := warmDir("cows", Options{Profile: Tiny, Results: "/tmp/b/cows-tiny.jsonl"})
	if a == b || a != warmDir("cows", Options{Profile: Tiny, Results: "/tmp/a/../a/cows-tiny.jsonl"}) {
		t.Fatalf("warm dirs %q and %q", a, b)
	}
}
