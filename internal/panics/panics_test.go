package panics

import (
	"errors"
	"strings"
	"testing"
)

func boom(i int) {
	var s []int
	_ = s[i] // index out of range: a runtime panic
}

// TestGroupRaisesInTheWaiter checks that a worker's panic reaches the
// goroutine that waits, with the worker's value and location.
func TestGroupRaisesInTheWaiter(t *testing.T) {
	var got any
	func() {
		defer func() { got = recover() }()
		var g Group
		for i := range 4 {
			g.Go(func() {
				if i == 2 {
					boom(5)
				}
			})
		}
		g.Wait()
	}()
	e, ok := got.(*Error)
	if !ok {
		t.Fatalf("Wait raised %T %v, want *Error", got, got)
	}
	if !strings.Contains(e.Error(), "index out of range") || !strings.Contains(e.Error(), "panics.boom") || !strings.Contains(e.Error(), "panics_test.go:") {
		t.Errorf("error %q: want the value and the line of boom", e)
	}
	var g Group
	g.Go(func() {})
	g.Wait() // no panic
}

func TestCall(t *testing.T) {
	err := Call(func() error { panic("custom") })
	var e *Error
	if !errors.As(err, &e) || e.Value != "custom" || !strings.Contains(Where(e.Stack), "TestCall") {
		t.Fatalf("Call: %v", err)
	}
	if err := Call(func() error { return errors.New("plain") }); err == nil || err.Error() != "plain" {
		t.Fatalf("Call of an error: %v", err)
	}
	if w := Where([]byte("garbage")); w != "unknown" {
		t.Errorf("Where(garbage) = %q", w)
	}
}
