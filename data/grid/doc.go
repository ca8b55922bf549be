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
//   - CurrentCode is the running code's version: a hash of the library
//     source (psub/..., data/, go.mod, go.sum) read from the module at run
//     time, which decides staleness, and the git commit ("+dirty" when that
//     source has uncommitted changes), which is for people. HashSource
//     hashes a narrower part (package data's segment cache keys on it).
//   - ParamsKey turns a settings struct (Options.Params) into canonical
//     text (sorted-key JSON), so callers pass their settings instead of
//     typing strings.
//   - Run writes both into every row and reuses a row only when both
//     match. Stale rows are computed again — unless ReuseStale
//     (PSUB_REUSE=stale) asks to reuse them, which a warning then says,
//     naming how many and which code and params they came from. Report
//     says what was reused and why; callers print it.
//
// # Order of jobs, and replays
//
// Options.After makes a job wait for another (a fit for the one whose
// working set it starts from). Among the jobs whose wait is over, Run
// starts the one heading the costliest chain of waits first, so that a
// long chain is not started last while the other workers idle. What a job
// costs is Options.Cost, or else estimated from the results file's rows
// and the jobs finished so far (Estimate: the same job's time, else the
// mean of the same job in other folds, of its set and stage, ...). Replay
// runs the same scheduler on a simulated clock with recorded times: what a
// grid takes on more workers than the machine that ran it had
// (psub protocol NAME -profile full -replay 32).
//
// Replayed with the committed full-profile rows, the cows grid (840 fits,
// 6 000 s of fits) takes 3 004 s on 2 workers and 382 s on 16 (7.87×; it
// was 404 s, 7.44×, with ready fits in listed order), the retina grid
// (1 680 fits, 9 852 s) 4 927 s and 618 s (7.97×; was 627 s); a rerun
// that finds these rows in its results file, 377 s and 617 s, within 1 %
// of the bound max(work/W, longest chain). scripts/slurm/README.md gives
// the table and how it was made.
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
// data/protocol. This package knows no data set and no learner: it reads
// metric names, psub's stop reasons and psub/feature's t-test.
package grid
