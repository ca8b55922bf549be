// Package inference minimises pairwise energies: the MAP and
// loss-augmented inference steps of the structured SVM in psub.
//
// An Energy is E(y) = Σ_i θ_i(y_i) + Σ_(a,b) θ_ab(y_a,y_b) over discrete
// labels; the learner builds it as the negated score −w·ψ(x,y) and folds the
// loss into the unary terms for loss-augmented inference. A pairwise term is
// submodular when θ(α,α)+θ(β,β) <= θ(α,β)+θ(β,α) for every α < β; the
// paper's constraint sets C0…C̄4 exist to make (almost) every edge
// submodular so that binary inference is exact by graph cut.
//
// Methods, and what each guarantees:
//
//   - GraphCut: exact binary MAP by max-flow; refuses an energy with a
//     non-submodular edge (the error names it).
//   - TruncatedGraphCut (TGC): truncates non-submodular edges (Rother et al.
//     2005), then cuts; exact when nothing was truncated, otherwise an upper
//     bound. Result.Energy is under the original energy.
//   - QPBO: roof duality on the doubled graph. Labelled nodes are persistent
//     (some minimiser agrees with them); the rest are completed by ICM.
//     Result.LowerBound is the roof-dual bound.
//   - TRWS: sequential tree-reweighted message passing (Kolmogorov 2006) with
//     a monotone lower bound, any number of labels.
//   - AlphaExpansion, AlphaBetaSwap: move-making by max-flow for more than two
//     labels (Boykov, Veksler, Zabih 2001); expansion needs metric, swap
//     semi-metric pairwise terms for its guarantees.
//   - ICM: local search, single-node moves.
//   - BruteForce: exact enumeration for small problems; the tests' oracle.
//
// Every Method is a value holding options whose zero values are the
// defaults, validates its input (errors name the node or edge), and is safe
// for concurrent use. Methods that gain from reuse (the max-flow ones) also
// implement SolverFactory: a Solver keeps its graph and buffers across calls
// on energies with the same edges, which is how the learner calls inference
// thousands of times per training run.
package inference
