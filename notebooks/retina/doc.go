// Package retina is notebook 03's experiment (03-retina-substitute.ipynb,
// beside this folder): the paper's §2 on the Weizmann horses, a public
// substitute for its feline retina.
//
// Experiment is the protocol (package notebooks/protocol, its shared
// segmentation protocol): folds of the horses, C chosen per fold, every
// constraint set and baseline under the class-averaged loss; its settings
// per profile, measured costs, and the notebook's tables (Scores,
// ScoreBars, PairedTests, NonSubmodular, Headline).
//
//	go run ./scripts/psub protocol retina -profile quick
package retina
