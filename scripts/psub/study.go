package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/mito"
	"github.com/probably-submodular/crf/notebooks/multilabel"
	"github.com/probably-submodular/crf/notebooks/retina"
)

// study is one of the notebooks' difference studies (issue 44): its
// committed results file, how to run its default settings into a file,
// and the code version its rows record.
type study struct {
	about   string
	results func() string
	run     func(ctx context.Context, results string, workers int, logf func(string, ...any)) ([]grid.Result, error)
	code    func() (codever.CodeVersion, error)
}

var studies = map[string]study{
	"cows-counts": {"01: hard constraints added and retired, per knob, on the authors' split (cows.RunCounts)",
		cows.CountsResults, each([]cows.CountsSettings{cows.DefaultCounts()}, cows.RunCounts), cows.CountsCode},
	"retina-differences": {"03: QPBO completion, ICM, richer unaries on the horses (retina.RunDifferences)",
		retina.DifferencesResults, each([]retina.DiffSettings{retina.DefaultDifferences()}, retina.RunDifferences), retina.DifferencesCode},
	"mito-differences": {"04: selection of C, iteration counts, QPBO's convergence (mito.RunDifferences)",
		mito.DifferencesResults, each(mito.DefaultDifferences(), mito.RunDifferences), mito.DifferencesCode},
	"multilabel-baselines": {"05: the paper's weak QPBO and TRW-S baselines (multilabel.RunBaselines)",
		multilabel.BaselinesResults, each(multilabel.AllBaselines(), multilabel.RunBaselines), multilabel.BaselinesCode},
}

// each is a study's run: its settings one after the other into one results
// file, stopping at the first that fails.
func each[S any](settings []S, run func(context.Context, S, string, int, func(string, ...any)) ([]grid.Result, error)) func(context.Context, string, int, func(string, ...any)) ([]grid.Result, error) {
	return func(ctx context.Context, results string, workers int, logf func(string, ...any)) ([]grid.Result, error) {
		var all []grid.Result
		for _, s := range settings {
			rows, err := run(ctx, s, results, workers, logf)
			all = append(all, rows...)
			if err != nil {
				return all, err
			}
		}
		return all, nil
	}
}

// runStudy runs one of the difference studies at its default settings,
// resuming from its results file like a protocol (rows of the running code
// are not run again).
func runStudy(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("study", "psub study NAME [-results FILE] [-workers N] | psub study -list | psub study -status [NAME...]", stdout)
	list := fs.Bool("list", false, "list the studies as JSON")
	status := fs.Bool("status", false, "run nothing: per study (all, or the NAME arguments), the rows of its committed file (or -results, with one NAME) fresh for the code its fits execute now, stale, failed, and their commits")
	results := fs.String("results", "", "results file, JSON Lines (default: the study's committed file under notebooks/results)")
	workers := fs.Int("workers", 0, "fits at once (0: one per core)")
	names := slices.Sorted(maps.Keys(studies))
	fs.after = func(w io.Writer) {
		fmt.Fprintln(w, "\nstudies (each explains a difference from the paper in its notebook):")
		for _, n := range names {
			fmt.Fprintf(w, "  %-21s %s\n", n, studies[n].about)
		}
	}
	var named []string
	for len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		named, args = append(named, args[0]), args[1:]
	}
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	if *status {
		return studyStatus(fs, named, *results, stdout)
	}
	if len(named) > 1 {
		return fs.usageErr("want one study NAME, got %q", named)
	}
	name := ""
	if len(named) == 1 {
		name = named[0]
	}
	if *list {
		out := map[string]string{}
		for _, n := range names {
			out[n] = studies[n].results()
		}
		return writeJSON(stdout, out)
	}
	st, ok := studies[name]
	if !ok {
		return fs.usageErr("want a study NAME (one of %v), got %q", names, name)
	}
	if err := fs.intIn("workers", *workers, 0, maxWorkers, "fits at once, 0 for one per core"); err != nil {
		return err
	}
	res := cmp.Or(*results, st.results())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, name+": "+format+"\n", a...) }
	rows, err := st.run(ctx, res, *workers, logf)
	failed := 0
	for _, r := range rows {
		if r.Error != "" {
			failed++
		}
	}
	if err != nil {
		return err
	}
	return writeJSON(stdout, map[string]any{"study": name, "results": res, "rows": len(rows), "failed": failed})
}

// studyRows is what -status says of one study's results file.
type studyRows struct {
	Study   string              `json:"study"`
	Results string              `json:"results"`
	Code    codever.CodeVersion `json:"code"`
	Rows    int                 `json:"rows"`
	Fresh   int                 `json:"fresh"`
	Stale   int                 `json:"stale"`
	Failed  int                 `json:"failed"`
	// Commits counts the rows by the commit that computed them.
	Commits map[string]int `json:"commits"`
}

// studyStatus reports, per study, which rows of its results file were
// computed by the code its fits execute now (a rerun skips exactly those).
func studyStatus(fs *flags, named []string, results string, stdout io.Writer) error {
	if len(named) == 0 {
		named = slices.Sorted(maps.Keys(studies))
	}
	if results != "" && len(named) != 1 {
		return fs.usageErr("-results with -status needs one study NAME, got %d", len(named))
	}
	var out []studyRows
	for _, n := range named {
		st, ok := studies[n]
		if !ok {
			return fs.usageErr("no study %q (want one of %v)", n, slices.Sorted(maps.Keys(studies)))
		}
		res := cmp.Or(results, st.results())
		code, err := st.code()
		if err != nil {
			return fmt.Errorf("study %s: %w", n, err)
		}
		rows, err := grid.ReadResults(res)
		if err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return fmt.Errorf("study %s: %w", n, err)
		}
		r := studyRows{Study: n, Results: res, Code: code, Rows: len(rows), Commits: map[string]int{}}
		for _, row := range rows {
			switch {
			case row.Error != "":
				r.Failed++
			case row.Code.Source != "" && row.Code.Source == code.Source:
				r.Fresh++
			default:
				r.Stale++
			}
			r.Commits[row.Code.Commit]++
		}
		out = append(out, r)
	}
	return writeJSON(stdout, out)
}
