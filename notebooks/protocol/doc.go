// Package protocol is what the paper's experiments share: the Protocol
// interface each experiment implements, its Options and Profiles, the
// staged runner over package grid (RunStaged), shards and their merge,
// the cluster cost model (EstimateCost, Coster), the segmentation protocol
// of the cows, the retina and mitochondria, warm starts along C, and the
// tables' types.
//
// Each experiment is a package beside its notebook, which imports it:
// notebooks/cows (01), efficiency (02), retina (03), mito (04), multilabel
// (05), samplecomplexity (06) and tradeoff (07). Each knows its settings
// per Profile, lists its jobs, runs them into a results file of
// grid.Result rows (JSON Lines, one row per fit, resumable and versioned by
// Code: what the protocol's Run reaches, so that comments, tables, plots
// and other protocols leave its rows current), builds its tables from the
// rows, and registers itself (Register) for the command line, which runs
// the same code:
//
//	psub protocol cows -profile quick               # the whole grid
//	psub protocol cows -profile full -shard 3/8     # the third of eight shards
//	psub protocol cows -profile full -merge -results cows-full.jsonl shard-*.jsonl
//
// Jobs that depend on each other (a fold's selection of C and its final fit)
// form a group, named by Protocol.Group; a Shard takes whole groups, so the
// shards of a grid run independently (on the cores of one machine or the
// nodes of a cluster) and Merge joins their rows, refusing fits that two
// shards disagree on and listing the fits that are missing.
//
// Fits along a grid of C start warm (WarmStarts): each selection fit from
// the working set of its fold, set and loss at the next smaller C, each
// final fit from the selection fit at its C; under
// SegmentationSettings.FromC4 (the horses) the finals of C̄4 and QPBO
// start from C4's final of the same fold, and C̄4's selection fits from
// C4's at the same C (WarmStarts.Finals and Selections; rows say
// warm_other). Each fit waits for the one it
// starts from (grid.Options.After), so the start is the same however the
// grid is scheduled or sharded, and each still stops only at the
// certified gap; rows record what they started from (warm_from,
// warm_planes, warm_hard), how many planes were re-costed to the fit's
// node costs (warm_recosted: the Δ_avg finals, whose class weights differ
// from their selection fit's) and how many were added as completions on
// the images the selection fit lacked (warm_completed).
//
// Profiles: Full is the paper's protocol, Quick a reduced run of minutes that
// the notebooks and the test command use, Tiny a few examples of the same
// code path for unit tests.
//
// # Experiment runners
//
// The fits behind the protocols are values too, usable without a Protocol:
//
//   - Column is one column of the paper's tables: a constraint set with its
//     training-time inference, or an unconstrained baseline (TGC, QPBO,
//     TRW-S) trained and tested with approximate inference; ColumnByName
//     resolves the names the jobs carry ("C4", "C4bar", "QPBO").
//   - SegmentationExperiment (cows, retina, mitochondria) runs one grid.Job:
//     trains the column at the job's loss and C (TrainJob, which the
//     multi-label Trainer shares), scores it, and returns the row's
//     metrics; its Params say what the rows depend on (grid.ParamsKey of
//     settings plus an InstancesDigest of the data). Its rows read back as
//     Row (Rows, Tagged): the job and Metrics, whose fields are the
//     metrics by their names in the results file (Fit, the selection's
//     Selection, the final fit's Scores, Warm).
//
// # What a reproduction page shows
//
// A reproduction notebook opens with its claim table (ClaimTable of the
// experiment's Claims): every claim of the paper's section, the paper's
// value, ours from the rows, and a verdict that a rule computes from the
// two (Within, WithinFactor, Ordered, NotBelow, Tied), so no verdict is
// typed by hand; its headline (HeadlineOf) is the leading claim with its
// verdict. It closes with RunDetails: the profile, the code versions of
// the rows and whether the running code would reuse them, and the job
// time, so that the story between carries no commit or second.
package protocol
