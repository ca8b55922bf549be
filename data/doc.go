// Package data finds, reads, builds and splits the data sets of the
// experiments, and runs the paper's protocols over them.
//
// Location. A data set (yeast, scene, tud_cows, epfl_mito, weizmann_horse)
// is a sub-folder of a data folder. Locator.Find looks for it, in order, in
// an explicit path (authoritative when given), in $PSUB_DATA, and in
// ../shared/data relative to the module root (the directory with go.mod,
// found by walking up from the working directory, so notebooks/ and package
// test directories both work). When it is nowhere, the error lists every
// place looked at and says how to get the data (scripts/fetch-data).
// Checksums of every original file ship with the package (VerifyFiles).
//
// Graph interchange. ReadJSONL and WriteJSONL read and write []psub.Instance
// in the JSON Lines format of FORMATS.md (one graph per line: unary, edges,
// pairwise, labels, name). The reader checks every line and reports each
// violation with its line number and field; it never returns a partial set.
package data
