// Package efficiency is notebook 02's experiment (02-efficiency.ipynb,
// beside this folder): what the paper's training algorithms cost on one
// fold of the cows, its efficiency table and "compute gains" figure.
//
// Experiment is the protocol (package notebooks/protocol): one fit per
// Config (the definitely submodular C2; C4 with Algorithm 1, Algorithm 2
// and 2-pass training; constraint minibatches; psub's tuned setting), run
// one at a time on every core since their times are the table; its
// settings per profile and tables. RunConfigsPrepared runs configurations
// outside a protocol. The benchmarks of this package measure one fit on the real
// cows on one core (BenchmarkFitOneCoreCows) and the warm starts along a
// grid of C (BenchmarkCowsCGrid, BenchmarkRetinaCGrid).
//
//	go run ./scripts/psub protocol efficiency -profile quick
package efficiency
