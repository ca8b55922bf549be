package runenv

import (
	"github.com/probably-submodular/crf/internal/runenv"
)

// ProfileVar names the environment variable that selects the profile.
const ProfileVar = runenv.ProfileVar

// The profiles a notebook runs in: quick (reduced, the default) and full
// (the paper's protocol).
const (
	QuickProfile = runenv.QuickProfile
	FullProfile  = runenv.FullProfile
)

// Run is what a page or a record states about the run that made it.
type Run = runenv.Run

// Profile is the run profile: FullProfile when PSUB_PROFILE says "full",
// QuickProfile otherwise.
func Profile() string { return runenv.Profile() }

// Quick reports whether the profile is the quick one.
func Quick() bool { return runenv.Quick() }

// ModuleRoot is the directory holding this module's go.mod.
func ModuleRoot() (string, error) { return runenv.ModuleRoot() }

// Commit is the short git commit of the checkout, "+dirty" when tracked
// files have changes, "unknown" outside a checkout.
func Commit() string { return runenv.Commit() }

// Machine describes the machine in one line.
func Machine() string { return runenv.Machine() }

// Current is this run: the profile, commit and machine now, dated now.
func Current() Run { return runenv.Current() }

// CPUSeconds is the user+system CPU time of this process so far, in
// seconds, NaN where the platform does not measure it.
func CPUSeconds() float64 { return runenv.CPUSeconds() }
