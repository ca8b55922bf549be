package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// protocolResult is the JSON object "psub protocol" prints after a run.
type protocolResult struct {
	Protocol string  `json:"protocol"`
	Profile  string  `json:"profile"`
	Shard    string  `json:"shard"`
	Results  string  `json:"results"`
	Rows     int     `json:"rows"`   // rows of the shard's jobs (run now or reused)
	Ran      int     `json:"ran"`    // fits run by this command
	Failed   int     `json:"failed"` // rows holding an error
	Seconds  float64 `json:"seconds"`
}

// runProtocol runs one of the paper's protocols (or a shard of it), merges
// shard files, or lists the protocols.
func runProtocol(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("protocol", "psub protocol -list | psub protocol NAME [-profile quick] [-results FILE] [-shard i/n] [-workers N] | psub protocol NAME [-profile P] -merge -results OUT SHARD_FILE... | psub protocol all [-profile P] [-workers N]", stdout)
	list := fs.Bool("list", false, "list the protocols as JSON")
	profile := fs.String("profile", string(protocol.Quick), "profile: tiny (tests), quick (minutes), full (the paper's protocol)")
	results := fs.String("results", "", "results file, JSON Lines (default: notebooks/results/NAME-full.jsonl for the full profile, out/NAME-PROFILE.jsonl for the others); with -merge, the merged file")
	shardFlag := fs.String("shard", "", "run shard i of n (1 ≤ i ≤ n) of the grid, e.g. 2/8 (default: all)")
	workers := fs.Int("workers", 0, "fits at once (0: one per core)")
	models := fs.String("models", "", "directory of the final models, which the notebooks' figures load (default: models/NAME-PROFILE beside the results file: notebooks/results/models/NAME-full for the full profile, out/models/NAME-PROFILE for the others)")
	checkpoints := fs.String("checkpoints", "", "directory of training checkpoints: interrupted fits resume from their last iteration")
	merge := fs.Bool("merge", false, "merge the SHARD_FILE arguments into -results instead of running: adds their new rows, never removes one, under the lock a running grid takes")
	fs.after = help("protocol", protocol.All())
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if err := fs.parse(args); err != nil {
			return err
		}
		if !*list || fs.NArg() > 0 {
			return fs.usageErr("want -list or a protocol NAME first")
		}
		return listProtocols(stdout)
	}
	if args[0] == "all" {
		return runProtocolAll(args[1:], stdout, stderr) // protocolall.go
	}
	p, err := protocol.ByName(args[0])
	if err != nil {
		return fs.usageErr("%v", err)
	}
	rest := args[1:]
	for _, a := range rest {
		if a == "-slurm" || a == "--slurm" || strings.HasPrefix(a, "-slurm=") || strings.HasPrefix(a, "--slurm=") {
			return runSlurm(p, rest, stdout, stderr) // slurm.go
		}
	}
	if err := fs.parse(rest); err != nil {
		return err
	}
	if *list {
		return fs.usageErr("-list takes no protocol NAME")
	}
	prof, err := protocol.ParseProfile(*profile)
	if err != nil {
		return fs.usageErr("-profile: %v", err)
	}
	shard, err := protocol.ParseShard(*shardFlag)
	if err != nil {
		return fs.usageErr("-shard: %v", err)
	}
	if err := fs.intIn("workers", *workers, 0, maxWorkers, "fits at once, 0 for one per core"); err != nil {
		return err
	}
	if *merge {
		if *results == "" || fs.NArg() == 0 {
			return fs.usageErr("-merge needs -results OUT and at least one SHARD_FILE")
		}
		if *shardFlag != "" {
			return fs.usageErr("-merge and -shard exclude each other")
		}
		shards := dataFolders("")
		for _, s := range fs.Args() {
			shards = append(shards, fileArg("SHARD_FILE", s))
		}
		if err := fs.guard(paths(fileArg("-results", *results)), shards); err != nil {
			return err
		}
		rep, err := protocol.Merge(p, prof, *results, fs.Args())
		if err != nil {
			writeJSON(stdout, rep)
			return err
		}
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
		what := fmt.Sprintf("added %d rows from %d files to the %d of %s (now %d)", rep.Added, len(fs.Args()), rep.OutRows, rep.Out, rep.Rows)
		if !rep.Written {
			what = fmt.Sprintf("%s already holds every row of the %d files (%d rows); left as it was", rep.Out, len(fs.Args()), rep.Rows)
		}
		if !rep.Complete {
			return fmt.Errorf("%s, but %d fits are missing and %d failed: rerun the shards (they resume) and merge again", what, len(rep.Missing), len(rep.Failed))
		}
		fmt.Fprintln(stderr, what)
		return nil
	}
	if err := fs.noArgs(); err != nil {
		return err
	}
	if err := fs.guard(paths(fileArg("-results", *results), folderArg("-models", *models), folderArg("-checkpoints", *checkpoints)), dataFolders("")); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opt := protocol.Options{Profile: prof, Results: cmp.Or(*results, protocol.DefaultResults(p.Name(), prof)),
		Shard: shard, Workers: *workers, Models: *models, Checkpoints: *checkpoints}
	res, runErr := runCounted(ctx, p, opt, stderr, fmt.Sprintf("%s %s: ", p.Name(), prof))
	if err := writeJSON(stdout, res); err != nil {
		return err
	}
	return runErr
}

// runCounted runs p with opt, logging to log (progress lines after
// prefix), and says what it did.
func runCounted(ctx context.Context, p protocol.Protocol, opt protocol.Options, log io.Writer, prefix string) (protocolResult, error) {
	start := time.Now()
	ran := 0
	opt.Log = log
	opt.Progress = func(g grid.Progress) {
		ran++ // Progress is called from one goroutine at a time
		fmt.Fprintf(log, "%s%d %s\n", prefix, g.Done+g.Skipped, protocol.ProgressLine(g))
	}
	opt.Building = func(done, total int) { fmt.Fprintf(log, "building problems: %d of %d\n", done, total) }
	rows, err := p.Run(ctx, opt)
	res := protocolResult{Protocol: p.Name(), Profile: string(opt.Profile), Shard: opt.Shard.String(), Results: opt.Results,
		Rows: len(rows), Ran: ran, Seconds: time.Since(start).Seconds()}
	for _, r := range rows {
		if r.Error != "" {
			res.Failed++
		}
	}
	return res, err
}

// protocolInfo is one line of "psub protocol -list".
type protocolInfo struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Jobs counts the jobs listed before any fit ran, per profile (later
	// stages, such as final fits after a selection of C, come on top).
	Jobs map[string]int `json:"jobs"`
}

func listProtocols(stdout io.Writer) error {
	var out []protocolInfo
	for _, p := range protocol.All() {
		info := protocolInfo{Name: p.Name(), Title: p.Title(), Jobs: map[string]int{}}
		for _, prof := range protocol.Profiles() {
			jobs, err := p.Jobs(prof, nil)
			if err != nil {
				return fmt.Errorf("protocol %s, profile %s: %w", p.Name(), prof, err)
			}
			info.Jobs[string(prof)] = len(jobs)
		}
		out = append(out, info)
	}
	return writeJSON(stdout, map[string]any{"protocols": out})
}
