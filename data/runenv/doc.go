// Package runenv says what a run is: its profile (PSUB_PROFILE), the commit
// of the checkout, the machine, the module root. Notebooks and commands state
// it beside their results; viz draws it as given (viz.HeaderInfo.Run) and
// never asks the environment itself.
//
//	viz.Header(viz.HeaderInfo{Title: "…", Reproduces: "…", Data: "…", Run: runenv.Current()})
//	if runenv.Quick() { … }
//
// It imports nothing of the project but its internal helpers, so that any
// package, command or notebook can use it.
package runenv
