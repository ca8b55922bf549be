// Package slic computes SLIC superpixels (2-D images) and supervoxels (3-D
// greyscale volumes), after Achanta et al., "SLIC Superpixels Compared to
// State-of-the-Art Superpixel Methods", TPAMI 2012. The paper's CRFs are
// built on these regions: one node per superpixel (cows, retina) or
// supervoxel (mitochondria), one edge per pair of adjacent regions.
//
// # Algorithm
//
// SLIC is k-means restricted to local windows. Seeds (cluster centres) start
// on a regular grid with step S chosen so that about Options.Segments seeds
// fit; each voxel is assigned to the centre k, among the centres whose search
// window contains it, that minimises
//
//	D = ‖I − c_k‖² + (m/S)² ‖s ⊙ (p − p_k)‖²
//
// where I is the voxel's feature (CIELAB colour or grey value), p its
// position, s the voxel spacing and m the compactness: larger m weighs space
// more and gives more regular, grid-like regions. Centres then move to the
// mean feature and position of their voxels; assignment and update repeat
// MaxIter times or until no label changes. A final pass relabels connected
// components (4-connectivity in 2-D, 6 in 3-D), merges components smaller
// than MinSizeFactor·N/K voxels into an adjacent region and caps components
// at MaxSizeFactor·N/K voxels, so every returned label is one connected
// region.
//
// # Relation to scikit-image
//
// Options follows skimage.segmentation.slic (0.19): n_segments, compactness,
// sigma, max_num_iter=10, enforce_connectivity, min_size_factor=0.5,
// max_size_factor=3, spacing, the same regular grid (skimage.util.
// regular_grid), the same rescaling of the input to [0, 1] before the
// optional CIELAB conversion, Gaussian smoothing after it (σ per axis =
// Sigma/spacing, 'reflect' borders, truncated at 4σ), and S = the largest
// grid step. Compactness therefore means the same number in both. Two
// documented differences: the search window is ±S around a centre as in
// Achanta et al. (skimage uses ±2S; set SearchRadius = 2 to match it), and
// centres start with the feature of their seed voxel (skimage starts them at
// zero, which makes its first assignment purely spatial; set ZeroInit). With
// SearchRadius 2 and ZeroInit, 96% of the pixels of a 1024×768 cow image fall
// in the skimage superpixel that best matches theirs (see BENCHMARKS.md).
//
// # The scale of compactness
//
// By default samples are rescaled to [0, 1] first (as skimage does), so for
// greyscale data the feature term is at most 1, while a voxel one grid step
// from a centre pays m² in the spatial term. With the paper's m = 20 on the
// EM volume (S = 10) a full-range intensity step weighs as much as half a
// voxel of displacement. CIELAB colour spans about 100 units, so m = 20 is a
// balanced choice there. Set KeepRange to measure grey values in the units
// of the data (e.g. 0–255), or lower Compactness, when grey edges should
// count more.
//
// # Determinism and cost
//
// There is no randomness. Every voxel takes the lowest-index centre among
// those at minimum distance, and the centre means are summed in a fixed
// order (updateChunks blocks of rows, each in raster order), so labels do
// not depend on the number of workers.
//
// One iteration is one pass over the volume: a task offers the centres of
// its block of rows to their windows, a strip of rows at a time (a slice
// in 3-D; in 2-D as many rows as the cache holds), and adds up each strip's
// voxels for the centre means as soon as it is assigned, while they are in
// cache. A
// voxel whose best distance so far is not above a centre's spatial term
// alone skips that centre's feature term: the sum of non-negative float32
// terms cannot drop below one of them, so this changes no label. Features
// are stored one plane per channel; the Gaussian sums several outputs at
// once, each in the order of the taps. On amd64 the inner loops (the
// Gaussian's taps, a centre's offers to its window, the input check and
// the CIELAB conversion of 8-bit colour) run in SSE2 or, where the
// processor has it, AVX2 assembly doing the same float32 and float64
// operations in the same order as the Go loops in kernels.go, which other
// architectures (and -tags purego) use. None of this changes the arithmetic
// of a distance or a sum: the labels are bit-identical to those of the
// straightforward implementation in reference_test.go, and to those the
// committed problems were built with (testdata/golden-labels.txt: the 111
// cows at the protocol's settings and EM crops).
//
// Memory is one float32 feature plane per channel, one float32 distance and
// one int32 label per voxel (about 12 bytes per voxel for greyscale, 20 for
// colour); connectivity is enforced in place. Options that would overflow
// the float32 distances, an int conversion or the Gaussian's support are
// refused with the allowed range. BENCHMARKS.md records times and memory
// against scikit-image, including the full 1024×768×165 EM volume. The
// command `psub slic` wraps Segment for PNG, JPEG and BMP images.
package slic
