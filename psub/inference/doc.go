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
// Methods, and what each guarantees (ParseMethod maps their Name()s):
//
//   - GraphCut ("graphcut"): exact binary MAP by one max-flow
//     (psub/maxflow, Boykov–Kolmogorov); refuses an energy with a
//     non-submodular edge (the error names it). Returns the minimiser with
//     the fewest 1s.
//   - TruncatedGraphCut ("tgc"): truncates non-submodular edges as in
//     Rother et al. 2005 (excess Δ = θ00+θ11−θ01−θ10 split: θ01 and θ10
//     raised by Δ/2), then cuts; exact when nothing was truncated.
//     Result.Energy is under the original energy, Result.Truncated counts
//     the truncated edges, Result.LowerBound is still valid.
//   - QPBO ("qpbo"): roof duality on the doubled graph. Labelled nodes are
//     strongly persistent (every minimiser agrees with them, see QPBOPartial);
//     the unlabelled ones are set to 0 and improved by ICM over the unlabelled
//     nodes. Result.LowerBound is the roof-dual (= LP relaxation) bound.
//   - TRWS ("trws"): sequential tree-reweighted message passing (Kolmogorov
//     2006), any number of labels, with a lower bound.
//   - AlphaExpansion ("expansion"), AlphaBetaSwap ("swap"): move-making by
//     max-flow for more than two labels (Boykov, Veksler & Zabih 2001);
//     expansion needs metric, swap semi-metric tables for their guarantees,
//     otherwise moves are truncated and only improving moves accepted.
//   - ICM ("icm"): local search with single-node moves.
//   - BruteForce ("bruteforce"): exact enumeration up to MaxStates
//     labellings (default 2^22); the tests' oracle.
//
// The max-flow core of GraphCut, TruncatedGraphCut and the moves lives in
// psub/internal/cut, which psub's learner also calls directly with
// energies in the normal form of graph cuts, built from features without a
// table energy.
//
// Result.Energy is always e.Eval(Result.Labels); Result.Exact is set only
// when the method certifies optimality; Result.LowerBound is −Inf when the
// method gives no bound.
//
// Every Method is a value holding options whose zero values are the
// defaults, validates its input (errors name the node or edge), and is safe
// for concurrent use on different energies. Methods that gain from reuse
// (the max-flow ones) also implement SolverFactory: a Solver (one goroutine)
// keeps its graph and buffers across calls on energies with the same edges,
// which is how the learner calls loss-augmented inference thousands of times
// per training run; NewSolver(m) returns the right one for any Method. With
// GraphCut{Dynamic: true} or TruncatedGraphCut{Dynamic: true} a Solver also
// keeps the flow and search trees and updates only the changed capacities
// (dynamic graph cuts, Kohli & Torr 2005).
package inference
