package feature

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/psub/imageio"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confusion counts (true class, predicted class) pairs over nodes or
// voxels; the metrics below read it. Confusions of several images add up
// (Merge) for data-set-level scores; for per-image means, keep one per
// image.
type Confusion struct {
	K      int     // number of classes
	Counts []int64 // Counts[t*K+p]: items of true class t predicted as p
}

// NewConfusion returns an empty confusion over k classes.
func NewConfusion(k int) *Confusion {
	return &Confusion{k, make([]int64, k*k)}
}

// Add counts one item; it panics on a class outside [0, K) (a programmer
// error; AddLabels and AddMaps check user data).
func (c *Confusion) Add(truth, pred int) { c.Counts[truth*c.K+pred]++ }

// AddLabels counts aligned truth/prediction vectors, e.g. region labels.
func (c *Confusion) AddLabels(truth, pred []int) error {
	if len(truth) != len(pred) {
		return fmt.Errorf("confusion: %d true labels but %d predictions", len(truth), len(pred))
	}
	for i := range truth {
		if truth[i] < 0 || truth[i] >= c.K || pred[i] < 0 || pred[i] >= c.K {
			return fmt.Errorf("confusion: item %d: truth %d, prediction %d, expected 0..%d", i, truth[i], pred[i], c.K-1)
		}
		c.Add(truth[i], pred[i])
	}
	return nil
}

// AddMaps counts two voxel label maps of the same size.
func (c *Confusion) AddMaps(truth, pred *imageio.LabelMap) error {
	if err := checkMap("truth", truth); err != nil {
		return err
	}
	if err := checkMap("prediction", pred); err != nil {
		return err
	}
	if truth.Width != pred.Width || truth.Height != pred.Height || truth.Depth != pred.Depth {
		return fmt.Errorf("confusion: truth is %dx%dx%d but prediction is %dx%dx%d",
			truth.Width, truth.Height, truth.Depth, pred.Width, pred.Height, pred.Depth)
	}
	for i, t := range truth.Labels {
		p := pred.Labels[i]
		if t < 0 || int(t) >= c.K || p < 0 || int(p) >= c.K {
			x, y, z := coords(truth, i)
			return fmt.Errorf("confusion: voxel (%d,%d,%d): truth %d, prediction %d, expected 0..%d", x, y, z, t, p, c.K-1)
		}
		c.Counts[int(t)*c.K+int(p)]++
	}
	return nil
}

// Merge adds the counts of o (same K) to c.
func (c *Confusion) Merge(o *Confusion) error {
	if o.K != c.K {
		return fmt.Errorf("confusion: merging %d classes into %d", o.K, c.K)
	}
	for i, v := range o.Counts {
		c.Counts[i] += v
	}
	return nil
}

// Total is the number of items counted.
func (c *Confusion) Total() int64 {
	var s int64
	for _, v := range c.Counts {
		s += v
	}
	return s
}

// Accuracy is the global accuracy: the fraction of items predicted right
// (1 − Hamming loss); NaN when empty.
func (c *Confusion) Accuracy() float64 {
	var right int64
	for k := range c.K {
		right += c.Counts[k*c.K+k]
	}
	return float64(right) / float64(c.Total())
}

// Recall returns, per class, the fraction of its items predicted right
// (NaN for a class absent from the truth).
func (c *Confusion) Recall() []float64 {
	out := make([]float64, c.K)
	for t := range c.K {
		var n int64
		for p := range c.K {
			n += c.Counts[t*c.K+p]
		}
		out[t] = float64(c.Counts[t*c.K+t]) / float64(n)
	}
	return out
}

// ClassAveraged is the class-averaged accuracy 1 − Δ_avg: the mean of the
// per-class recalls over the classes present in the truth (NaN if none).
func (c *Confusion) ClassAveraged() float64 {
	return nanMean(c.Recall())
}

// IoU returns, per class k, the intersection over union (Jaccard index)
// TP/(TP+FP+FN); NaN for a class absent from both truth and prediction.
func (c *Confusion) IoU() []float64 {
	out := make([]float64, c.K)
	for k := range c.K {
		var row, col int64
		for j := range c.K {
			row += c.Counts[k*c.K+j]
			col += c.Counts[j*c.K+k]
		}
		tp := c.Counts[k*c.K+k]
		out[k] = float64(tp) / float64(row+col-tp)
	}
	return out
}

// VOC is the PASCAL VOC score: the mean IoU over classes, i.e. for binary
// segmentation the mean of foreground and background IoU. Classes with NaN
// IoU (absent everywhere) are left out.
func (c *Confusion) VOC() float64 { return nanMean(c.IoU()) }

func nanMean(xs []float64) float64 {
	s, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			s += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// HammingAccuracy is 1 − the Hamming loss for multi-label classification:
// the fraction of (sample, label) entries where pred equals truth. Rows are
// samples, columns labels (0/1 or any integers); shapes must match.
func HammingAccuracy(truth, pred [][]int) (float64, error) {
	if len(truth) != len(pred) {
		return 0, fmt.Errorf("hamming: %d true rows but %d predicted", len(truth), len(pred))
	}
	var same, total int
	for i := range truth {
		if len(truth[i]) != len(pred[i]) {
			return 0, fmt.Errorf("hamming: sample %d has %d true labels but %d predicted", i, len(truth[i]), len(pred[i]))
		}
		for j := range truth[i] {
			if truth[i][j] == pred[i][j] {
				same++
			}
		}
		total += len(truth[i])
	}
	if total == 0 {
		return 0, fmt.Errorf("hamming: no labels")
	}
	return float64(same) / float64(total), nil
}

// PairedTTest is Student's paired t-test of the hypothesis that the pairs
// (a[i], b[i]) have equal means: t = mean(d)/(sd(d)/√n) with d = a − b and
// the sample standard deviation sd (n − 1 in the denominator), and the
// two-sided p-value from Student's t with n − 1 degrees of freedom
// (gonum's distuv.StudentsT). If every difference is equal, t is ±Inf with
// p = 0 (or t = 0, p = 1 when they are all zero).
func PairedTTest(a, b []float64) (t, p float64, err error) {
	if len(a) != len(b) {
		return 0, 0, fmt.Errorf("t-test: %d and %d values, expected pairs", len(a), len(b))
	}
	n := len(a)
	if n < 2 {
		return 0, 0, fmt.Errorf("t-test: %d pairs, need at least 2", n)
	}
	mean := 0.0
	for i := range a {
		mean += a[i] - b[i]
	}
	mean /= float64(n)
	ss := 0.0
	for i := range a {
		d := a[i] - b[i] - mean
		ss += d * d
	}
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return 0, 0, fmt.Errorf("t-test: non-finite values")
	}
	se := math.Sqrt(ss / float64(n-1) / float64(n))
	if se == 0 {
		if mean == 0 {
			return 0, 1, nil
		}
		return math.Copysign(math.Inf(1), mean), 0, nil
	}
	t = mean / se
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	p = 2 * dist.Survival(math.Abs(t))
	return t, p, nil
}
