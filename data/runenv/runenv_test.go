package runenv

import (
	"testing"

	"github.com/probably-submodular/crf/internal/runenv"
)

// TestForwards checks that the notebooks' face gives what internal/runenv
// gives (the functions' own tests are there).
func TestForwards(t *testing.T) {
	t.Setenv(ProfileVar, "full")
	if Quick() || Current().Profile != runenv.FullProfile {
		t.Errorf("PSUB_PROFILE=full: Quick %v, Current().Profile %q", Quick(), Current().Profile)
	}
	t.Setenv(ProfileVar, "")
	if !Quick() {
		t.Errorf("PSUB_PROFILE empty: Quick %v", Quick())
	}
	a, errA := ModuleRoot()
	b, errB := runenv.ModuleRoot()
	if a != b || (errA == nil) != (errB == nil) {
		t.Errorf("ModuleRoot %q, %v; internal/runenv %q, %v", a, errA, b, errB)
	}
	var r runenv.Run = Current() // the same type: notebooks pass it to viz
	if r.Profile != runenv.QuickProfile || r.Date.IsZero() || r.Commit != runenv.Commit() || r.Machine != runenv.Machine() {
		t.Errorf("Current() = %+v", r)
	}
}
