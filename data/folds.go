package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
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
