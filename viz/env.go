package viz

import "github.com/probably-submodular/crf/data/runenv"

// The run environment moved to data/runenv; these wrappers remain only
// until no notebook calls them (then they go).

// Profile is runenv.Profile.
//
// Deprecated: use runenv.Profile.
func Profile() string { return runenv.Profile() }

// Quick is runenv.Quick.
//
// Deprecated: use runenv.Quick.
func Quick() bool { return runenv.Quick() }

// ModuleRoot is runenv.ModuleRoot.
//
// Deprecated: use runenv.ModuleRoot.
func ModuleRoot() (string, error) { return runenv.ModuleRoot() }

// Commit is runenv.Commit.
//
// Deprecated: use runenv.Commit.
func Commit() string { return runenv.Commit() }

// Machine is runenv.Machine.
//
// Deprecated: use runenv.Machine.
func Machine() string { return runenv.Machine() }
