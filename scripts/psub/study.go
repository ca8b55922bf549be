package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/mito"
	"github.com/probably-submodular/crf/notebooks/multilabel"
	"github.com/probably-submodular/crf/notebooks/retina"
)

// study is one of the notebooks' difference studies (issue 44): its
// committed results file and how to run its default settings into a file.
type study struct {
	about   string
	results func() string
	run     func(ctx context.Context, results string, workers int, logf func(string, ...any)) ([]grid.Result, error)
}

var studies = map[string]study{
	"cows-counts": {"01: hard constraints added and retired, per knob, on the authors' split (cows.RunCounts)", cows.CountsResults,
		func(ctx context.Context, res string, w int, logf func(string, ...any)) ([]grid.Result, error) {
			return cows.RunCounts(ctx, cows.DefaultCounts(), res, w, logf)
		}},
	"retina-differences": {"03: QPBO completion, ICM, richer unaries on the horses (retina.RunDifferences)", retina.DifferencesResults,
		func(ctx context.Context, res string, w int, logf func(string, ...any)) ([]grid.Result, error) {
			return retina.RunDifferences(ctx, retina.DefaultDifferences(), res, w, logf)
		}},
	"mito-differences": {"04: selection of C, iteration counts, QPBO's convergence (mito.RunDifferences)", mito.DifferencesResults,
		func(ctx context.Context, res string, w int, logf func(string, ...any)) ([]grid.Result, error) {
			return each(mito.DefaultDifferences(), func(s mito.DiffSettings) ([]grid.Result, error) {
				return mito.RunDifferences(ctx, s, res, w, logf)
			})
		}},
	"multilabel-baselines": {"05: the paper's weak QPBO and TRW-S baselines (multilabel.RunBaselines)", multilabel.BaselinesResults,
		func(ctx context.Context, res string, w int, logf func(string, ...any)) ([]grid.Result, error) {
			return each(multilabel.AllBaselines(), func(s multilabel.BaselineSettings) ([]grid.Result, error) {
				return multilabel.RunBaselines(ctx, s, res, w, logf)
			})
		}},
}

// each runs a study's settings one after the other into one results
// file, stopping at the first that fails.
func each[S any](settings []S, run func(S) ([]grid.Result, error)) ([]grid.Result, error) {
	var all []grid.Result
	for _, s := range settings {
		rows, err := run(s)
		all = append(all, rows...)
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

// runStudy runs one of the difference studies at its default settings,
// resuming from its results file like a protocol (rows of the running code
// are not run again).
func runStudy(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("study", "psub study NAME [-results FILE] [-workers N] | psub study -list", stdout)
	list := fs.Bool("list", false, "list the studies as JSON")
	results := fs.String("results", "", "results file, JSON Lines (default: the study's committed file under notebooks/results)")
	workers := fs.Int("workers", 0, "fits at once (0: one per core)")
	names := slices.Sorted(maps.Keys(studies))
	fs.after = func(w io.Writer) {
		fmt.Fprintln(w, "\nstudies (each explains a difference from the paper in its notebook):")
		for _, n := range names {
			fmt.Fprintf(w, "  %-21s %s\n", n, studies[n].about)
		}
	}
	name := ""
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if err := fs.parseFlags(args); err != nil {
		return err
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
	res := *results
	if res == "" {
		res = st.results()
	}
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
