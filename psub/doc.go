// Package psub trains pairwise conditional random fields with a 1-slack
// structured SVM under submodularity constraint sets, following Berman &
// Blaschko, "Discriminative training of conditional random fields with
// probably submodular constraints".
//
// Vocabulary (the paper's):
//
//   - An Instance is one graph x with unary features φ_u per node, pairwise
//     features φ_p per edge and, for training, a labelling y.
//   - The joint feature map ψ(x,y) uses the Kronecker layout
//     ψ_u = 1(y_k) ⊗ φ_u(x_k) and ψ_p = 1(y_k) ⊗ 1(y_l) ⊗ φ_p(x_k,x_l);
//     the weight vector splits into w_α per label and w_αβ per ordered
//     label pair (Layout). The score w·ψ(x,y) is maximised; energy = −score.
//     With Settings.Tied, w_αβ = w_βα (unordered pairs); the experiments
//     use untied weights, as the paper.
//   - A decomposable loss Δ(y_i,y) = Σ_k c_k·[y_k ≠ y_i^k] (Hamming,
//     ClassAveraged, NodeCosts) is folded into the unary energies, so
//     loss-augmented inference is MAP inference.
//   - A constraint set (C0, C1, C2, C2Star, C3, C4, C4Bar, or Unconstrained)
//     restricts w so that the pairwise energies are submodular: for every
//     input (C1, C2, C2*; these need non-negative pairwise features), on the
//     training edges (C3, C4), or on training and test edges (C̄4). A set
//     is a description (ConstraintSet.Spec returns a SetSpec): weights fixed
//     to 0, sign bounds, and a pool of hard constraints b_j ⊗ p_i over the
//     edges of the training instances and of extra ones, optionally a subset
//     of them (ConstraintPool). The paper's sets are written with it, and a
//     set of one's own is a type with Name and Spec (Example ConstraintSet);
//     Train checks the description and names the set and the faulty entry.
//   - The learner (Train) adds cutting planes — the mean over instances of
//     the most violated labelling from loss-augmented inference — and hard
//     constraints c·w ≥ 0, the most violated submodularity constraints of
//     the pool c_ij = b_j ⊗ p_i, found from the margins V = P·(W̃_p·Bᵀ)
//     (Algorithm 1) or from the lower bounds L ← L − ‖w' − w‖·N that are
//     recomputed only where L ≤ 0 (Algorithm 2, delayed generation).
//     Pretraining first trains without hard constraints (truncated graph
//     cuts), then enforces them from that warm start; constraint
//     minibatches enforce growing prefixes of the pool in stages.
//   - Settings holds what an experiment chooses (C, Tol, MaxIter, the
//     loss, the constraint set, Delayed, Pretrain, Minibatches, Tied, …);
//     Settings.Tuning holds the solver's knobs (training-time inference,
//     hard constraints per round, HardTol, the inference cache, pruning,
//     the QP's accuracy), whose zero value is what the experiments use.
//   - Training stops on the relative primal–dual gap (best primal upper
//     bound from exact inference vs. the QP's dual bound), when inference
//     finds no violated labelling, or at MaxIter; the returned weights are
//     the iterate of the best bound. "Converged" (Trace.Converged) is a
//     certificate of the returned model, not just the end of the loop: its
//     gap is within [−1e-9, Tol] allowing for the QP's rounding level, no
//     QP solve of the last stage hit its iteration limit or stopped at a
//     rounding level above Tol, and no hard
//     constraint of the set is violated beyond HardTol. Otherwise
//     Trace.Stop is StopNotCertified or StopMaxIter and Trace.Problems says
//     what failed; when the cause is scale (C·‖a‖², Trace.Scale, beyond
//     about 10¹⁰: huge features or a huge C) it says so and what to do.
//   - One tolerance decides what is submodular: an edge with features p is
//     non-submodular when, for some label pair α<β, C4's constraint
//     c = b_αβ ⊗ p has c·w < −ε·‖c‖·‖w‖, with ε = Settings.Tuning.HardTol
//     (1e-7 by default). Training enforces its hard constraints by this rule, the
//     certificate checks it, and Model.NonSubmodularFraction reports by it
//     with the ε stored in the model. The Trace
//     holds per-iteration and per-QP-call records for plots and the
//     totals of the paper's tables (hard constraints introduced and active,
//     margins computed, time in inference / QP / constraint generation).
//   - Long trainings are resumable: with Settings.CheckpointDir the working
//     set (cutting planes with their tallies, hard constraints, their
//     duals) and the trace are saved after every iteration (atomically,
//     with a checksum, under a lock), and Train on the same problem and
//     settings continues from the last one (Trace.Resumed). The checkpoint
//     is removed only after Settings.Save has stored the model.
//   - Trainings start warm: Trace.Working is the working set a training
//     ended with, and Settings.Warm starts another from it: along a grid
//     of C (planes are lower bounds of the risk whatever C is, hard
//     constraints are constraints at any C), or on a superset of the
//     training set (Settings.WarmInstances; planes scaled by |S|/|T| are
//     then exactly constraints of the larger problem). A plane keeps its
//     tally (mislabelled nodes per instance and class), so when the node
//     costs change (the class-averaged loss on another set) its offset is
//     re-costed exactly; on a superset, each carried plane is also added
//     completed with the first inference's labellings of the new instances.
//     Only the start moves; the stopping rule and its certificate are the
//     same as a cold training's (Trace.Warm says what was used).
//
// A Model predicts with truncated graph cuts (αβ-swap for more than two
// labels; Predict, PredictWith) and reports how many edges were truncated;
// Evaluate predicts a data set and scores it (global and class-averaged
// accuracy, confusion matrix, truncated edges). Compatibility is w·ψ(x,y)
// of a labelling, not an accuracy. A Model measures the fraction of
// non-submodular edges on any data set, and is saved and loaded as JSON.
//
// The sub-packages hold the machinery: maxflow (Boykov–Kolmogorov),
// inference (graph cut, TGC, QPBO, TRW-S, brute force, moves), qp (the dual
// QP of the cutting-plane SSVM), slic (superpixels and supervoxels) and
// feature (region graphs, descriptors, metrics).
//
// Thread safety: Train uses Settings.Workers goroutines internally; a
// Model is read-only after training and may predict from several
// goroutines.
package psub
