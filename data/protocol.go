package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/probably-submodular/crf/psub/feature"
)

// Fold is one train/test split of example indices.
type Fold struct {
	Train, Test []int
}

// KFold splits n examples into k folds after a seeded shuffle: every example
// is tested exactly once, and test sizes differ by at most one. Indices in
// each part are sorted.
func KFold(n, k int, seed uint64) ([]Fold, error) {
	if k < 2 || k > n {
		return nil, fmt.Errorf("k-fold: %d folds of %d examples (need 2 ≤ k ≤ n)", k, n)
	}
	perm := rand.New(rand.NewPCG(seed, 0x6b666f6c64)).Perm(n)
	folds := make([]Fold, k)
	for f := range folds {
		lo, hi := f*n/k, (f+1)*n/k
		folds[f].Test = sortedCopy(perm[lo:hi])
		folds[f].Train = sortedCopy(append(append([]int(nil), perm[:lo]...), perm[hi:]...))
	}
	return folds, nil
}

// RandomFolds draws folds independent random splits of n examples, each with
// test examples held out (the retina protocol: 40 folds of 40 train / 10
// test). Fold f uses its own stream (seed, f).
func RandomFolds(n, folds, test int, seed uint64) ([]Fold, error) {
	if folds < 1 || test < 1 || test >= n {
		return nil, fmt.Errorf("random folds: %d folds with %d of %d examples held out (need folds ≥ 1, 1 ≤ test < n)", folds, test, n)
	}
	out := make([]Fold, folds)
	for f := range out {
		perm := rand.New(rand.NewPCG(seed, uint64(f))).Perm(n)
		out[f] = Fold{Train: sortedCopy(perm[test:]), Test: sortedCopy(perm[:test])}
	}
	return out, nil
}

// HoldOut splits idx into a training part and a validation part of
// round(frac·len(idx)) examples (at least one each), e.g. frac = 1/5 for the
// cows protocol's selection of C.
func HoldOut(idx []int, frac float64, seed uint64) (train, val []int, err error) {
	nv := int(math.Round(frac * float64(len(idx))))
	if frac <= 0 || frac >= 1 || nv < 1 || nv >= len(idx) {
		return nil, nil, fmt.Errorf("hold-out: %.3g of %d examples leaves an empty part", frac, len(idx))
	}
	perm := rand.New(rand.NewPCG(seed, 0x686f6c64)).Perm(len(idx))
	for i, p := range perm {
		if i < nv {
			val = append(val, idx[p])
		} else {
			train = append(train, idx[p])
		}
	}
	sort.Ints(train)
	sort.Ints(val)
	return train, val, nil
}

func sortedCopy(s []int) []int {
	c := append([]int(nil), s...)
	sort.Ints(c)
	return c
}

// LogSpace returns n values log-spaced from lo to hi inclusive (the paper's
// grids: LogSpace(0.1, 10, 5) for cows, LogSpace(1e-2, 1e3, 11) for EM).
func LogSpace(lo, hi float64, n int) []float64 {
	if n < 1 || lo <= 0 || hi <= 0 {
		panic(fmt.Sprintf("data: LogSpace(%v, %v, %d): need positive bounds and n ≥ 1", lo, hi, n))
	}
	if n == 1 {
		return []float64{lo}
	}
	out := make([]float64, n)
	a, b := math.Log10(lo), math.Log10(hi)
	for i := range out {
		e := (a*float64(n-1-i) + b*float64(i)) / float64(n-1)
		if r := math.Round(e); math.Abs(e-r) < 1e-12 {
			e = r // decades exact: Log10(0.1) is not exactly −1
		}
		out[i] = math.Pow(10, e)
	}
	out[0], out[n-1] = lo, hi // exact ends, free of round-off
	return out
}

// SelectC evaluates score (higher is better, e.g. accuracy on held-out
// data) at every C of grid, in order, and returns the best C with all
// scores. Ties go to the first best, so an ascending grid prefers the
// smaller C (the stronger regulariser). To evaluate in parallel, run the
// grid as jobs (RunGrid) and use BestByC.
func SelectC(grid []float64, score func(C float64) (float64, error)) (best float64, scores []float64, err error) {
	if len(grid) == 0 {
		return 0, nil, fmt.Errorf("select C: empty grid")
	}
	scores = make([]float64, len(grid))
	bi := -1
	for i, c := range grid {
		if scores[i], err = score(c); err != nil {
			return 0, nil, fmt.Errorf("select C: C=%g: %w", c, err)
		}
		if math.IsNaN(scores[i]) {
			return 0, nil, fmt.Errorf("select C: C=%g: score is NaN", c)
		}
		if bi < 0 || scores[i] > scores[bi] {
			bi = i
		}
	}
	return grid[bi], scores, nil
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
	var fa []int
	for f := range ma {
		fa = append(fa, f)
	}
	sort.Ints(fa)
	var xa, xb []float64
	for _, f := range fa {
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
