package tradeoff

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// Experiment is notebook 07's experiment (the paper's §3, table "tradeoff"
// for reference): the capacity ladder C0 ⊂ C1 ⊂ C2 ⊂ C2* ⊆ C4, C2 ⊆ C3 ⊆ C4 against
// unconstrained training with approximate inference (TGC, QPBO, TRW-S) on
// the embedded synthetic segmentation (data.SyntheticSegmentation), one
// problem per seed, measured by RunLadder: the learner's objective and
// the certified objective of the final w, accuracy, and how exact inference
// is on the test images.
//
// Its jobs (Job) are independent fits, each its own group, one per seed
// and entry of the ladder; their metrics are the entry's Row.
type Experiment struct{}

// Job is one fit: an entry of the ladder (Ladder) with psub's C on the
// problem of a seed. Its row names the entry "set" and the seed "fold".
type Job struct {
	Dataset string  `json:"dataset"` // "synthetic"
	Entry   string  `json:"set"`
	Loss    string  `json:"loss"` // "hamming"
	C       float64 `json:"c"`
	Seed    int     `json:"fold"`
}

func init() { protocol.Register(Experiment{}) }

// Name implements Protocol.
func (Experiment) Name() string { return "tradeoff" }

// Title implements Protocol.
func (Experiment) Title() string {
	return "§3 capacity ladder C0…C4 against unconstrained TGC/QPBO/TRW-S on the synthetic segmentation: objective, accuracy, exactness"
}

// Settings are the protocol's settings for one profile.
type Settings struct {
	// Seeds are the synthetic problems, each with Train training and Test
	// test images.
	Seeds       []uint64
	Train, Test int
	// C (psub's scale) and Tol (relative gap) are the learner's settings
	// shared by every entry (Hamming loss).
	C, Tol float64
	// Entries are the names of the ladder's entries trained, in
	// Ladder's order.
	Entries []string
}

// Settings are the protocol's settings for a profile: the learner's paper
// defaults (C = 1, relative gap 1e-3); Full and Quick are notebook 07's
// and differ only in the number of images and of seeds.
func (Experiment) Settings(p protocol.Profile) Settings {
	var all []string
	for _, e := range Ladder() {
		all = append(all, e.Name)
	}
	s := Settings{Seeds: []uint64{1, 2, 3, 4, 5}, Train: 20, Test: 20, C: 1, Tol: 1e-3, Entries: all}
	switch p {
	case protocol.Quick:
		s.Seeds, s.Train, s.Test = []uint64{1}, 10, 10
	case protocol.Tiny:
		// Two seeds (for the standard errors) of 3 + 3 images, every entry.
		s.Seeds, s.Train, s.Test = []uint64{1, 2}, 3, 3
	}
	return s
}

// params is what every fit depends on besides its job.
func (s Settings) params() any {
	s.Seeds, s.Entries, s.C = nil, nil, 0
	return s
}

// Jobs implements Protocol: seed after seed, the ladder in order.
func (t Experiment) Jobs(p protocol.Profile, _ []grid.Result) ([]grid.Job, error) {
	return grid.Cells(t.jobs(p))
}

func (t Experiment) jobs(p protocol.Profile) []Job {
	s := t.Settings(p)
	var jobs []Job
	for _, seed := range s.Seeds {
		for _, e := range s.Entries {
			jobs = append(jobs, Job{Dataset: "synthetic", Entry: e, Loss: psub.Hamming{}.Name(), C: s.C, Seed: int(seed)})
		}
	}
	return jobs
}

// Group implements Protocol: the fits do not depend on each other.
func (Experiment) Group(j grid.Job) string { return j.Key() }

// Problem is the synthetic segmentation of one seed.
func (t Experiment) Problem(p protocol.Profile, seed uint64) *data.Segmentation {
	s := t.Settings(p)
	return data.SyntheticSegmentation(data.SegmentationOptions{Seed: seed, Train: s.Train, Test: s.Test})
}

// Run implements Protocol.
func (t Experiment) Run(ctx context.Context, opt protocol.Options) ([]grid.Result, error) {
	opt, err := opt.WithDefaults(t.Name())
	if err != nil {
		return nil, err
	}
	s := t.Settings(opt.Profile)
	var mu sync.Mutex
	problems := map[int]*data.Segmentation{}
	problem := func(seed int) *data.Segmentation {
		mu.Lock()
		defer mu.Unlock()
		if problems[seed] == nil {
			problems[seed] = t.Problem(opt.Profile, uint64(seed))
		}
		return problems[seed]
	}
	fit := func(_ context.Context, j Job) (Row, error) {
		entry, err := ladderEntry(j.Entry)
		if err != nil {
			return Row{}, err
		}
		pr := problem(j.Seed)
		rows, err := RunLadder(pr.Train, pr.Test, LadderOptions{
			Settings: psub.Settings{C: j.C, Tol: s.Tol, Workers: 1}, Entries: []Entry{entry}})
		if err != nil {
			return Row{}, err
		}
		return rows[0], nil
	}
	return protocol.RunStaged(ctx, t, opt, grid.Func(fit), s.params(), nil)
}

func ladderEntry(name string) (Entry, error) {
	var names []string
	for _, e := range Ladder() {
		if e.Name == name {
			return e, nil
		}
		names = append(names, e.Name)
	}
	return Entry{}, fmt.Errorf("tradeoff: no entry %q in the ladder (%v)", name, names)
}

// named gives a Row read from a results file the names of its entry.
func named(r Row, entry string) (Row, error) {
	e, err := ladderEntry(entry)
	if err != nil {
		return Row{}, err
	}
	r.Name, r.Set, r.Inference = e.Name, e.Set.Name(), "graphcut"
	if e.Inference != nil {
		r.Inference = e.Inference.Name()
	}
	return r, nil
}

// Runs are the rows as ladders, one per seed whose every entry succeeded
// (in the order of the seeds), each in the order of the settings' entries:
// what Stat averages over.
func (t Experiment) Runs(p protocol.Profile, rows []grid.Result) ([][]Row, error) {
	s := t.Settings(p)
	typed, err := grid.Rows[Job, Row](rows)
	if err != nil {
		return nil, err
	}
	byJob := map[Job]grid.Row[Job, Row]{}
	for _, r := range typed {
		byJob[r.Job] = r
	}
	jobs := t.jobs(p)
	var runs [][]Row
	for i := range s.Seeds {
		var ladder []Row
		for _, j := range jobs[i*len(s.Entries) : (i+1)*len(s.Entries)] {
			r, ok := byJob[j]
			if !ok || r.Error != "" {
				ladder = nil
				break
			}
			tr, err := named(r.Metrics, j.Entry)
			if err != nil {
				return nil, err
			}
			ladder = append(ladder, tr)
		}
		if ladder == nil {
			continue
		}
		runs = append(runs, ladder)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("tradeoff %s: no seed has every entry's row", p)
	}
	return runs, nil
}

// stat formats an entry's metric as mean ± standard error over the runs
// (just the mean for one run).
func stat(runs [][]Row, i int, f func(Row) float64, format string) string {
	m, se := Stat(runs, i, f)
	return pm(m, se, len(runs), format)
}

// SideBySide is the table of every entry: the learner's objective, the
// certified objective of its final w, accuracy, exactness on the test
// images, iterations and time (mean ± standard error over the seeds).
func (Experiment) SideBySide(runs [][]Row) protocol.Table {
	t := protocol.Table{Title: "the ladder side by side", Header: []string{"entry", "training inference", "objective (learner)",
		"objective of final w (certified interval)", "train acc %", "test acc %", "non-submodular test edges %",
		"TGC truncated", "QPBO unlabelled", "TRW-S gap", "iterations", "training s"}}
	for i, r := range runs[0] {
		t.Rows = append(t.Rows, []string{r.Name, r.Inference,
			stat(runs, i, func(r Row) float64 { return r.Primal }, "%.4f"),
			stat(runs, i, func(r Row) float64 { return r.PrimalLo }, "%.4f") + " … " +
				stat(runs, i, func(r Row) float64 { return r.PrimalHi }, "%.4f"),
			stat(runs, i, func(r Row) float64 { return 100 * r.TrainAcc }, "%.1f"),
			stat(runs, i, func(r Row) float64 { return 100 * r.TestAcc }, "%.1f"),
			stat(runs, i, func(r Row) float64 { return 100 * r.NonSubmodularTest }, "%.2f"),
			stat(runs, i, func(r Row) float64 { return float64(r.TGCTruncated) }, "%.0f") + fmt.Sprintf(" / %d", r.TestEdges),
			stat(runs, i, func(r Row) float64 { return float64(r.QPBOUnlabelled) }, "%.0f") + fmt.Sprintf(" / %d", r.TestNodes),
			stat(runs, i, func(r Row) float64 { return r.TRWSGap }, "%.1e"),
			stat(runs, i, func(r Row) float64 { return float64(r.Iters) }, "%.0f"),
			stat(runs, i, func(r Row) float64 { return r.Seconds }, "%.1f"),
		})
	}
	return t
}

// entryNames are the names of a ladder's entries.
func entryNames(runs [][]Row) []string {
	var n []string
	for _, r := range runs[0] {
		n = append(n, r.Name)
	}
	return n
}

// statSeries is one metric of every entry: means and standard errors over
// the runs.
func statSeries(runs [][]Row, name string, f func(Row) float64) protocol.BarSeries {
	s := protocol.BarSeries{Name: name}
	for i := range runs[0] {
		m, se := Stat(runs, i, f)
		s.Values, s.Errors = append(s.Values, m), append(s.Errors, se)
	}
	return s
}

// Capacity is the training objective along the ladder: the learner's own
// beside the certified objective of the final w (the interval's upper end,
// with its standard error over seeds), on a log axis: the values span three
// decades, and the short bars (the TGC learner's own value) are the point.
// The title writes ||w|| since the chart font draws ‖ as a thin "l".
func (Experiment) Capacity(runs [][]Row) protocol.Bars {
	own := statSeries(runs, "objective reported by the learner", func(r Row) float64 { return r.Primal })
	own.Errors = nil
	return protocol.Bars{Title: "training objective ½||w||² + C_reg·ξ (lower = more capacity; log axis)", Unit: "objective", Categories: entryNames(runs),
		Series: []protocol.BarSeries{own, statSeries(runs, "certified objective of the final w", func(r Row) float64 { return r.PrimalHi })}, LogY: true}
}

// Exactness is how exact inference is on the test images: non-submodular
// edges and the nodes QPBO leaves unlabelled (%, means over seeds). A
// series with no non-zero value is left out (a legend entry would name
// nothing drawn: QPBO labels every node on this problem); ExactnessNote
// says so.
func (Experiment) Exactness(runs [][]Row) protocol.Bars {
	ns := statSeries(runs, "non-submodular edges", func(r Row) float64 { return 100 * r.NonSubmodularTest })
	qp := statSeries(runs, "nodes QPBO leaves unlabelled", func(r Row) float64 {
		return 100 * float64(r.QPBOUnlabelled) / float64(r.TestNodes)
	})
	ns.Errors, qp.Errors = nil, nil
	b := protocol.Bars{Title: "inference exactness on the test images", Unit: "% of test edges", Categories: entryNames(runs)}
	for _, s := range []protocol.BarSeries{ns, qp} {
		if slices.ContainsFunc(s.Values, func(v float64) bool { return v != 0 }) {
			b.Series = append(b.Series, s)
		}
	}
	if len(b.Series) == 1 && b.Series[0].Name != ns.Name {
		b.Unit = "% of test nodes"
	}
	return b
}

// ExactnessNote says, from the rows, what the exactness chart cannot
// show: how many test nodes QPBO left unlabelled and on how many test
// graphs TRW-S certified its labelling optimal, over every model.
func (t Experiment) ExactnessNote(p protocol.Profile, runs [][]Row) string {
	var unl, nodes, exact, graphs int
	worst := 0.0
	for _, run := range runs {
		for _, r := range run {
			unl, nodes = unl+r.QPBOUnlabelled, nodes+r.TestNodes
			exact += r.TRWSExact
			worst = math.Max(worst, r.TRWSGap)
		}
	}
	for _, run := range runs {
		graphs += len(run) * t.Settings(p).Test
	}
	return fmt.Sprintf("On the test images, under every model's energy: QPBO left %d of %d test nodes unlabelled; TRW-S certified its labelling optimal on %d of %d (model, test image) pairs, with a largest relative gap of %.1e.",
		unl, nodes, exact, graphs, worst)
}

// PaperNonSubmodular is the paper's table "tradeoff": the fraction of
// non-submodular test edges (%) on cows and on the feline retina of the
// definitely and probably submodular sets (NaN: not reported).
var PaperNonSubmodular = map[string][2]float64{
	"C0": {0, 0}, "C1": {0, 0}, "C2": {0, 0}, "C2*": {math.NaN(), math.NaN()}, "C3": {5, 0.04}, "C4": {0, 1},
}

// NonSubmodular is our fraction of non-submodular test edges (%, mean over
// seeds) of the constraint sets in a column of its own beside the paper's
// cows and feline columns, which are other data (for reference).
func (Experiment) NonSubmodular(runs [][]Row) protocol.Comparison {
	nan := math.NaN()
	sets := []string{"C0", "C1", "C2", "C2*", "C3", "C4"}
	c := protocol.Comparison{Title: "non-submodular test edges (%)", Corner: "set", Rows: sets,
		Cols: []string{"synthetic (ours)", "cows", "feline"}, Format: "%.2f"}
	for _, name := range sets {
		ours := nan
		if i := slices.IndexFunc(runs[0], func(r Row) bool { return r.Name == name }); i >= 0 {
			ours, _ = Stat(runs, i, func(r Row) float64 { return 100 * r.NonSubmodularTest })
		}
		p := PaperNonSubmodular[name]
		c.Paper = append(c.Paper, []float64{nan, p[0], p[1]})
		c.Ours = append(c.Ours, []float64{ours, nan, nan})
	}
	return c
}

// Headline states C4's non-submodular test edges beside the paper's.
func (t Experiment) Headline(runs [][]Row) string {
	c4 := t.NonSubmodular(runs).Ours[5][0]
	p := PaperNonSubmodular["C4"]
	return fmt.Sprintf("non-submodular test edges of C4: ours %.2f %% on the synthetic segmentation, paper %.0f %% on cows and %.0f %% on the feline retina", c4, p[0], p[1])
}
