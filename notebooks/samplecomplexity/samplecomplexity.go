package samplecomplexity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
)

// Experiment is the paper's §4 (notebooks/TARGETS.md §6) on the TU
// Darmstadt cows' pairwise features: the fraction of held-out features
// outside the convex hull and outside the convex cone of n training
// features as n grows; the fraction of test edges on which a C4 model
// trained on the first k images is non-submodular, beside the fraction
// outside the cone of its own training edges; and, as a check of the
// machinery, the hull coverage of uniform samples of the unit square and
// cube, where the polytope rate log^{d−1} n / n applies.
//
// Its jobs are independent (each its own group), one per unit of work, told
// apart by Tag (the stage) and Set (the size of the unit's training set):
//
//	coverage  Dataset "cows", Set "n=N", Fold the repeat
//	c4        Dataset "cows", Set "k=K" (the first K images), Loss "hamming", C psub's C
//	control   Dataset "uniform-Dd", Set "n=N"
type Experiment struct{}

func init() { protocol.Register(Experiment{}) }

// Name implements Protocol.
func (Experiment) Name() string { return "sample-complexity" }

// Title implements Protocol.
func (Experiment) Title() string {
	return "§6 (paper §4) cows: held-out pairwise features outside the hull and cone of n training features; C4's non-submodular test fraction; a uniform-polytope control"
}

// The stages of the sample-complexity protocol (Job.Stage).
const (
	StageCoverage = "coverage"
	StageC4       = "c4"
	StageControl  = "control"
)

// Seeds of the protocol's random draws, as notebook 06 has always used
// them: the coverage sample (with the repeat), the sample of held-out
// features tested against a C4 model's own cone, the control's coverage
// sample, and the control's points (with the dimension).
const (
	coverageSeed     = 1
	ownConeSeed      = 2
	controlSeed      = 3
	controlDrawSeed2 = 7
)

// Settings are the protocol's settings for one profile.
type Settings struct {
	// Images is how many cow images are built (0: all 111, in name order),
	// each shrunk by Downscale (1: full resolution); the last TestImages are
	// the test images, the others the pool of training features.
	Images, Downscale, TestImages int
	// Sizes are the numbers n of training features, drawn at random from
	// the pool's edges (nested prefixes of one random order per repeat);
	// Queries held-out features (a random sample of the test edges) are
	// tested per repeat, Repeats times.
	Sizes            []int
	Queries, Repeats int
	// TrainImages are the k of the C4 models (Hamming loss, Algorithm 2)
	// trained on all edges of the first k training images, at psub's C and
	// relative gap Tol; BoundQueries test edges are tested against the cone
	// of each model's own training edges.
	TrainImages  []int
	BoundQueries int
	C, Tol       float64
	// MaxIter caps the C4 models' cutting-plane iterations (0: psub's
	// 1 000) and Cache is their inference cache (psub.Tuning.Cache).
	MaxIter, Cache int
	// ControlDims are the dimensions d of the control, uniform points on
	// [0,1]^d; ControlSizes its n (the largest is how many training points
	// are drawn), ControlQueries its held-out points.
	ControlDims    []int
	ControlSizes   []int
	ControlQueries int
}

// Settings are the protocol's settings for a profile. Full and Quick are
// those of notebook 06.
func (Experiment) Settings(p protocol.Profile) Settings {
	// Full: every cow image (the last 11 the test images), 200 held-out
	// features × 2 repeats, n up to 32768, C4 models on 1 … 100 images.
	s := Settings{Downscale: 1, TestImages: 11, Queries: 200, Repeats: 2,
		Sizes:       []int{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768},
		TrainImages: []int{1, 2, 4, 8, 16, 32, 64, 100}, BoundQueries: 200, C: 1, Tol: 1e-3,
		// psub's cap of 1 000 stopped the k = 64 model before the
		// tolerance (full run at 2436190); the cache: see Cows.Settings.
		MaxIter: 5000, Cache: 10,
		ControlDims:  []int{2, 3},
		ControlSizes: []int{8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192}, ControlQueries: 4000}
	switch p {
	case protocol.Quick:
		// 16 images (8 + 8), fewer of everything.
		s.Images, s.TestImages, s.Queries, s.Repeats, s.BoundQueries = 16, 8, 60, 1, 30
		s.Sizes = []int{10, 30, 100, 300, 1000, 3000}
		s.TrainImages, s.Tol = []int{1, 2, 4}, 1e-2
		s.ControlSizes, s.ControlQueries = []int{10, 30, 100, 300, 1000, 3000}, 1000
	case protocol.Tiny:
		// 4 images at half resolution (2 + 2), two repeats of 10 queries.
		s.Images, s.Downscale, s.TestImages, s.Queries, s.Repeats, s.BoundQueries = 4, 2, 2, 10, 2, 10
		s.Sizes = []int{10, 100, 600}
		s.TrainImages, s.Tol = []int{1, 2}, 1e-2
		s.ControlSizes, s.ControlQueries = []int{10, 100}, 50
	}
	return s
}

// params is what every job depends on besides its own key: the settings
// without the grid's axes, plus the control's number of drawn training
// points (its largest size), which shifts the draw of its held-out points.
func (s Settings) params() any {
	pool := 0
	if len(s.ControlSizes) > 0 {
		pool = slices.Max(s.ControlSizes)
	}
	s.Sizes, s.TrainImages, s.ControlSizes, s.ControlDims, s.Repeats = nil, nil, nil, nil, 0
	return struct {
		Settings    Settings
		ControlPool int
	}{s, pool}
}

// Job is one job of a stage: Coverage of N features of the cows pool in
// repeat Rep, the C4 model on the first N training images at psub's C, or
// the Control of N uniform points in Dim dimensions.
type Job struct {
	Stage string
	N     int
	Rep   int     // coverage
	C     float64 // c4
	Dim   int     // control
}

// cell is the job as its results file names it: data set "cows" (the
// control's "uniform-<Dim>d"), set "n=<N>" (the C4 model's "k=<N>"),
// fold the repeat, tag the stage.
func (j Job) cell() grid.Job {
	c := grid.Job{Dataset: "cows", Set: "n=" + strconv.Itoa(j.N), C: j.C, Fold: j.Rep, Tag: j.Stage}
	switch j.Stage {
	case StageC4:
		c.Set, c.Loss = "k="+strconv.Itoa(j.N), psub.Hamming{}.Name()
	case StageControl:
		c.Dataset = fmt.Sprintf("uniform-%dd", j.Dim)
	}
	return c
}

// MarshalJSON writes the job's cell.
func (j Job) MarshalJSON() ([]byte, error) { return json.Marshal(j.cell()) }

// UnmarshalJSON reads a cell written by MarshalJSON, and no other.
func (j *Job) UnmarshalJSON(b []byte) error {
	var c grid.Job
	if err := json.Unmarshal(b, &c); err != nil {
		return err
	}
	*j = Job{Stage: c.Tag, Rep: c.Fold, C: c.C}
	_, n, _ := strings.Cut(c.Set, "=")
	j.N, _ = strconv.Atoi(n)
	fmt.Sscanf(c.Dataset, "uniform-%dd", &j.Dim)
	if j.cell() != c || j.N < 1 || !slices.Contains([]string{StageCoverage, StageC4, StageControl}, j.Stage) {
		return fmt.Errorf("sample complexity: job %s is none of the protocol's (want cows|n=N|||rep|coverage, cows|k=N|hamming|C|0|c4, uniform-Dd|n=N|||0|control)", c.Key())
	}
	return nil
}

// Metrics are a row's measurements: those of Coverage for the coverage
// and control stages, of C4Point for the C4 models.
type Metrics struct {
	*CoverageRow
	*C4Point
}

// CoverageRow is what a coverage or control job measures: the fractions of
// held-out points outside the hull and the cone of N training points of
// dimension Dim (and, for cows, the numbers of pool and test edges).
type CoverageRow struct {
	N           int     `json:"n"`
	Dim         int     `json:"dim"`
	OutsideHull float64 `json:"outside_hull"`
	OutsideCone float64 `json:"outside_cone"`
	*Edges
}

// Edges are the cows' numbers of pool and test edges.
type Edges struct {
	Pool int `json:"pool_edges"`
	Test int `json:"test_edges"`
}

// Jobs implements Protocol: every job is known from the settings.
func (sc Experiment) Jobs(p protocol.Profile, _ []grid.Result) ([]grid.Job, error) {
	return grid.Cells(sc.jobs(p))
}

func (sc Experiment) jobs(p protocol.Profile) []Job {
	s := sc.Settings(p)
	var jobs []Job
	for _, n := range s.Sizes {
		for rep := range max(s.Repeats, 1) {
			jobs = append(jobs, Job{Stage: StageCoverage, N: n, Rep: rep})
		}
	}
	for _, k := range s.TrainImages {
		jobs = append(jobs, Job{Stage: StageC4, N: k, C: s.C})
	}
	for _, d := range s.ControlDims {
		for _, n := range s.ControlSizes {
			jobs = append(jobs, Job{Stage: StageControl, N: n, Dim: d})
		}
	}
	return jobs
}

// Group implements Protocol: the jobs do not depend on each other.
func (Experiment) Group(j grid.Job) string { return j.Key() }

// rowsOf reads rows as the protocol's (a row that does not read is failed).
func rowsOf(rows []grid.Result) []grid.Row[Job, Metrics] {
	typed, _ := grid.Rows[Job, Metrics](rows)
	return typed
}

// Build builds the profile's cow images (superpixel graphs, cached on disk
// by data.DefaultSegmentCache).
func (sc Experiment) Build(p protocol.Profile, building func(done, total int)) (*data.SegmentedSet, error) {
	s := sc.Settings(p)
	return data.BuildCows(data.ImageSetOptions{Limit: s.Images, Downscale: s.Downscale,
		Cache: data.DefaultSegmentCache(), Progress: building})
}

// Split returns the training images (the pool) and the test images (the
// last TestImages) of a built set.
func (sc Experiment) Split(p protocol.Profile, set *data.SegmentedSet) (train, test []psub.Instance, err error) {
	all := set.Instances()
	k := len(all) - sc.Settings(p).TestImages
	if k < 1 || k >= len(all) {
		return nil, nil, fmt.Errorf("sample complexity: %d images cannot hold %d test images and a training pool", len(all), sc.Settings(p).TestImages)
	}
	return all[:k], all[k:], nil
}

// Run implements Protocol. The cow images are built when the first job
// that needs them runs, so a run whose rows are all stored reads only its
// results file.
func (sc Experiment) Run(ctx context.Context, opt protocol.Options) ([]grid.Result, error) {
	opt, err := opt.WithDefaults(sc.Name())
	if err != nil {
		return nil, err
	}
	w := &sampleWork{s: sc.Settings(opt.Profile)}
	w.load = sync.OnceValue(func() error {
		set, err := sc.Build(opt.Profile, opt.Building)
		if err != nil {
			return err
		}
		opt.Logf("%s", set.Description)
		if w.train, w.test, err = sc.Split(opt.Profile, set); err != nil {
			return err
		}
		w.pool, w.held = PairwiseRows(w.train), PairwiseRows(w.test)
		w.prep, err = psub.Prepare(w.train, 2)
		return err
	})
	return protocol.RunStaged(ctx, sc, opt, grid.Func(w.run), w.s.params(), nil)
}

// sampleWork runs the protocol's jobs on the lazily built cows.
type sampleWork struct {
	s           Settings
	load        func() error
	train, test []psub.Instance
	prep        *psub.Prepared // train, prepared (psub.Prepare)
	pool, held  [][]float64    // pairwise features of train and test
}

func (w *sampleWork) run(_ context.Context, j Job) (Metrics, error) {
	if j.Stage == StageControl {
		c, err := w.control(j.Dim, j.N)
		return Metrics{CoverageRow: c}, err
	}
	if err := w.load(); err != nil {
		return Metrics{}, err
	}
	switch j.Stage {
	case StageCoverage:
		if j.N > len(w.pool) {
			return Metrics{}, fmt.Errorf("coverage: n = %d exceeds the pool's %d training edges", j.N, len(w.pool))
		}
		hull, cone, err := coverageAt(w.pool, w.held, j.N, j.Rep, w.s.Queries, coverageSeed)
		return Metrics{CoverageRow: &CoverageRow{N: j.N, OutsideHull: hull, OutsideCone: cone,
			Dim: len(w.pool[0]), Edges: &Edges{Pool: len(w.pool), Test: len(w.held)}}}, err
	case StageC4:
		c, err := w.c4(j.N)
		return Metrics{C4Point: c}, err
	}
	return Metrics{}, fmt.Errorf("job %s: unknown stage %q", j.cell().Key(), j.Stage)
}

// c4 trains C4 on the first k training images and measures its
// non-submodular test fraction and the coverage of the test edges by the
// hull and cone of its own training edges.
func (w *sampleWork) c4(k int) (*C4Point, error) {
	if k > len(w.train) {
		return nil, fmt.Errorf("c4: %d training images asked, the pool has %d", k, len(w.train))
	}
	settings := psub.Settings{Set: psub.C4{}, C: w.s.C, Tol: w.s.Tol, MaxIter: w.s.MaxIter, Delayed: true, Workers: 1,
		Tuning: psub.Tuning{Cache: w.s.Cache}}
	pts, err := nonSubmodularCurve(w.prep, w.train, w.test, []int{k}, settings, 0, nil)
	if err != nil {
		return nil, err
	}
	pt := pts[0]
	own := PairwiseRows(w.train[:k])
	hull, cone, err := coverageAt(own, w.held, len(own), 0, w.s.BoundQueries, ownConeSeed)
	if err != nil {
		return nil, err
	}
	return &C4Point{Images: k, Edges: pt.Edges, NonSubmodular: pt.Fraction, OwnOutsideHull: hull, OwnOutsideCone: cone,
		Iterations: pt.Iters, Converged: grid.Flag(pt.Converged), Seconds: pt.Seconds}, nil
}

// control measures the hull and cone coverage of n uniform points on
// [0,1]^d.
func (w *sampleWork) control(d, n int) (*CoverageRow, error) {
	if d < 1 {
		return nil, fmt.Errorf("control: dimension %d", d)
	}
	train, held := controlPoints(d, slices.Max(w.s.ControlSizes), w.s.ControlQueries)
	hull, cone, err := coverageAt(train, held, n, 0, 0, controlSeed)
	if err != nil {
		return nil, err
	}
	return &CoverageRow{N: n, Dim: d, OutsideHull: hull, OutsideCone: cone}, nil
}

// controlPoints draws the control's training points, then its held-out
// points, uniformly on [0,1]^d from one stream seeded by d.
func controlPoints(d, train, held int) (tr, he [][]float64) {
	rng := rand.New(rand.NewPCG(uint64(d), controlDrawSeed2))
	draw := func(n int) [][]float64 {
		pts := make([][]float64, n)
		for i := range pts {
			pts[i] = make([]float64, d)
			for k := range pts[i] {
				pts[i][k] = rng.Float64()
			}
		}
		return pts
	}
	tr = draw(train)
	return tr, draw(held)
}

// coverageAt is feature.Coverage for one size n and one repeat rep: the
// fractions of held-out points (a sample of queries, 0 meaning all) outside
// the hull and outside the cone of the first n points of a random order of
// train. It draws as feature.Coverage does, from a stream seeded by (seed,
// rep): the order of train, then the queries; so it gives Coverage's
// numbers, without the nesting across sizes that would tie the sizes of a
// repeat into one job.
func coverageAt(train, held [][]float64, n, rep, queries int, seed uint64) (outHull, outCone float64, err error) {
	if n < 1 || n > len(train) {
		return 0, 0, fmt.Errorf("coverage: n = %d not within 1..%d (training points)", n, len(train))
	}
	if len(held) == 0 {
		return 0, 0, errors.New("coverage: no held-out points")
	}
	nq := queries
	if nq <= 0 || nq > len(held) {
		nq = len(held)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(rep)))
	perm := rng.Perm(len(train))
	qidx := rng.Perm(len(held))[:nq]
	pts := make([][]float64, n)
	for k := range pts {
		pts[k] = train[perm[k]]
	}
	h, err := feature.NewHull(pts)
	if err != nil {
		return 0, 0, fmt.Errorf("coverage: n = %d: %w", n, err)
	}
	// The hull first: inside it (most test edges once n is large) a point
	// is inside the cone too, whose residual is never above the hull's,
	// and one NNLS answers both.
	oh, oc := 0, 0
	for _, qi := range qidx {
		in, err := h.InHull(held[qi])
		if err != nil {
			return 0, 0, fmt.Errorf("coverage: held-out point %d: %w", qi, err)
		}
		if in {
			continue
		}
		oh++
		if in, err = h.InCone(held[qi]); err != nil {
			return 0, 0, fmt.Errorf("coverage: held-out point %d: %w", qi, err)
		}
		if !in {
			oc++
		}
	}
	return float64(oh) / float64(nq), float64(oc) / float64(nq), nil
}

// Coverage aggregates the coverage rows of the cows (dim 0) or of the
// control in dim dimensions into feature.CoveragePoints: per n, the mean
// over repeats and its standard error (0 for one repeat), in the order of
// the rows. Failed rows are left out.
func (Experiment) Coverage(rows []grid.Result, dim int) []feature.CoveragePoint {
	var ns []int
	hull, cone := map[int][]float64{}, map[int][]float64{}
	for _, r := range rowsOf(rows) {
		if r.Error != "" || r.Job.Dim != dim || r.Metrics.CoverageRow == nil {
			continue
		}
		n := r.Job.N
		if hull[n] == nil {
			ns = append(ns, n)
		}
		hull[n], cone[n] = append(hull[n], r.Metrics.OutsideHull), append(cone[n], r.Metrics.OutsideCone)
	}
	out := make([]feature.CoveragePoint, len(ns))
	for i, n := range ns {
		out[i].N = n
		out[i].OutsideHull, out[i].HullStdErr = grid.MeanSE(hull[n])
		out[i].OutsideCone, out[i].ConeStdErr = grid.MeanSE(cone[n])
	}
	return out
}

// CoverageTable is the cows coverage as a table: n, and the fractions
// outside the hull and the cone (mean ± standard error over repeats).
func (sc Experiment) CoverageTable(rows []grid.Result) protocol.Table {
	t := protocol.Table{Title: "held-out cow pairwise features outside the hull and cone of n training features",
		Header: []string{"n training features", "outside hull", "outside cone"}}
	for _, c := range sc.Coverage(rows, 0) {
		t.Rows = append(t.Rows, []string{strconv.Itoa(c.N), fmt.Sprintf("%.3f ± %.3f", c.OutsideHull, c.HullStdErr),
			fmt.Sprintf("%.3f ± %.3f", c.OutsideCone, c.ConeStdErr)})
	}
	return t
}

// C4Point is one C4 model of the protocol.
type C4Point struct {
	Images         int       `json:"images"`             // training images
	Edges          int       `json:"edges"`              // their edges
	NonSubmodular  float64   `json:"nonsubmodular_test"` // fraction of the test edges
	OwnOutsideCone float64   `json:"own_outside_cone"`   // fraction of the sampled test edges outside the cone of its training edges
	OwnOutsideHull float64   `json:"own_outside_hull"`
	Iterations     int       `json:"iterations"`
	Converged      grid.Flag `json:"converged"`
	Seconds        float64   `json:"train_seconds"`
}

// C4 lists the C4 models' rows in order of their training images. Failed
// rows are left out.
func (Experiment) C4(rows []grid.Result) []C4Point {
	var out []C4Point
	for _, r := range rowsOf(rows) {
		if r.Error == "" && r.Metrics.C4Point != nil {
			out = append(out, *r.Metrics.C4Point)
		}
	}
	slices.SortFunc(out, func(a, b C4Point) int { return a.Images - b.Images })
	return out
}

// C4Table is the C4 models as a table.
func (sc Experiment) C4Table(rows []grid.Result) protocol.Table {
	t := protocol.Table{Title: "C4 models: non-submodular test edges and the bound of their own training cone",
		Header: []string{"training images", "training edges", "non-submodular test edges", "outside own cone (bound)",
			"outside own hull", "iterations", "converged", "seconds"}}
	for _, p := range sc.C4(rows) {
		t.Rows = append(t.Rows, []string{strconv.Itoa(p.Images), strconv.Itoa(p.Edges), fmt.Sprintf("%.4f", p.NonSubmodular),
			fmt.Sprintf("%.3f", p.OwnOutsideCone), fmt.Sprintf("%.3f", p.OwnOutsideHull),
			strconv.Itoa(p.Iterations), strconv.FormatBool(bool(p.Converged)), fmt.Sprintf("%.1f", p.Seconds)})
	}
	return t
}

// Dim is the dimension of the cow pairwise features (0 without a coverage
// row).
func (Experiment) Dim(rows []grid.Result) int {
	for _, r := range rowsOf(rows) {
		if r.Job.Stage == StageCoverage && r.Error == "" && r.Metrics.CoverageRow != nil {
			return r.Metrics.Dim
		}
	}
	return 0
}

// ControlCurve is the control in one dimension: the fraction of held-out
// points outside the hull of n uniform points, and the polytope rate
// Ref = Scale · log^{d−1}(n) / n.
type ControlCurve struct {
	Dim         int
	N           []float64
	OutsideHull []float64
	Ref         []float64
	// Scale is fitted by least squares in log space on the larger half of
	// the grid (where OutsideHull > 0): exp(mean(log y − log rate)).
	Scale float64
}

// Control returns the control's curves, one per dimension of the settings.
func (sc Experiment) Control(p protocol.Profile, rows []grid.Result) []ControlCurve {
	var out []ControlCurve
	for _, d := range sc.Settings(p).ControlDims {
		c := ControlCurve{Dim: d}
		var rate []float64
		for _, pt := range sc.Coverage(rows, d) {
			n := float64(pt.N)
			c.N, c.OutsideHull = append(c.N, n), append(c.OutsideHull, pt.OutsideHull)
			rate = append(rate, math.Pow(math.Log(n), float64(d-1))/n)
		}
		var s float64
		m := 0
		for i := len(c.N) / 2; i < len(c.N); i++ {
			if c.OutsideHull[i] > 0 {
				s += math.Log(c.OutsideHull[i]) - math.Log(rate[i])
				m++
			}
		}
		c.Scale = math.Exp(s / float64(max(m, 1)))
		for _, r := range rate {
			c.Ref = append(c.Ref, c.Scale*r)
		}
		out = append(out, c)
	}
	return out
}

// PaperC4NonSubmodular is the paper's fraction of non-submodular test edges
// of C4 on cows, in % (table "tradeoff"; its 10-fold models see ~100
// images).
const PaperC4NonSubmodular = 0.0

// Comparison is the paper's non-submodular fraction of C4 on cows beside
// that of the C4 model trained on the most images (in %); ok is false
// without a C4 row.
func (sc Experiment) Comparison(rows []grid.Result) (c protocol.Comparison, ok bool) {
	pts := sc.C4(rows)
	if len(pts) == 0 {
		return c, false
	}
	last := pts[len(pts)-1]
	return protocol.Comparison{Title: "non-submodular test edges of C4, cows (%)", Corner: "set",
		Rows: []string{fmt.Sprintf("C4 (%d training images)", last.Images)}, Cols: []string{"cows"},
		Paper: [][]float64{{PaperC4NonSubmodular}}, Ours: [][]float64{{100 * last.NonSubmodular}}, Format: "%.2f"}, true
}
