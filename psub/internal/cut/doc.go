// Package cut is the graph-cut core that psub/inference and psub's learner
// share: a binary energy in the normal form of graph cuts, loaded into a
// Boykov–Kolmogorov max-flow graph (psub/maxflow) that is kept, and
// optionally its flow and search trees (dynamic graph cuts), across calls
// on the same edges.
//
// The normal form of a binary energy is
//
//	E(y) = const + Σ_i Lin[i]·y_i + Σ_e W[e]·(1−y_a)·y_b,   edge e = (a,b),
//
// where, for a table θ, Lin collects θ(1)−θ(0) of the unaries plus
// θ10−θ00 at a and θ11−θ10 at b, and W[e] = θ01+θ10−θ00−θ11 ≥ 0 for a
// submodular edge. psub/inference reparametrises its table energies into
// it (Binary); the learner's loss-augmented inference builds the sums
// directly from features and solves them with Solver, skipping the table
// energy. The package is internal so that this fast path is no part of
// the public API of either.
package cut
