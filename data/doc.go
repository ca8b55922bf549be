// Package data finds, reads and builds the data sets of the experiments:
// where they are, their loaders and file formats, the problem builders and
// their caches, and the synthetic generators. It sits between the core
// (psub and its sub-packages) and the experiments, which are beside their
// notebooks (notebooks/protocol and each notebook's package) and import it;
// it imports none of them. Fold, KFold, RandomFolds and HoldOut split
// example indices with seeds.
//
// # Where the data is
//
// A data set (yeast, scene, tud_cows, epfl_mito, weizmann_horse) is a
// sub-folder of a data folder. Locator.Find (or Find) looks for it, in order:
//
//  1. in an explicit path, which is authoritative when given;
//  2. in $PSUB_DATA, which must name a folder (else Find fails rather than
//     silently use another copy); one without the data set falls through to
//     the next place with a warning;
//  3. in ../shared/data relative to the module root, the directory with
//     go.mod found by walking up from the working directory (so notebooks/
//     under GoNB and a package directory under go test both work).
//
// When it is nowhere, the error (wrapping ErrNotFound) lists every place
// looked at and says how to get the data: scripts/fetch-data (package
// data/fetch) downloads the originals and verifies them. The sha256 of every
// original file ships with the package (Checksums, VerifyFiles). The
// epfl_mito masks are not in their source: RasteriseMito makes them from the
// polygon labels (DeriveMitoMask), checked by the sha256 of their pixels
// (PixelSum, DerivedPixelSums), since PNG encoders differ in bytes.
//
// # Graph interchange
//
// ReadJSONL and WriteJSONL read and write []psub.Instance in the JSON Lines
// format described in FORMATS.md in this directory (data/FORMATS.md: one
// graph per line with unary, edges, pairwise, labels, name), so graphs built
// elsewhere can be trained on and ours compared with other SSVM
// implementations. The reader checks every line and reports each violation
// with its line number and field; it never returns a partial set. The psub
// command's train, predict and export subcommands use it.
//
// # Multi-label classification (notebooks/TARGETS.md §5)
//
// LoadYeast and LoadScene read the ARFF files (package data/arff, which
// knows MULAN's and MEKA's label conventions) into a MultiLabelSet and check
// the README's counts. BuildMultiLabel turns each example into one graph
// over the labels: binary nodes, fully connected, unary 1(k) ⊗ x̂ (x̂ = x ⊕ 1 unless
// NoBias), pairwise 1(kl) ⊗ R(x) with R(x) = max(x̃,0) ⊕ max(−x̃,0) and x̃ the
// 20-dim PCA (FitPCA) of x fitted on the training set, so every pairwise
// feature is ≥ 0 as C1 and C2 require.
//
// # The embedded default
//
// SyntheticSegmentation and SyntheticMultiLabel generate seeded problems that
// need no files: a superpixel-style binary segmentation in which the pairwise
// features carry information the unaries lack, built so the capacity ladder
// C0 < C1 < C2 ≤ C4 shows in seconds, and a small multi-label problem whose
// label correlations only the pairwise features can express. The quick
// profile and the tests run on them; results on them must say so.
//
// # Results
//
// OutDir is out/ under the module root, where results files (ResultsPath),
// the segment cache and models go by default.
//
// The segmentation builders (images and volumes → SLIC regions → region
// graph → descriptors → instances, with an on-disk cache) are documented in
// segment.go.
package data
