// Package mito is notebook 04's experiment (04-mitochondria.ipynb, beside
// this folder): mitochondria in the EPFL electron-microscopy volumes, the
// paper's §4.
//
// Experiment is the protocol (package notebooks/protocol, its shared
// segmentation protocol): one fold, C chosen by training on one half of the
// training volume and validating on the other (Settings.Experiments), the
// final fits on both halves scored on the testing volume; its settings per
// profile, measured costs, and the notebook's tables (Scores, ScoreBars,
// AgainstPaper, NonSubmodular, Headline).
//
//	go run ./scripts/psub protocol mito -profile quick
package mito
