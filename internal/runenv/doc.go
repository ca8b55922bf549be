// Package runenv says what a run is: its profile (PSUB_PROFILE), the commit
// of the checkout, the machine, the module root, and the CPU time the
// process has used so far. Notebooks and commands state the run beside
// their results; viz draws it as given (viz.HeaderInfo.Run) and never asks
// the environment itself.
//
// It lives in internal/ so that viz, data and the commands can all import
// it without viz importing data (imports point one way: see
// internal/layers). It imports nothing of the project but internal/modroot
// and internal/cputime. Notebooks, which cannot import an internal package,
// use data/runenv, which forwards to this one (its Run is this Run):
//
//	viz.Header(viz.HeaderInfo{Title: "…", Reproduces: "…", Data: "…", Run: runenv.Current()})
//	if runenv.Quick() { … }
package runenv
