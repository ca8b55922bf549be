// Package runenv says what a run is: its profile (PSUB_PROFILE), the commit
// of the checkout, the machine, the module root, and the CPU time the
// process has used so far. Notebooks and commands state the run beside
// their results; viz draws it as given (viz.HeaderInfo.Run) and never asks
// the environment itself.
//
//	viz.Header(viz.HeaderInfo{Title: "…", Reproduces: "…", Data: "…", Run: runenv.Current()})
//	if runenv.Quick() { … }
//
// It imports nothing of the project but internal/modroot and
// internal/cputime, whose module root and CPU time it passes on to the
// notebooks (which cannot import internal packages), so any package,
// command or notebook can use it.
package runenv
