// Package grid runs a grid of experiment jobs and keeps their records: one
// row per fit in a JSON Lines results file, resumable, and never reused
// once the code or the settings that computed it have changed.
//
// # Jobs and rows
//
// A results file is JSON Lines, one row per fit: the job's columns
// (Job: dataset, set, loss, C, fold, tag; Key names the job), its metrics
// (numbers by name), an optional detail (JSON), its time, its error, and
// what computed it. An experiment declares its own job and metrics as Go
// structs whose JSON names are those columns and metric names (a tradeoff
// job's Seed is `json:"fold"`; a metric only some rows have goes in an
// embedded pointer to a struct, nil when absent), and reads its rows as
// Row[J, M] (Rows): its tables read fields, never names.
//
// Run calls a JobFunc on every job, Workers at a time, and returns one
// Result per job (the untyped row: Job and a map of metrics, which tools
// that read every experiment's files use); Func makes a JobFunc of a typed
// fit func(ctx, J) (M, error) and Cells lists typed jobs as Jobs, or
// RunTyped does both. A job may give its row a Detail with SetDetail. A
// failing job is recorded and does not stop the grid.
//
//	rows, err := grid.RunTyped(ctx, jobs, fit, grid.Options{Results: "out/cows.jsonl", Params: settings})
//
// With Options.Results, every finished job is appended to the file at once
// (one grid per file: a lock refuses a second), so an interrupted grid
// loses only the jobs that were running and a second Run reuses the rest.
// ReadResults reads a file back (the newest row of each job wins);
// WriteResultsJSONL writes rows.
//
// # Stale results
//
// Every row says what computed it, so that none is reused silently after
// the code or the settings changed:
//
//   - Options.Code is the version of the code a fit executes (package
//     internal/codever: a hash of the declarations reached from its entry
//     points, each protocol's Run method, which decides staleness, and the
//     git commit, which is for people); without it Run uses the version of
//     the whole library source, comments included.
//   - ParamsKey turns a settings struct (Options.Params) into canonical
//     text (sorted-key JSON), so callers pass their settings instead of
//     typing strings.
//   - Run writes both into every row and reuses a row only when both
//     match. Stale rows are computed again — unless ReuseStale
//     (PSUB_REUSE=stale) asks to reuse them, which a warning then says,
//     naming how many and which code and params they came from. Report
//     says what was reused and why; callers print it.
//
// # Order of jobs
//
// Options.After makes a job wait for another (a fit for the one whose
// working set it starts from). Among the jobs whose wait is over, Run
// starts the one heading the costliest chain of waits first, so that a
// long chain is not started last while the other workers idle. What a job
// costs is Options.Cost, or else estimated from the results file's rows
// and the jobs finished so far (the same job's time, else the
// mean of the same job in other folds, of its set and stage, ...).
//
// # Grids and statistics
//
// LogSpace gives the paper's grids of C (package data splits examples into
// folds). Over typed rows and a metric read by a function of M, BestByC
// chooses C on held-out scores, Aggregate gives the mean ± standard error
// across folds and PairedAcrossFolds the paired t-test (psub/feature's
// PairedTTest). StopOf reads how a fit stopped from any row's metrics,
// StopLabel says it in words; Convergence, ConvergenceTable and
// TotalSeconds summarise how the fits of a results file ended and what
// they cost.
//
// The paper's experiments, which are grids of this kind, are beside their
// notebooks (notebooks/protocol and each notebook's package). This package
// knows no data set and no learner: it reads the metric names of psub's
// stop reasons ("stop", "converged", "gap", "iterations") and uses
// psub/feature's t-test.
package grid
