// Package feature turns a segmentation into the graphs and feature vectors
// of the paper's CRF experiments, and scores predictions.
//
// Vocabulary. A region map (imageio.LabelMap) assigns each pixel or voxel
// the id 0..n−1 of its superpixel/supervoxel (a node of the CRF graph). A
// class map assigns each voxel its ground-truth class 0..K−1 (for binary
// segmentation 0 = background, 1 = foreground).
//
//   - Graph: Adjacency gives the region adjacency graph, edges (a, b) with
//     a < b, sorted and unique, 4-connectivity in 2-D and 6 in 3-D.
//   - Unary features φ_u (one row per region, each block normalised to sum
//     1 over the region): ColorHistogram (joint 5×5×5 RGB, 125 values, the
//     cow experiment), IntensityHistogram (10 bins retina, 40 bins EM), GLCM
//     (8×8 grey-level co-occurrence, 1-voxel displacement along +x, +y and,
//     in 3-D, +z, symmetric, over pairs inside the region), Bias (constant
//     1). Concat joins blocks; CowUnary, RetinaUnary and EMUnary are the
//     paper's three descriptors (125, 74 and 105 values).
//   - Pairwise features φ_p(k, l) = |φ_u(k) − φ_u(l)| (Pairwise), non-negative
//     by construction as constraint sets C1 and C2 require.
//   - Ground truth per region by MajorityVote; Project paints region labels
//     back on voxels; NewOracle is the best score any region labelling can
//     reach (the paper's "Oracle").
//   - Metrics on a Confusion: Accuracy (global), ClassAveraged (1 − Δ_avg),
//     IoU per class, VOC (mean IoU, for binary the mean of foreground and
//     background IoU); HammingAccuracy for multi-label; PairedTTest for the
//     paper's significance claims.
//   - Sample complexity (§4): Hull decides whether a feature lies in the
//     convex hull or the convex cone of a set of training features (by
//     non-negative least squares); Coverage measures the fraction of
//     held-out features outside both as the training set grows.
//
// Samples are quantised into equal-width bins over [0, maxValue] (255 for
// 8-bit data): bin = floor(v·bins/(maxValue+1)), clamped.
//
// This package imports only imageio and gonum, never psub.
package feature
