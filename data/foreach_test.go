package data

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestForEachLowestError: whatever finishes first, forEach returns the
// error of the lowest index that fails, and starts nothing after a
// failure.
func TestForEachLowestError(t *testing.T) {
	for range 5 {
		var calls atomic.Int64
		err := forEach(200, 4, func(i int) error {
			calls.Add(1)
			switch i {
			case 3:
				time.Sleep(20 * time.Millisecond) // fails after 5 has
				return fmt.Errorf("item %d", i)
			case 5:
				return fmt.Errorf("item %d", i)
			}
			return nil
		}, nil)
		if err == nil || err.Error() != "item 3" {
			t.Fatalf("error %v, want item 3's", err)
		}
		if n := calls.Load(); n >= 200 {
			t.Fatalf("%d calls: items kept starting after a failure", n)
		}
	}
	var last int
	if err := forEach(10, 3, func(int) error { return nil }, func(done, total int) {
		if done != last+1 || total != 10 {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		last = done
	}); err != nil || last != 10 {
		t.Fatalf("error %v, progress reached %d of 10", err, last)
	}
}
