// Package grid runs a grid of experiment jobs and keeps their records: one
// row per fit in a JSON Lines results file, resumable, and never reused
// once the code or the settings that computed it have changed.
//
// # Jobs and rows
//
// A Job names one fit: a data set, a constraint set (or baseline), a loss,
// the regularisation constant C, a fold and a Tag for the stage ("select",
// "final"). Jobs lists the cross product the paper's tables need. Run calls
// a JobFunc on every job, Workers at a time, and returns one Result per
// job: the job, its metrics (a map of numbers such as "test_acc" or
// "iterations"), an optional Detail (JSON set by SetDetail from inside the
// job: a curve, names), its wall time and its error. A failing job is
// recorded and does not stop the grid.
//
//	jobs := grid.Jobs([]string{"cows"}, []string{"C1", "C4"}, []string{"hamming"}, grid.LogSpace(0.1, 10, 5), 10)
//	rows, err := grid.Run(ctx, jobs, fit, grid.Options{Results: "out/cows.jsonl", Params: settings})
//
// With Options.Results, every finished job is appended to the file at once
// (one grid per file: a lock refuses a second), so an interrupted grid
// loses only the jobs that were running and a second Run reuses the rest.
// ReadResults reads a file back (the newest row of each job wins);
// WriteResultsJSONL, WriteResultsCSV and WriteResultsJSON write rows.
//
// # Stale results
//
// Every row says what computed it, so that none is reused silently after
// the code or the settings changed:
//
//   - CodeOf is the version of the code a fit executes: a hash of the
//     declarations reached from its entry points (roots; package protocol
//     uses each protocol's Run method, package data's segment cache the
//     builders), which decides staleness, and the git commit, which is for
//     people. Callers pass it as Options.Code; without it Run uses
//     CurrentCode, a hash of the whole library source (psub/, data/,
//     go.mod, go.sum), comments included.
//   - ParamsKey turns a settings struct (Options.Params) into canonical
//     text (sorted-key JSON), so callers pass their settings instead of
//     typing strings.
//   - Run writes both into every row and reuses a row only when both
//     match. Stale rows are computed again — unless ReuseStale
//     (PSUB_REUSE=stale) asks to reuse them, which a warning then says,
//     naming how many and which code and params they came from. Report
//     says what was reused and why; callers print it.
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
//     files;
//   - an init function (or var _ = …) counts when what it refers to,
//     followed through functions and variables, includes a reached
//     variable;
//   - stops are not followed (package protocol stops at its runner,
//     runStaged, and at the segment cache's key; CodeOf's own functions
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
//
// # Order of jobs
//
// Options.After makes a job wait for another (a fit for the one whose
// working set it starts from). Among the jobs whose wait is over, Run
// starts the one heading the costliest chain of waits first, so that a
// long chain is not started last while the other workers idle. What a job
// costs is Options.Cost, or else estimated from the results file's rows
// and the jobs finished so far (Estimate: the same job's time, else the
// mean of the same job in other folds, of its set and stage, ...).
//
// # Splits and statistics
//
// KFold, RandomFolds and HoldOut split example indices with seeds; LogSpace
// gives the paper's grids of C. SelectC, or BestByC over rows, chooses C on
// held-out scores; Summarize and Aggregate give the mean ± standard error
// across folds, PairedAcrossFolds the paired t-test (psub/feature's
// PairedTTest). StopOf and StopLabel read how a fit stopped from its
// metrics; Convergence, ConvergenceTable and TotalSeconds summarise how the
// fits of a results file ended and what they cost.
//
// The paper's experiments, which are grids of this kind, are in
// notebooks/protocol. This package knows no data set and no learner: it reads
// metric names, psub's stop reasons and psub/feature's t-test.
package grid
