package grid

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/probably-submodular/crf/psub/feature"
)

// Summary is the mean and standard error of a metric over the folds of one
// (dataset, set, loss, C, tag) group.
type Summary struct {
	Dataset, Set, Loss, Tag string
	C                       float64
	Metric                  string
	Mean, StdErr            float64 // StdErr = sd/√n (0 for one fold)
	N                       int
}

// Summarize groups successful results by everything but the fold and
// returns the mean and standard error of metric, as the paper's tables
// report them (e.g. "80.0 ± .4"). Groups keep the order of first appearance.
func Summarize(rs []Result, metric string) []Summary {
	type key struct {
		d, s, l, t string
		c          float64
	}
	vals := map[key][]float64{}
	var order []key
	for _, r := range rs {
		v, ok := r.Metrics[metric]
		if r.Error != "" || !ok {
			continue
		}
		k := key{r.Dataset, r.Set, r.Loss, r.Tag, r.C}
		if _, seen := vals[k]; !seen {
			order = append(order, k)
		}
		vals[k] = append(vals[k], v)
	}
	out := make([]Summary, len(order))
	for i, k := range order {
		x := vals[k]
		mean, se := MeanSE(x)
		out[i] = Summary{Dataset: k.d, Set: k.s, Loss: k.l, Tag: k.t, C: k.c, Metric: metric, Mean: mean, StdErr: se, N: len(x)}
	}
	return out
}

// Aggregate is the mean and standard error (sd/√n) across folds of metric
// over the successful rows of the given set and loss, whatever C each fold
// selected. n is the number of rows; NaN mean when there are none.
func Aggregate(rs []Result, set, loss, metric string) (mean, se float64, n int) {
	var x []float64
	for _, r := range rs {
		if v, ok := r.Metrics[metric]; ok && r.Error == "" && r.Set == set && r.Loss == loss {
			x = append(x, v)
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

// BestByC keeps, for every group of results that differ only in C (same
// dataset, set, loss, fold and tag), the successful one with the highest
// metric; ties go to the smaller C. Groups are returned in the order of
// their first result.
func BestByC(rs []Result, metric string) []Result {
	type key struct {
		d, s, l, t string
		f          int
	}
	best := map[key]int{}
	var order []key
	for i, r := range rs {
		v, ok := r.Metrics[metric]
		if r.Error != "" || !ok || math.IsNaN(v) {
			continue
		}
		k := key{r.Dataset, r.Set, r.Loss, r.Tag, r.Fold}
		j, seen := best[k]
		if !seen {
			order = append(order, k)
		}
		if !seen || v > rs[j].Metrics[metric] || v == rs[j].Metrics[metric] && r.C < rs[j].C {
			best[k] = i
		}
	}
	out := make([]Result, len(order))
	for i, k := range order {
		out[i] = rs[best[k]]
	}
	return out
}

// PairedAcrossFolds compares a metric between two groups of results (e.g.
// set C4 against set C1 after selection of C) paired by fold, with the
// paired t-test of psub/feature. Each fold must have exactly one result on
// each side. It returns t, the two-sided p-value and the number of folds;
// t > 0 means a scores higher.
func PairedAcrossFolds(rs []Result, metric string, a, b func(Result) bool) (t, p float64, folds int, err error) {
	side := func(sel func(Result) bool, name string) (map[int]float64, error) {
		m := map[int]float64{}
		for _, r := range rs {
			if !sel(r) || r.Error != "" {
				continue
			}
			v, ok := r.Metrics[metric]
			if !ok {
				return nil, fmt.Errorf("paired t-test: result %s has no metric %q", r.Key(), metric)
			}
			if _, dup := m[r.Fold]; dup {
				return nil, fmt.Errorf("paired t-test: group %s has two results for fold %d (select C first, e.g. BestByC)", name, r.Fold)
			}
			m[r.Fold] = v
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
