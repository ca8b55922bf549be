package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/probably-submodular/crf/internal/panics"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// runProtocolAll is "psub protocol all": every protocol at once, their
// fits sharing one pool of workers.
func runProtocolAll(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("protocol", "psub protocol all [-profile quick] [-workers N] [-dir DIR] | psub protocol all [-profile P] [-dir DIR] [-workers N] -status [NOTEBOOK...] | psub protocol all [-profile P] [-dir DIR] -table", stdout)
	profileName := fs.String("profile", string(protocol.Quick), "profile: tiny (tests), quick (minutes), full (the paper's protocol)")
	workers := fs.Int("workers", 0, "fits at once over all the protocols (0: one per core)")
	dir := fs.String("dir", "", "write each protocol's rows to DIR/NAME-PROFILE.jsonl (models beside them) instead of its default results file")
	status := fs.Bool("status", false, "run nothing: print what the results files hold of each protocol's fits (fresh, stale, missing) and what a run would compute again, with its estimated time; NOTEBOOK arguments keep the protocols those notebooks run")
	table := fs.Bool("table", false, "run nothing: print the table of the profile's job time from the results files, in markdown (README.md, \"Profiles\"; the one output that is not JSON)")
	fs.after = help("protocol all", nil)
	if err := fs.parse(args); err != nil {
		return err
	}
	if !*status && fs.NArg() > 0 {
		return fs.usageErr("unexpected arguments %q (NOTEBOOK arguments go with -status)", fs.Args())
	}
	if *status && *table {
		return fs.usageErr("-status and -table exclude each other")
	}
	prof, err := protocol.ParseProfile(*profileName)
	if err != nil {
		return fs.usageErr("-profile: %v", err)
	}
	if err := fs.intIn("workers", *workers, 0, maxWorkers, "fits at once over all the protocols, 0 for one per core"); err != nil {
		return err
	}
	if *status || *table {
		return printStatus(protocol.All(), prof, *dir, *workers, *table, fs.Args(), stdout, stderr)
	}
	if err := fs.guard(paths(folderArg("-dir", *dir)), dataFolders("")); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runAll(ctx, protocol.All(), prof, *workers, *dir, stdout, stderr)
}

// allResult is the JSON object "psub protocol all" prints after a run.
type allResult struct {
	Profile   string            `json:"profile"`
	Workers   int               `json:"workers"`
	Seconds   float64           `json:"seconds"`
	Protocols []protocolOutcome `json:"protocols"`
}

// protocolOutcome is one protocol's run within "psub protocol all".
type protocolOutcome struct {
	protocolResult
	Error string `json:"error,omitempty"`
}

// exclusive says whether p's fits must run alone (each on every core):
// those run after the others, outside the pool.
func exclusive(p protocol.Protocol) bool { return p.Name() == "efficiency" }

// runAll runs ps at once on one pool of workers fit slots (0: one per
// core), each into its default results file or dir/NAME-PROFILE.jsonl,
// then the exclusive ones one after another; it reports every protocol's
// outcome and fails when any failed.
func runAll(ctx context.Context, ps []protocol.Protocol, prof protocol.Profile, workers int, dir string, stdout, stderr io.Writer) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	slots := grid.NewSlots(workers)
	var mu sync.Mutex // guards stderr
	start := time.Now()
	out := allResult{Profile: string(prof), Workers: workers, Protocols: make([]protocolOutcome, len(ps))}
	runOne := func(i int, shared *grid.Slots) {
		p := ps[i]
		opt := protocol.Options{Profile: prof, Workers: workers, Slots: shared, Results: resultsOf(p, prof, dir)}
		r, err := runCounted(ctx, p, opt, &prefixWriter{mu: &mu, w: stderr, prefix: p.Name() + ": "}, "")
		res := protocolOutcome{protocolResult: r}
		if err != nil {
			res.Error = err.Error()
		}
		out.Protocols[i] = res
	}
	var g panics.Group // raises a protocol's panic here, for run's report
	for i, p := range ps {
		if !exclusive(p) {
			g.Go(func() { runOne(i, slots) })
		}
	}
	g.Wait()
	for i, p := range ps {
		if exclusive(p) {
			runOne(i, nil)
		}
	}
	out.Seconds = time.Since(start).Seconds()
	if err := writeJSON(stdout, out); err != nil {
		return err
	}
	var failed []string
	for _, r := range out.Protocols {
		if r.Error != "" {
			failed = append(failed, r.Protocol+": "+r.Error)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d protocols failed (rerun to retry: each resumes from its results file):\n  %s", len(failed), len(ps), strings.Join(failed, "\n  "))
	}
	return nil
}

// prefixWriter writes whole lines to w, each after prefix, one writer at
// a time (mu is shared by the protocols writing to w).
type prefixWriter struct {
	mu      *sync.Mutex
	w       io.Writer
	prefix  string
	partial []byte // a line not yet ended
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.partial = append(p.partial, b...)
	end := bytes.LastIndexByte(p.partial, '\n') + 1
	var out []byte
	for line := range bytes.Lines(p.partial[:end]) {
		out = append(append(out, p.prefix...), line...)
	}
	p.partial = p.partial[end:]
	if len(out) > 0 {
		if _, err := p.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}
