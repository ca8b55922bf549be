package runenv

import (
	"testing"

	"github.com/probably-submodular/crf/internal/runenv"
)

// TestForwards checks that the notebooks' face gives what internal/runenv
// gives (the functions' own tests are there).
func TestForwards(t *testing.T) {
	t.Setenv(ProfileVar, "full")
	if Profile() != runenv.Profile() || Quick() || Profile() != FullProfile {
		t.Errorf("PSUB_PROFILE=full: Profile %q, Quick %v; internal/runenv says %q", Profile(), Quick(), runenv.Profile())
	}
	t.Setenv(ProfileVar, "")
	if !Quick() || Profile() != QuickProfile {
		t.Errorf("PSUB_PROFILE empty: Profile %q, Quick %v", Profile(), Quick())
	}
	a, errA := ModuleRoot()
	b, errB := runenv.ModuleRoot()
	if a != b || (errA == nil) != (errB == nil) {
		t.Errorf("ModuleRoot %q, %v; internal/runenv %q, %v", a, errA, b, errB)
	}
	if Commit() != runenv.Commit() || Machine() != runenv.Machine() {
		t.Errorf("Commit %q / Machine %q differ from internal/runenv's %q / %q", Commit(), Machine(), runenv.Commit(), runenv.Machine())
	}
	var r runenv.Run = Current() // the same type: notebooks pass it to viz
	if r.Profile != QuickProfile || r.Date.IsZero() {
		t.Errorf("Current() = %+v", r)
	}
}
