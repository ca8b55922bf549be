package samplecomplexity

import (
	"context"
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

// The stages of the sample-complexity protocol (grid.Job.Tag).
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

// Jobs implements Protocol: every job is known from the settings.
func (sc Experiment) Jobs(p protocol.Profile, _ []grid.Result) ([]grid.Job, error) {
	s := sc.Settings(p)
	var jobs []grid.Job
	for _, n := range s.Sizes {
		for rep := range max(s.Repeats, 1) {
			jobs = append(jobs, grid.Job{Dataset: "cows", Set: sizeLabel("n", n), Fold: rep, Tag: StageCoverage})
		}
	}
	for _, k := range s.TrainImages {
		jobs = append(jobs, grid.Job{Dataset: "cows", Set: sizeLabel("k", k), Loss: psub.Hamming{}.Name(), C: s.C, Tag: StageC4})
	}
	for _, d := range s.ControlDims {
		for _, n := range s.ControlSizes {
			jobs = append(jobs, grid.Job{Dataset: controlDataset(d), Set: sizeLabel("n", n), Tag: StageControl})
		}
	}
	return jobs, nil
}

// Group implements Protocol: the jobs do not depend on each other.
func (Experiment) Group(j grid.Job) string { return j.Key() }

func sizeLabel(name string, n int) string { return name + "=" + strconv.Itoa(n) }

func controlDataset(d int) string { return fmt.Sprintf("uniform-%dd", d) }

// jobSize reads the size of a job's Set ("n=1024" → 1024).
func jobSize(j grid.Job) (int, error) {
	_, v, ok := strings.Cut(j.Set, "=")
	n, err := strconv.Atoi(v)
	if !ok || err != nil || n < 1 {
		return 0, fmt.Errorf("job %s: set %q is not a size (want n=N or k=K)", j.Key(), j.Set)
	}
	return n, nil
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
	return protocol.RunStaged(ctx, sc, opt, w.run, w.s.params(), nil)
}

// sampleWork runs the protocol's jobs on the lazily built cows.
type sampleWork struct {
	s           Settings
	load        func() error
	train, test []psub.Instance
	prep        *psub.Prepared // train, prepared (psub.Prepare)
	pool, held  [][]float64    // pairwise features of train and test
}

func (w *sampleWork) run(_ context.Context, j grid.Job) (map[string]float64, error) {
	n, err := jobSize(j)
	if err != nil {
		return nil, err
	}
	if j.Tag == StageControl {
		return w.control(j, n)
	}
	if err := w.load(); err != nil {
		return nil, err
	}
	switch j.Tag {
	case StageCoverage:
		if n > len(w.pool) {
			return nil, fmt.Errorf("coverage: n = %d exceeds the pool's %d training edges", n, len(w.pool))
		}
		hull, cone, err := coverageAt(w.pool, w.held, n, j.Fold, w.s.Queries, coverageSeed)
		if err != nil {
			return nil, err
		}
		return map[string]float64{"n": float64(n), "outside_hull": hull, "outside_cone": cone,
			"dim": float64(len(w.pool[0])), "pool_edges": float64(len(w.pool)), "test_edges": float64(len(w.held))}, nil
	case StageC4:
		return w.c4(n)
	}
	return nil, fmt.Errorf("job %s: unknown stage %q", j.Key(), j.Tag)
}

// c4 trains C4 on the first k training images and measures its
// non-submodular test fraction and the coverage of the test edges by the
// hull and cone of its own training edges.
func (w *sampleWork) c4(k int) (map[string]float64, error) {
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
	return map[string]float64{"images": float64(k), "edges": float64(pt.Edges), "nonsubmodular_test": pt.Fraction,
		"own_outside_hull": hull, "own_outside_cone": cone,
		"iterations": float64(pt.Iters), "converged": protocol.BoolMetric(pt.Converged), "train_seconds": pt.Seconds}, nil
}

// control measures the hull and cone coverage of n uniform points on
// [0,1]^d.
func (w *sampleWork) control(j grid.Job, n int) (map[string]float64, error) {
	var d int
	if _, err := fmt.Sscanf(j.Dataset, "uniform-%dd", &d); err != nil || d < 1 {
		return nil, fmt.Errorf("job %s: data set %q is not uniform-Dd", j.Key(), j.Dataset)
	}
	train, held := controlPoints(d, slices.Max(w.s.ControlSizes), w.s.ControlQueries)
	hull, cone, err := coverageAt(train, held, n, 0, 0, controlSeed)
	if err != nil {
		return nil, err
	}
	return map[string]float64{"n": float64(n), "dim": float64(d), "outside_hull": hull, "outside_cone": cone}, nil
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

// Coverage aggregates the coverage rows of one data set ("cows", or a
// control's "uniform-2d") into feature.CoveragePoints: per n, the mean over
// repeats and its standard error (0 for one repeat), in the order of the
// rows. Failed rows are left out.
func (Experiment) Coverage(rows []grid.Result, dataset string) []feature.CoveragePoint {
	var mine []grid.Result
	for _, r := range rows {
		if r.Dataset == dataset && (r.Tag == StageCoverage || r.Tag == StageControl) {
			mine = append(mine, r)
		}
	}
	cone := map[string]grid.Summary{}
	for _, c := range grid.Summarize(mine, "outside_cone") {
		cone[c.Set] = c
	}
	var out []feature.CoveragePoint
	for _, h := range grid.Summarize(mine, "outside_hull") {
		n, _ := jobSize(grid.Job{Set: h.Set})
		c := cone[h.Set]
		out = append(out, feature.CoveragePoint{N: n, OutsideHull: h.Mean, HullStdErr: h.StdErr,
			OutsideCone: c.Mean, ConeStdErr: c.StdErr})
	}
	return out
}

// CoverageTable is the cows coverage as a table: n, and the fractions
// outside the hull and the cone (mean ± standard error over repeats).
func (sc Experiment) CoverageTable(rows []grid.Result) protocol.Table {
	t := protocol.Table{Title: "held-out cow pairwise features outside the hull and cone of n training features",
		Header: []string{"n training features", "outside hull", "outside cone"}}
	for _, c := range sc.Coverage(rows, "cows") {
		t.Rows = append(t.Rows, []string{strconv.Itoa(c.N), fmt.Sprintf("%.3f ± %.3f", c.OutsideHull, c.HullStdErr),
			fmt.Sprintf("%.3f ± %.3f", c.OutsideCone, c.ConeStdErr)})
	}
	return t
}

// C4Point is one C4 model of the protocol.
type C4Point struct {
	Images, Edges  int     // training images and their edges
	NonSubmodular  float64 // fraction of the test edges
	OwnOutsideCone float64 // fraction of the sampled test edges outside the cone of its training edges
	OwnOutsideHull float64
	Iterations     int
	Converged      bool
	Seconds        float64
}

// C4 lists the C4 models' rows in order of their training images. Failed
// rows are left out.
func (Experiment) C4(rows []grid.Result) []C4Point {
	var out []C4Point
	for _, r := range rows {
		if r.Tag != StageC4 || r.Error != "" {
			continue
		}
		m := r.Metrics
		out = append(out, C4Point{Images: int(m["images"]), Edges: int(m["edges"]), NonSubmodular: m["nonsubmodular_test"],
			OwnOutsideCone: m["own_outside_cone"], OwnOutsideHull: m["own_outside_hull"],
			Iterations: int(m["iterations"]), Converged: m["converged"] == 1, Seconds: m["train_seconds"]})
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
			strconv.Itoa(p.Iterations), strconv.FormatBool(p.Converged), fmt.Sprintf("%.1f", p.Seconds)})
	}
	return t
}

// Dim is the dimension of the cow pairwise features (0 without a coverage
// row).
func (Experiment) Dim(rows []grid.Result) int {
	for _, r := range rows {
		if r.Tag == StageCoverage && r.Error == "" {
			return int(r.Metrics["dim"])
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
		for _, pt := range sc.Coverage(rows, controlDataset(d)) {
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
