// Package codever versions code by what it executes: CodeOf hashes the
// declarations reached from a fit's entry points, so that a result is
// stale when the code that computed it changed and only then (comments,
// layout, tables, plots and other experiments leave it current).
// CurrentCode is the coarser version of the whole library source.
//
// Package notebooks/grid writes a version into every row it runs and
// reuses a row only when the version matches; package notebooks/protocol
// versions each protocol by its Run method (protocol.Code), and package
// data's segment cache keys on the builders' version.
//
// # What a code version hashes
//
// CodeOf parses the module's non-test Go files (go/parser, no type
// checker) and follows, from the roots, every top-level declaration a
// reached one refers to, conservatively:
//
//   - a name is looked up in its package's scope (shadowing is ignored: a
//     local x reaches a package-level x too), pkg.Name through the file's
//     imports into any package of the module (a package outside the
//     module is not followed: its module's version from go.mod counts);
//   - x.M reaches the method M of x's type when the syntax tells the type
//     (a parameter, a variable defined by a composite literal, a
//     conversion or a call of a module function, a field of such), and
//     nothing when M is a field of it; otherwise, and for interfaces,
//     every method named M of every reached type. Methods that code
//     outside the module calls (String, Error, MarshalJSON, Len, Less, …)
//     count as named;
//   - a type reaches its fields' and methods' types; a group of constants
//     with iota is one declaration; a //go:embed variable brings its
//     files; a function without a body (written in assembly) brings its
//     package's .s files, without their comments and layout;
//   - an init function (or var _ = …) counts when what it refers to,
//     followed through functions and variables, includes a reached
//     variable;
//   - stops are not followed (package protocol stops at its runner,
//     RunStaged, and at the segment cache's key; CodeOf's own functions
//     are always stops).
//
// Each reached declaration enters as its package's name, its name and its
// tokens (go/scanner, comments skipped, a trailing comma or semicolon
// before a closing bracket dropped), sorted by name: comments, gofmt's
// layout and which file of its package a declaration sits in do not
// count, nor the package's directory (moving a package keeps the version
// when its name stays; renaming the package or a declaration, or
// splitting a declaration, changes it). go.mod's go directive and the
// module@version of every external package the reached code uses count;
// the Go toolchain, build tags (every file counts, whatever its
// constraints) and the standard library do not.
//
// Rows written before (a hash of all of psub/ and data/, comments
// included) match no CodeOf version: they are stale, reused only under
// ReuseStale. CodeDecls lists what a version hashes: the cows protocol
// 764 declarations of the module's 1 983 (26 packages), multilabel 622,
// tradeoff 548. A version costs about 90 ms of CPU for the first in a
// process (parsing), 35 ms for each further one, and 100 ms more when the
// commit's hash is needed (BenchmarkCodeOf; data/BENCHMARKS.md, "Code
// versions").
//
// The commit is "+dirty" only when the reached code differs from the
// commit's: when git status lists changes in the reached packages (or
// go.mod), the same hash is computed from HEAD's files (git cat-file), and
// a checkout whose changes are comments, layout or unreached code keeps
// the plain commit.
package codever
