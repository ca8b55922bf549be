package feature

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/psub/imageio"
)

// Paper settings for the descriptors (notebooks/TARGETS.md §1, §2, §4).
const (
	ColorBins  = 5  // per channel: 5×5×5 = 125-bin joint RGB histogram (cows)
	RetinaBins = 10 // intensity histogram bins (retina; horses stand in)
	EMBins     = 40 // intensity histogram bins (EM mitochondria)
	GLCMLevels = 8  // grey levels of the 8×8 co-occurrence matrix
	MaxValue8  = 255
	MaxValue16 = 65535
	GLCMDims   = GLCMLevels * GLCMLevels
	ColorDims  = ColorBins * ColorBins * ColorBins // 125, as the paper
	RetinaDims = RetinaBins + GLCMDims             // 74, as the paper
	EMDims     = EMBins + GLCMDims + 1             // 105: histogram, GLCM, bias
)

// quantizer maps a sample in [0, maxValue] to one of bins equal-width bins:
// bin = floor(v·bins/(maxValue+1)), clamped to [0, bins−1], so that each of
// the maxValue+1 integer levels falls in exactly one bin (with 256 levels and
// 5 bins the edges are at 51.2, 102.4, ...).
type quantizer struct {
	scale float32
	bins  int
}

func newQuantizer(bins int, maxValue float64) (quantizer, error) {
	if bins < 1 {
		return quantizer{}, fmt.Errorf("%d bins: need at least 1", bins)
	}
	if !(maxValue > 0) || math.IsInf(maxValue, 0) {
		return quantizer{}, fmt.Errorf("maximum sample value %v: must be positive and finite", maxValue)
	}
	return quantizer{float32(float64(bins) / (maxValue + 1)), bins}, nil
}

func (q quantizer) bin(v float32) int {
	b := int(v * q.scale) // NaN converts to an unspecified int; clamped below
	if b < 0 || v != v {
		return 0
	}
	return min(b, q.bins-1)
}

// prepare checks an image against its region map and returns the number of
// regions.
func prepare(img *imageio.Volume, regions *imageio.LabelMap, channels int) (int, error) {
	if img == nil {
		return 0, fmt.Errorf("nil image")
	}
	if err := img.Check(); err != nil {
		return 0, err
	}
	if channels > 0 && img.Channels != channels {
		return 0, fmt.Errorf("image has %d channels, this descriptor needs %d", img.Channels, channels)
	}
	n, err := Count(regions)
	if err != nil {
		return 0, err
	}
	if img.Width != regions.Width || img.Height != regions.Height || img.Depth != regions.Depth {
		return 0, fmt.Errorf("image is %dx%dx%d but region map is %dx%dx%d",
			img.Width, img.Height, img.Depth, regions.Width, regions.Height, regions.Depth)
	}
	return n, nil
}

// matrix allocates n rows of dim values on one backing array.
func matrix(n, dim int) [][]float64 {
	rows, _ := matrixBack(n, dim)
	return rows
}

// matrixBack is matrix that also returns the backing array.
func matrixBack(n, dim int) ([][]float64, []float64) {
	back := make([]float64, n*dim)
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = back[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return rows, back
}

// normalizeRows scales every row to sum 1; all-zero rows (regions without
// voxels or without pairs) stay zero.
func normalizeRows(rows [][]float64) {
	for _, r := range rows {
		s := 0.0
		for _, v := range r {
			s += v
		}
		if s > 0 {
			for j := range r {
				r[j] /= s
			}
		}
	}
}

// ColorHistogram returns, per region, the joint RGB histogram with bins
// bins per channel (bins³ values; the paper's 5 gives 125), normalised to
// sum 1. Bin (r, g, b) is at index (r·bins + g)·bins + b. img must have 3
// channels with samples in [0, maxValue] (255 for 8-bit images).
func ColorHistogram(img *imageio.Volume, regions *imageio.LabelMap, bins int, maxValue float64) ([][]float64, error) {
	n, err := prepare(img, regions, 3)
	if err != nil {
		return nil, fmt.Errorf("colour histogram: %w", err)
	}
	q, err := newQuantizer(bins, maxValue)
	if err != nil {
		return nil, fmt.Errorf("colour histogram: %w", err)
	}
	rows := matrix(n, bins*bins*bins)
	for i, l := range regions.Labels {
		p := img.Pix[3*i : 3*i+3]
		rows[l][(q.bin(p[0])*bins+q.bin(p[1]))*bins+q.bin(p[2])]++
	}
	normalizeRows(rows)
	return rows, nil
}

// IntensityHistogram returns, per region, the histogram of a one-channel
// image with the given number of bins over [0, maxValue], normalised to
// sum 1 (the paper uses 10 bins for retina, 40 for EM).
func IntensityHistogram(img *imageio.Volume, regions *imageio.LabelMap, bins int, maxValue float64) ([][]float64, error) {
	n, err := prepare(img, regions, 1)
	if err != nil {
		return nil, fmt.Errorf("intensity histogram: %w", err)
	}
	q, err := newQuantizer(bins, maxValue)
	if err != nil {
		return nil, fmt.Errorf("intensity histogram: %w", err)
	}
	rows := matrix(n, bins)
	for i, l := range regions.Labels {
		rows[l][q.bin(img.Pix[i])]++
	}
	normalizeRows(rows)
	return rows, nil
}

// GLCM returns, per region, the grey-level co-occurrence matrix (Haralick et
// al. 1973) of a one-channel image quantised to levels grey levels over
// [0, maxValue] (the paper: 8 levels, 64 values), flattened row-major
// (index a·levels + b), normalised to sum 1.
//
// It counts pairs of voxels one step apart along +x and +y (2-D), and also
// +z (3-D), that both lie in the region. The matrix is symmetric: each pair
// with levels (a, b) adds 1 to cell (a, b) and 1 to cell (b, a), so
// direction does not matter. A region with no such pair (a single voxel)
// has a zero row.
func GLCM(img *imageio.Volume, regions *imageio.LabelMap, levels int, maxValue float64) ([][]float64, error) {
	n, err := prepare(img, regions, 1)
	if err != nil {
		return nil, fmt.Errorf("GLCM: %w", err)
	}
	q, err := newQuantizer(levels, maxValue)
	if err != nil {
		return nil, fmt.Errorf("GLCM: %w", err)
	}
	if levels > 256 {
		return nil, fmt.Errorf("GLCM: %d levels, at most 256", levels)
	}
	// Quantise once: each voxel is visited as both ends of up to 6 pairs.
	g := make([]uint8, len(img.Pix))
	for i, v := range img.Pix {
		g[i] = uint8(q.bin(v))
	}
	// Cell (a, b) of region l is back[(l*levels+a)*levels+b].
	rows, back := matrixBack(n, levels*levels)
	L := regions.Labels
	w, plane := img.Width, img.Width*img.Height
	// count adds the pairs (i, i+step) for i in [lo, hi) that lie in one region.
	count := func(lo, hi, step int) {
		for i := lo; i < hi; i++ {
			if l := L[i]; l == L[i+step] {
				a, b := int(g[i]), int(g[i+step])
				base := int(l) * levels
				back[(base+a)*levels+b]++
				back[(base+b)*levels+a]++
			}
		}
	}
	for z := range img.Depth {
		for y := range img.Height {
			start := z*plane + y*w
			count(start, start+w-1, 1) // +x
			if y+1 < img.Height {
				count(start, start+w, w) // +y
			}
			if z+1 < img.Depth {
				count(start, start+w, plane) // +z
			}
		}
	}
	normalizeRows(rows)
	return rows, nil
}

// Bias returns n rows holding the constant 1 (the paper's bias channel).
func Bias(n int) [][]float64 {
	rows := matrix(n, 1)
	for _, r := range rows {
		r[0] = 1
	}
	return rows
}

// Concat joins descriptor blocks side by side: row k of the result is row k
// of every block in turn. All blocks must have the same number of rows.
func Concat(blocks ...[][]float64) ([][]float64, error) {
	if len(blocks) == 0 {
		return nil, nil
	}
	n, dim := len(blocks[0]), 0
	for b, blk := range blocks {
		if len(blk) != n {
			return nil, fmt.Errorf("concat: block %d has %d rows, block 0 has %d", b, len(blk), n)
		}
		if n > 0 {
			dim += len(blk[0])
		}
	}
	rows := matrix(n, dim)
	for k, r := range rows {
		r = r[:0]
		for b, blk := range blocks {
			if len(blk[k]) != len(blocks[b][0]) {
				return nil, fmt.Errorf("concat: block %d row %d has %d values, its row 0 has %d", b, k, len(blk[k]), len(blocks[b][0]))
			}
			r = append(r, blk[k]...)
		}
	}
	return rows, nil
}

// Pairwise returns the paper's pairwise features φ_p(k, l) = |φ_u(k) − φ_u(l)|
// for every edge (k, l), element-wise: non-negative by construction, as the
// constraint sets C1 and C2 require.
func Pairwise(unary [][]float64, edges [][2]int) ([][]float64, error) {
	dim := 0
	if len(unary) > 0 {
		dim = len(unary[0])
	}
	rows := matrix(len(edges), dim)
	for e, ed := range edges {
		a, b := ed[0], ed[1]
		if a < 0 || a >= len(unary) || b < 0 || b >= len(unary) {
			return nil, fmt.Errorf("pairwise: edge %d (%d,%d): node out of range [0,%d)", e, a, b, len(unary))
		}
		if len(unary[a]) != dim || len(unary[b]) != dim {
			return nil, fmt.Errorf("pairwise: edge %d (%d,%d): unary rows of %d and %d values, expected %d", e, a, b, len(unary[a]), len(unary[b]), dim)
		}
		for j := range dim {
			rows[e][j] = math.Abs(unary[a][j] - unary[b][j])
		}
	}
	return rows, nil
}

// CowUnary is the paper's cow descriptor: the 5×5×5 RGB histogram of an
// 8-bit colour image (125 values per region).
func CowUnary(img *imageio.Volume, regions *imageio.LabelMap) ([][]float64, error) {
	return ColorHistogram(img, regions, ColorBins, MaxValue8)
}

// RetinaUnary is the paper's retina descriptor: a 10-bin intensity
// histogram and the 8×8 GLCM of a grey image with samples in [0, maxValue]
// (74 values per region).
func RetinaUnary(img *imageio.Volume, regions *imageio.LabelMap, maxValue float64) ([][]float64, error) {
	h, err := IntensityHistogram(img, regions, RetinaBins, maxValue)
	if err != nil {
		return nil, err
	}
	g, err := GLCM(img, regions, GLCMLevels, maxValue)
	if err != nil {
		return nil, err
	}
	return Concat(h, g)
}

// EMUnary is the paper's mitochondria descriptor: a 40-bin intensity
// histogram, the 8×8 GLCM over the three axes and the bias 1 (105 values
// per supervoxel) of a grey volume with samples in [0, maxValue].
func EMUnary(img *imageio.Volume, regions *imageio.LabelMap, maxValue float64) ([][]float64, error) {
	h, err := IntensityHistogram(img, regions, EMBins, maxValue)
	if err != nil {
		return nil, err
	}
	g, err := GLCM(img, regions, GLCMLevels, maxValue)
	if err != nil {
		return nil, err
	}
	return Concat(h, g, Bias(len(h)))
}
