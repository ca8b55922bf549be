package cputime

import (
	"os"
	"path/filepath"
	"runtime/pprof"
)

// ProfileEnv names the folder where benchmarks that time one fit write a
// CPU profile of the fit alone (not of loading its data): set, StartProfile
// profiles into it.
const ProfileEnv = "PSUB_FIT_PROFILE"

// StartProfile starts a CPU profile into $PSUB_FIT_PROFILE/name.prof and
// returns what stops it and closes the file; without the variable it does
// nothing. The caller stops it before starting another (pprof profiles
// one thing at a time).
func StartProfile(name string) (stop func() error, err error) {
	dir := os.Getenv(ProfileEnv)
	if dir == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(filepath.Join(dir, name+".prof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
