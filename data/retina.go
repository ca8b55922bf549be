package data

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// RetinaImages is the size of the paper's UCSB retina set
// (notebooks/TARGETS.md §2): 50 images, 40 random folds of 40 train / 10
// test.
const (
	RetinaImages = 50
	RetinaFolds  = 40
	RetinaTest   = 10
	RetinaTol    = 1e-4
)

// SampleIndices draws k distinct indices of 0..n−1 with a seeded shuffle and
// returns them sorted. k ≥ n returns every index.
func SampleIndices(n, k int, seed uint64) ([]int, error) {
	if n < 1 || k < 1 {
		return nil, fmt.Errorf("sample: %d of %d examples (need n ≥ 1, k ≥ 1)", k, n)
	}
	idx := rand.New(rand.NewPCG(seed, 0x73616d706c65)).Perm(n)[:min(k, n)]
	slices.Sort(idx)
	return idx, nil
}

// BuildHorsesSample builds k of the 328 Weizmann horses drawn with seed
// (k ≤ 0 or ≥ 328: all of them), with BuildHorses' settings: the substitute
// for the paper's 50-image retina set (notebooks/TARGETS.md §2), where a
// seeded draw rather than the first k in name order keeps the sample
// unbiased. opt.Limit must be 0 (the sample replaces it); the other options
// act as in BuildHorses. Items keep name order.
func BuildHorsesSample(opt ImageSetOptions, k int, seed uint64) (*SegmentedSet, error) {
	if k <= 0 || k > HorsesImages {
		k = HorsesImages
	}
	opt.Sample, opt.SampleSeed = k, seed
	return BuildHorses(opt)
}
