// Package modroot finds the root of this module's source tree: the nearest
// directory, at or above a starting one, whose go.mod declares the module
// github.com/probably-submodular/crf.
//
// It is the one module-root finder of the repository. Notebooks (which run
// in notebooks/ under GoNB), tests (which run in their package's directory)
// and the commands find the data folder beside the checkout, the installed
// JavaScript and the source hashed for stored results from it; notebooks
// reach it through data/runenv.ModuleRoot. Only the module's own go.mod
// counts, so a go.mod of another module on the way up (a scratch module, a
// test's fake one) is passed over, and a program outside a checkout gets an
// error that says what was looked for, not some other module's folder.
package modroot
