package runenv

import (
	"github.com/probably-submodular/crf/internal/runenv"
)

// ProfileVar names the environment variable that selects the profile.
const ProfileVar = runenv.ProfileVar

// Run is what a page or a record states about the run that made it.
type Run = runenv.Run

// Quick reports whether the profile is the quick one (PSUB_PROFILE is
// not "full").
func Quick() bool { return runenv.Quick() }

// ModuleRoot is the directory holding this module's go.mod.
func ModuleRoot() (string, error) { return runenv.ModuleRoot() }

// Current is this run: the profile, commit and machine now, dated now.
func Current() Run { return runenv.Current() }

// CPUSeconds is the user+system CPU time of this process so far, in
// seconds, NaN where the platform does not measure it.
func CPUSeconds() float64 { return runenv.CPUSeconds() }
