// Package samplecomplexity is notebook 06's experiment
// (06-sample-complexity.ipynb, beside this folder): how many training edges
// the probably submodular sets need, the paper's §4.
//
// Experiment is the protocol (package notebooks/protocol): the coverage of
// held-out pairwise features by the convex hull and cone of n training
// features of the cows, the non-submodular test edges of a C4 model
// trained on k images, and the uniform control where
// the polytope rate applies; its settings per profile, jobs and tables.
//
//	go run ./scripts/psub protocol sample-complexity -profile quick
package samplecomplexity
