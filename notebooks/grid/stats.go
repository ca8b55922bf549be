package grid

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/probably-submodular/crf/psub/feature"
)

// Aggregate is the mean and standard error (sd/√n) across folds of the
// metric v over the successful rows of the given set and loss, whatever C
// each fold selected. n is the number of rows; NaN mean when there are
// none.
func Aggregate[M any](rs []Row[Job, M], set, loss string, v func(M) float64) (mean, se float64, n int) {
	var x []float64
	for _, r := range rs {
		if r.Error == "" && r.Job.Set == set && r.Job.Loss == loss {
			x = append(x, v(r.Metrics))
		}
	}
	if len(x) == 0 {
		return math.NaN(), math.NaN(), 0
	}
	mean, se = MeanSE(x)
	return mean, se, len(x)
}

// MeanSE is the mean of x and its standard error sd/√n (0 for one value).
func MeanSE(x []float64) (mean, se float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if n := len(x); n > 1 {
		ss := 0.0
		for _, v := range x {
			ss += (v - mean) * (v - mean)
		}
		se = math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	}
	return mean, se
}

// BestByC keeps, for every group of rows that differ only in C (same
// dataset, set, loss, fold and tag), the successful one with the highest
// metric v (NaN: none); ties go to the smaller C. Groups are returned in
// the order of their first row.
func BestByC[M any](rs []Row[Job, M], v func(M) float64) []Row[Job, M] {
	best := map[Job]int{}
	var order []Job
	for i, r := range rs {
		x := v(r.Metrics)
		if r.Error != "" || math.IsNaN(x) {
			continue
		}
		k := r.Job
		k.C = 0
		j, seen := best[k]
		if !seen {
			order = append(order, k)
		}
		if !seen || x > v(rs[j].Metrics) || x == v(rs[j].Metrics) && r.Job.C < rs[j].Job.C {
			best[k] = i
		}
	}
	out := make([]Row[Job, M], len(order))
	for i, k := range order {
		out[i] = rs[best[k]]
	}
	return out
}

// PairedAcrossFolds compares the metric v between two groups of rows (e.g.
// set C4 against set C1 after selection of C) paired by fold, with the
// paired t-test of psub/feature. Each fold must have exactly one row on
// each side. It returns t, the two-sided p-value and the number of folds;
// t > 0 means a scores higher.
func PairedAcrossFolds[M any](rs []Row[Job, M], v func(M) float64, a, b func(Job) bool) (t, p float64, folds int, err error) {
	side := func(sel func(Job) bool, name string) (map[int]float64, error) {
		m := map[int]float64{}
		for _, r := range rs {
			if !sel(r.Job) || r.Error != "" {
				continue
			}
			if _, dup := m[r.Job.Fold]; dup {
				return nil, fmt.Errorf("paired t-test: group %s has two results for fold %d (select C first, e.g. BestByC)", name, r.Job.Fold)
			}
			m[r.Job.Fold] = v(r.Metrics)
		}
		return m, nil
	}
	ma, err := side(a, "a")
	if err != nil {
		return 0, 0, 0, err
	}
	mb, err := side(b, "b")
	if err != nil {
		return 0, 0, 0, err
	}
	var xa, xb []float64
	for _, f := range slices.Sorted(maps.Keys(ma)) {
		vb, ok := mb[f]
		if !ok {
			return 0, 0, 0, fmt.Errorf("paired t-test: fold %d has a result in group a but not in b", f)
		}
		xa, xb = append(xa, ma[f]), append(xb, vb)
	}
	if len(mb) != len(ma) {
		return 0, 0, 0, fmt.Errorf("paired t-test: %d folds in group a, %d in b", len(ma), len(mb))
	}
	if len(xa) < 2 {
		return 0, 0, 0, fmt.Errorf("paired t-test: %d paired fold(s), need at least 2", len(xa))
	}
	t, p, err = feature.PairedTTest(xa, xb)
	return t, p, len(xa), err
}
