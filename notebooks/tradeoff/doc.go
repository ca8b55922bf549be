// Package tradeoff is notebook 07's experiment (07-tradeoff.ipynb, beside
// this folder): model error against inference error, the paper's §3.
//
// RunLadder trains one model per rung of the capacity ladder C0 ⊂ C1 ⊂ C2 ⊂
// C2* ⊆ C4 and C2 ⊆ C3 ⊆ C4 (two branches: C2* and C3 are not nested) and,
// past its top, without constraints but with
// approximate training-time inference (TGC, QPBO, TRW-S), and measures the
// learner's objective, the certified objective of the final w
// (PrimalInterval), accuracy and how exact inference is on the test
// graphs (a Row per entry), the two kinds of error the paper trades against
// each other:
//
//   - model error: what the constraint set leaves out. Measured by the
//     capacity, the optimal value of the training objective ½‖w‖² + C·ξ
//     (smaller = the set fits the training data better), and by accuracy.
//   - inference error: what approximate inference gets wrong. Measured on
//     the test graphs by the fraction of non-submodular edges, the edges
//     TGC truncates, the nodes QPBO leaves unlabelled and the gap between
//     TRW-S's energy and its lower bound.
//
// With approximate training-time inference the learner's own objective is
// not certified: a missed most-violated labelling makes ξ look smaller. So
// RunLadder re-evaluates the final w's objective on the training set with
// an interval [PrimalLo, PrimalHi]: the best labelling any of TGC, QPBO and
// TRW-S finds gives the lower end, the best of their lower bounds on the
// loss-augmented energy the upper end. For the constraint sets the training
// edges are submodular, graph cut is exact, and the interval is a point.
//
// Experiment is the protocol (package notebooks/protocol) over it: one fit
// per seed and entry on the embedded synthetic segmentation, its settings
// per profile, and the notebook's tables (SideBySide, Capacity, Exactness,
// NonSubmodular). Live re-fits one entry per move of the controls of
// notebooks 00 and 07.
//
//	go run ./scripts/psub protocol tradeoff -profile quick
package tradeoff
