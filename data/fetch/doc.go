// Package fetch brings the data sets from their public homes: for each
// data set, one tar.gz archive of its source repository at the pinned
// commit (GitHub serves OWNER/NAME/archive/COMMIT.tar.gz), of which only
// the data set's files are kept, each checked against the sha256 shipped in
// data/checksums; then the derived files (the epfl_mito masks) are made
// from them and checked by their pixel sums. Files one by one from GitHub's
// raw host are the fallback when the archive route fails.
//
// A mirror (Options.Mirror, $PSUB_DATA_MIRROR) stands for github.com: a
// base URL or a local folder holding the same OWNER/NAME/archive/COMMIT.tar.gz
// paths, so that a lab serves the data inside its network. MakeMirror
// writes such a folder from a verified data folder.
//
// Check verifies a data folder without the network. scripts/fetch-data
// (psub fetch) and scripts/reproduce call them.
package fetch
