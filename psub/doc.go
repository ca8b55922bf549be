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
//     label pair. The score w·ψ(x,y) is maximised; energy = −score.
//   - A constraint set (C0, C1, C2, C2*, C3, C4, C̄4) restricts w so that the
//     pairwise energies are submodular: for every input (C1, C2, C2*) or on
//     the training edges only (C3, C4), or on training and test edges (C̄4).
//   - The learner adds cutting planes (most violated labelings from
//     loss-augmented inference) and hard constraints (most violated
//     submodularity constraints, Algorithms 1 and 2) lazily.
//
// The sub-packages hold the machinery: maxflow (Boykov–Kolmogorov),
// inference (graph cut, TGC, QPBO, TRW-S, brute force, moves), qp (the dual
// QP of the cutting-plane SSVM), slic (superpixels and supervoxels) and
// feature (region graphs, descriptors, metrics).
package psub
