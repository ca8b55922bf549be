// Package protocol holds the paper's experiments as tested values.
//
// Each Protocol (cows, the retina substitute, mitochondria, multi-label,
// efficiency, sample complexity, tradeoff) knows its settings per Profile,
// lists its jobs, runs them into a results file of grid.Result rows (JSON
// Lines, one row per fit, resumable and code-versioned by grid.Run), and
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
// Profiles: Full is the paper's protocol, Quick a reduced run of minutes that
// the notebooks and the test command use, Tiny a few examples of the same
// code path for unit tests.
package protocol
