// Package runenv is internal/runenv for notebooks, which cannot import an
// internal package: what a run is (its profile from PSUB_PROFILE, the
// commit, the machine, the module root) and the CPU time of the process.
// Run is internal/runenv's Run, so a notebook passes runenv.Current() to
// viz.Header as it is:
//
//	viz.Header(viz.HeaderInfo{Title: "…", Reproduces: "…", Data: "…", Run: runenv.Current()})
//	if runenv.Quick() { … }
//
// viz, which must not import data, imports internal/runenv.
package runenv
