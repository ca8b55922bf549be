package panics

import (
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
)

// Error is a panic caught in one goroutine to be raised or reported in
// another: the panic's value and the stack of the goroutine that panicked.
type Error struct {
	Value any
	Stack []byte
}

func (e *Error) Error() string {
	return fmt.Sprintf("panic (a bug: please report it): %v, at %s", e.Value, Where(e.Stack))
}

// Caught returns r (a recovered value) as an *Error, with the current
// stack when r is not one already; call it in the deferred function that
// recovered, so that the stack is the panicking one.
func Caught(r any) *Error {
	if e, ok := r.(*Error); ok {
		return e
	}
	return &Error{Value: r, Stack: debug.Stack()}
}

// Group runs worker goroutines; the zero value is ready.
type Group struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	first *Error
}

// Go runs f in a new goroutine. A panic in f ends f only; Wait raises it.
func (g *Group) Go(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				e := Caught(r)
				g.mu.Lock()
				if g.first == nil {
					g.first = e
				}
				g.mu.Unlock()
			}
		}()
		f()
	}()
}

// Wait waits for every goroutine of Go, then panics with the first *Error
// caught, if any.
func (g *Group) Wait() {
	g.wg.Wait()
	if g.first != nil {
		panic(g.first)
	}
}

// Call runs f and returns a panic in it as an *Error instead of letting it
// go on.
func Call(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = Caught(r)
		}
	}()
	return f()
}

// Where returns the function and file:line that panicked in a stack of
// debug.Stack: the first frame after the runtime's panic machinery (and
// this package), or "unknown".
func Where(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	// After the "goroutine N [running]:" line, frames come in pairs: the
	// function, then "\tfile:line +0xNN".
	seenPanic := false
	for i := 1; i+1 < len(lines); i += 2 {
		fn := strings.TrimSpace(lines[i])
		if strings.HasPrefix(fn, "panic(") || strings.HasPrefix(fn, "runtime.gopanic") {
			seenPanic = true
			continue
		}
		if !seenPanic || strings.HasPrefix(fn, "runtime.") || own(fn) {
			continue
		}
		loc := strings.TrimSpace(lines[i+1])
		if k := strings.LastIndex(loc, " +0x"); k >= 0 {
			loc = loc[:k]
		}
		if k := strings.LastIndex(fn, "("); k > 0 {
			fn = fn[:k]
		}
		return fn + " (" + loc + ")"
	}
	return "unknown"
}

// own tells this package's functions, which run the panicking code.
func own(fn string) bool {
	const pkg = "github.com/probably-submodular/crf/internal/panics."
	for _, f := range []string{"(*Group).Go", "Call", "Caught"} {
		if strings.HasPrefix(fn, pkg+f) {
			return true
		}
	}
	return false
}
