package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/outguard"
)

// Outputs never overwrite inputs: every command that writes a file names
// its outputs and inputs to guard before any work (internal/outguard). An
// output that is an input under any spelling (a relative path, a hard or
// symbolic link) or lies inside a folder the command reads is a bad
// command line (exit 2); the input is left untouched.

// guard checks outputs against inputs; a refusal is a usage error.
func (f *flags) guard(outputs, inputs []outguard.Path) error {
	err := outguard.Check(outputs, inputs)
	var ge *outguard.Error
	if errors.As(err, &ge) {
		return f.usageErr("%v", err)
	}
	return err
}

// dataFolders are the data folders a command that loads data sets may read
// (the Locator's search order: -data, $PSUB_DATA, ../shared/data from the
// module root), as inputs that no output may be inside.
func dataFolders(explicit string) []outguard.Path {
	var ps []outguard.Path
	if explicit != "" {
		ps = append(ps, outguard.Path{Flag: "-data", Path: explicit, Dir: true})
	}
	if env := os.Getenv(data.EnvVar); env != "" {
		ps = append(ps, outguard.Path{Flag: "$" + data.EnvVar, Path: env, Dir: true})
	}
	if root, err := (data.Locator{}).ModuleRoot(); err == nil {
		ps = append(ps, outguard.Path{Flag: data.DefaultRelDir, Path: filepath.Join(root, data.DefaultRelDir), Dir: true})
	}
	return ps
}

// fileArg and folderArg name a path for guard.
func fileArg(flag, path string) outguard.Path { return outguard.Path{Flag: flag, Path: path} }
func folderArg(flag, path string) outguard.Path {
	return outguard.Path{Flag: flag, Path: path, Dir: true}
}

// paths is the shorthand for a list of paths.
func paths(ps ...outguard.Path) []outguard.Path { return ps }
