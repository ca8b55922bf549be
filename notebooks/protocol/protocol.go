package protocol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/grid"
)

// Protocol is one experiment of the paper.
type Protocol interface {
	// Name is the protocol's command-line name ("cows").
	Name() string
	// Title says in one line what the protocol reproduces.
	Title() string
	// Jobs lists the profile's jobs that can be listed given the rows so
	// far: a job that depends on others' rows (a fold's final fit on its
	// selection of C) appears once they are all there. Listing from a
	// complete run's rows gives every job of the protocol.
	Jobs(p Profile, rows []grid.Result) ([]grid.Job, error)
	// Group names the set of jobs a job depends on or is depended on by;
	// shards split the grid into whole groups.
	Group(j grid.Job) string
	// Run runs the jobs of opt.Shard, appending their rows to the results
	// file, and returns them.
	Run(ctx context.Context, opt Options) ([]grid.Result, error)
}

// Options set a run of a protocol. The zero value runs the whole grid of
// the profile named by $PSUB_PROFILE (quick when unset) on all cores into
// DefaultResults.
type Options struct {
	Profile Profile // "" means EnvProfile
	// Results is the JSON Lines file of the run's rows, and where a run
	// resumes from; "" means DefaultResults(name, profile).
	Results string
	Shard   Shard
	// Workers is how many fits run at once (0 means GOMAXPROCS); each fit
	// keeps to one core.
	Workers int
	// Slots, when set, is a pool of fit slots shared with other runs in
	// this process (grid.Options.Slots): protocols run at once then never
	// run more fits together than it has slots.
	Slots *grid.Slots
	// Reuse says which stored rows are reused (zero: $PSUB_REUSE).
	Reuse grid.ReusePolicy
	// Models is where segmentation protocols save their final models, and
	// where FinalModel loads them from; "" means models/<name>-<profile>
	// beside Results (DefaultModels when Results is the default).
	Models string
	// Checkpoints, when set, makes interrupted fits resume from their
	// last cutting-plane iteration (psub.Settings.CheckpointDir).
	Checkpoints string
	// Log, when set, receives one line per step: what was built, what
	// was reused from the results file and why.
	Log io.Writer
	// Show, when set, displays progress in place (a *viz.Progress does):
	// problems built, then fits done, with what the last one was.
	Show Display
	// Progress, when set, is called after every fit (besides Show).
	Progress func(grid.Progress)
	// Building, when set, is called while problems are built (images
	// segmented, features computed): done of total (besides Show).
	Building func(done, total int)
}

// Display shows progress in place: Update after every step, Done at the end.
type Display interface {
	Update(done int, msg string)
	Done(summary string)
}

// WithDefaults fills in what o leaves zero for the protocol named name:
// the profile ($PSUB_PROFILE), the results file and the models beside it,
// and the displays that Show drives.
func (o Options) WithDefaults(name string) (Options, error) {
	if o.Profile == "" {
		p, err := EnvProfile()
		if err != nil {
			return o, err
		}
		o.Profile = p
	}
	if o.Results == "" {
		o.Results = DefaultResults(name, o.Profile)
	}
	if o.Models == "" {
		// Beside the rows, so that a run with its own results file does
		// not overwrite the models the committed rows were scored with.
		o.Models = ModelsBeside(o.Results, name, o.Profile)
	}
	if show, building := o.Show, o.Building; show != nil {
		o.Building = func(done, total int) {
			show.Update(done, fmt.Sprintf("building problems: %d of %d", done, total))
			if building != nil {
				building(done, total)
			}
		}
	}
	if show, progress := o.Show, o.Progress; show != nil {
		o.Progress = func(g grid.Progress) {
			show.Update(g.Done+g.Skipped, ProgressLine(g))
			if progress != nil {
				progress(g)
			}
		}
	}
	return o, nil
}

// ProgressLine says how far a grid is and what its last fit was.
func ProgressLine(g grid.Progress) string {
	r := g.Last
	line := fmt.Sprintf("of %d jobs: %s %s %s C=%g fold %d (%s), %.1f s", g.Total, r.Dataset, r.Set, r.Loss, r.C, r.Fold, r.Tag, r.Seconds)
	if r.Error != "" {
		line += ", FAILED: " + r.Error
	}
	return line
}

// Logf writes one line to Log, when set.
func (o Options) Logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// DefaultResults is where a profile's rows go: for the full profile,
// notebooks/results/<name>-full.jsonl under the module root, the raw
// records the committed notebooks render from (kept in the repository, so
// the paper-sized tables can be re-derived without rerunning them); for
// the others out/<name>-<profile>.jsonl.
func DefaultResults(name string, p Profile) string {
	file := fmt.Sprintf("%s-%s.jsonl", name, p)
	if p == Full {
		return filepath.Join(filepath.Dir(data.OutDir()), "notebooks", "results", file)
	}
	return data.ResultsPath(file)
}

// DefaultModels is where a profile's final models go when no results file
// is given: models/<name>-<profile> beside DefaultResults, so for the full
// profile notebooks/results/models/<name>-full, committed with the rows (the
// notebooks draw their figures from the models the rows were scored with,
// so a full run replaces both together), and out/models/<name>-<profile>
// for the others. A run given a results file keeps its models beside that
// file in the same way (Options.Models).
func DefaultModels(name string, p Profile) string {
	return ModelsBeside(DefaultResults(name, p), name, p)
}

// ModelsBeside is the models directory of a run whose rows go to results:
// models/<name>-<profile> in results' directory.
func ModelsBeside(results, name string, p Profile) string {
	return filepath.Join(filepath.Dir(results), "models", name+"-"+string(p))
}

// notebookOrder is the order of All: that of the notebooks.
var notebookOrder = []string{"cows", "efficiency", "retina", "mito", "multilabel", "sample-complexity", "tradeoff"}

// registered holds every protocol, by name; each protocol's package
// registers it in an init function (Register).
var registered = map[string]Protocol{}

// Register adds p to All; it panics when a protocol of that name is there.
func Register(p Protocol) {
	if _, dup := registered[p.Name()]; dup {
		panic("protocol: " + p.Name() + " registered twice")
	}
	registered[p.Name()] = p
}

// All lists the protocols, in the order of the notebooks.
func All() []Protocol {
	var out []Protocol
	for _, n := range notebookOrder {
		if p, ok := registered[n]; ok {
			out = append(out, p)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(registered)) {
		if !slices.Contains(notebookOrder, n) {
			out = append(out, registered[n])
		}
	}
	return out
}

// ByName finds a protocol by its Name.
func ByName(name string) (Protocol, error) {
	var names []string
	for _, p := range All() {
		if p.Name() == name {
			return p, nil
		}
		names = append(names, p.Name())
	}
	return nil, fmt.Errorf("unknown protocol %q (protocols: %s)", name, strings.Join(names, ", "))
}

// Code is the version of the code p's fits execute (codever.CodeOf): what
// p's Run method reaches, the runner excluded (CodeRoots). A
// row of p is stale when its code's Source differs from this one's. An
// error (the module's source not found) comes with an empty Source, which
// matches no row.
func Code(p Protocol) (codever.CodeVersion, error) {
	roots, stops := CodeRoots(p)
	v, err := codever.CodeOf(roots, stops)
	if errors.Is(err, codever.ErrUndeclared) || roots[0] == "" {
		// A protocol declared outside the module's source (a test's):
		// the version of the whole library source.
		return codever.CurrentCode()
	}
	return v, err
}

// CodeRoots are the roots and stops of Code(p): p's Run method; not the
// runner (RunStaged, which calls grid.Run), nor the segment cache's key
// (data.BuilderSource: which built problems are reused, not what they
// hold — their content is in the rows' params, InstancesDigest).
func CodeRoots(p Protocol) (roots, stops []string) {
	return []string{codever.MethodDecl(p, "Run")}, []string{codever.FuncDecl(RunStaged), codever.FuncDecl(data.BuilderSource)}
}

// Chain orders the fits of a grid that start from others (WarmStarts):
// After names the job a job waits for (grid.Options.After), and Listed
// receives each stage's jobs before they run.
type Chain interface {
	After(grid.Job) (grid.Job, bool)
	Listed([]grid.Job)
}

// RunStaged runs the jobs of p listed for opt.Shard through fn, stage after
// stage: it runs the jobs listed so far, lists again from their rows (which
// adds the jobs that waited for them), and stops when nothing new is
// listed. Rows of jobs already in the results file are reused by
// grid.Run, so a second pass costs nothing but reading. params is what
// every fit depends on besides its job (grid.Options.Params). It fails
// when a job fails, after the other jobs of its stage ran. chain, when
// not nil, orders the fits that start from others (grid.Options.After)
// and is told each stage's jobs before they run.
func RunStaged(ctx context.Context, p Protocol, opt Options, fn grid.JobFunc, params any, chain Chain) ([]grid.Result, error) {
	first, err := p.Jobs(opt.Profile, nil)
	if err != nil {
		return nil, err
	}
	order := groupOrder(first, p.Group)
	code, err := Code(p)
	if err != nil {
		opt.Logf("%s: no code version, so no row is reused: %v", p.Name(), err)
	}
	var rows []grid.Result
	seen := map[string]bool{}
	for stage := 1; ; stage++ {
		jobs, err := p.Jobs(opt.Profile, rows)
		if err != nil {
			return rows, err
		}
		mine := opt.Shard.pick(jobs, p.Group, order)
		fresh := 0
		for _, j := range mine {
			if !seen[j.Key()] {
				seen[j.Key()] = true
				fresh++
			}
		}
		if fresh == 0 {
			break
		}
		opt.Logf("%s %s, shard %s, stage %d: %d jobs", p.Name(), opt.Profile, opt.Shard, stage, len(mine))
		var after func(grid.Job) (grid.Job, bool)
		if chain != nil {
			chain.Listed(mine)
			after = chain.After
		}
		rows, err = grid.Run(ctx, mine, fn, grid.Options{
			Workers: opt.Workers, Results: opt.Results, Params: params, Reuse: opt.Reuse, Code: &code,
			Report: func(r grid.Report) {
				for _, line := range strings.Split(strings.TrimRight(r.String(), "\n"), "\n") {
					opt.Logf("%s", line)
				}
			},
			Progress: opt.Progress,
			After:    after,
			Slots:    opt.Slots,
		})
		if err != nil {
			return rows, err
		}
	}
	var failed []string
	for _, r := range rows {
		if r.Error != "" {
			failed = append(failed, r.Key()+": "+r.Error)
		}
	}
	if opt.Show != nil {
		opt.Show.Done(fmt.Sprintf("%s %s, shard %s: %d fits", p.Name(), opt.Profile, opt.Shard, len(rows)))
	}
	if len(failed) > 0 {
		return rows, fmt.Errorf("%s: %d of %d jobs failed (rerun to retry them); first: %s", p.Name(), len(failed), len(rows), failed[0])
	}
	return rows, nil
}

// Tagged keeps the rows of one stage (grid.Job.Tag: "select", "final"),
// read as rows of a segmentation protocol (Rows).
func Tagged(rows []grid.Result, tag string) []Row {
	return slices.DeleteFunc(Rows(rows), func(r Row) bool { return r.Job.Tag != tag })
}

// BoolMetric is a yes/no metric of a row: 1 or 0.
func BoolMetric(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
