package grid

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/internal/jsontext"
	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/internal/panics"
	"github.com/probably-submodular/crf/internal/safefile"
)

// Job is one cell of an experiment grid: train on fold Fold of Dataset with
// constraint set Set, loss Loss and the paper's C, and measure. Tag tells
// apart stages that share the other fields (e.g. "select" for a run on the
// held-out part of a training fold, "final" for the retrained model).
type Job struct {
	Dataset string  `json:"dataset"`
	Set     string  `json:"set"`
	Loss    string  `json:"loss"`
	C       float64 `json:"c"`
	Fold    int     `json:"fold"`
	Tag     string  `json:"tag,omitempty"`
}

// Key identifies a job in a results file.
func (j Job) Key() string {
	return fmt.Sprintf("%s|%s|%s|%s|%d|%s", j.Dataset, j.Set, j.Loss, strconv.FormatFloat(j.C, 'g', -1, 64), j.Fold, j.Tag)
}

// Result is one tidy row: the job, its metrics (accuracies, iterations,
// hard constraints, ...), its wall time, and the error if it failed.
type Result struct {
	Job
	Metrics map[string]float64 `json:"metrics"`
	// Detail holds what a job measures beyond numbers (a curve, a table
	// row of strings), as JSON; most jobs leave it empty.
	Detail  json.RawMessage `json:"detail,omitempty"`
	Seconds float64         `json:"seconds"`
	Error   string          `json:"error,omitempty"`
	// Params is ParamsKey(Options.Params) of the grid that ran the job.
	Params string `json:"params,omitempty"`
	// Code is the version of the code that ran the job (zero in rows
	// written before versions were recorded: they count as stale).
	Code codever.CodeVersion `json:"code,omitzero"`
	// Digest is on disk only: the SHA-256 of the row's JSON without it,
	// written by Run and WriteResultsJSONL, checked and cleared by the
	// readers, so that a row edited by hand is refused (rows of older
	// files have none).
	Digest string `json:"digest,omitempty"`
}

// JobFunc runs one job and returns its metrics (and may give its row a
// Detail with SetDetail(ctx, …)). It is called from several
// goroutines at once: when the grid runs more than one job in parallel, it
// should keep each job on one core (psub.Settings.Workers = 1).
type JobFunc func(ctx context.Context, job Job) (map[string]float64, error)

// Progress is reported after every job.
type Progress struct {
	Done    int    // jobs finished in this run (including failures)
	Skipped int    // jobs found in the results file and not re-run
	Total   int    // all jobs of the grid
	Last    Result // the job that just finished
}

// Options sets Run. The zero value runs on all cores without a
// results file.
type Options struct {
	// Workers is how many jobs run at once (0 means GOMAXPROCS).
	Workers int
	// Results is a JSON Lines file of Result rows. A job whose key has a
	// successful row of the running code and the same Params is not run
	// again (resume); each finished job is appended at once, so an
	// interrupted grid loses at most the jobs that were running. Rows of
	// other code or Params are stale: the job runs again and its new row is
	// appended (the file keeps the history; ReadResults takes the newest
	// row of each key). "" means no file (data.ResultsPath gives the
	// default place, out/ under the module root).
	Results string
	// Params is what the jobs depend on besides their key (tolerance,
	// iteration limit, data options): a settings struct, or the part of one
	// that matters, written into every row as its ParamsKey. nil means none.
	Params any
	// Reuse says which rows are reused: the zero value reads PSUB_REUSE
	// (ReuseEnv), which reuses only current rows unless it is "stale".
	Reuse ReusePolicy
	// Code, when set, is the running code's version, which rows are
	// written with and compared to: codever.CodeOf the fit's entry points, so that
	// only a change of the code the fits execute makes the rows stale
	// (package protocol passes its protocol's Code; tests simulate a code
	// change with it). nil means codever.CurrentCode(), the whole library source.
	Code *codever.CodeVersion
	// Report, when set, is called once before the first job runs with what
	// was reused from the results file and why (print it). When nil, a
	// warning about reused stale rows goes to stderr.
	Report func(Report)
	// Progress, when set, is called after every job, from one goroutine at
	// a time.
	Progress func(Progress)
	// After, when set, names the job a job must wait for (the fit whose
	// working set it starts from, say): the job is not started before that
	// one has finished, in this run or an earlier one. ok false, or a job
	// not in the grid, means no wait; a job still runs when the one it
	// waits for fails. Which ready job starts first: see Cost.
	After func(Job) (Job, bool)
	// Cost estimates what a job takes (seconds, say; only ratios matter).
	// Among the ready jobs, the one heading the costliest chain of waits
	// (After) starts first, so that a long chain does not start last and
	// keep one worker busy while the others idle. nil means an estimate from
	// the rows in the Results file (an earlier run's, stale or not) and of
	// the jobs finished so far, estimated again after every job; before
	// any is known, and always on one worker (where the order does not
	// change the grid's time), ready jobs start in the order given, as they
	// do for a Cost that is 0 everywhere.
	Cost func(Job) float64
	// Slots, when set, is a pool shared with other grids running at
	// once: each job holds one of its slots while it runs (Workers still
	// bounds this grid's jobs). nil means none.
	Slots *Slots
}

// Jobs lists every (dataset, set, loss, C, fold) combination, folds
// numbered 0..folds−1, in that nesting order.
func Jobs(datasets, sets, losses []string, cs []float64, folds int) []Job {
	var jobs []Job
	for _, d := range datasets {
		for _, s := range sets {
			for _, l := range losses {
				for _, c := range cs {
					for f := range folds {
						jobs = append(jobs, Job{Dataset: d, Set: s, Loss: l, C: c, Fold: f})
					}
				}
			}
		}
	}
	return jobs
}

// Run runs fn on every job, Workers at a time, and returns one result
// per job in the order of jobs (rows loaded from the results file for
// reused jobs). A failing job is recorded with its error and does not stop
// the grid; failed rows are re-run on resume. Run itself fails on
// duplicate jobs, bad Params, a bad PSUB_REUSE, an unreadable results file,
// or a cancelled context (after the running jobs return).
func Run(ctx context.Context, jobs []Job, fn JobFunc, opt Options) ([]Result, error) {
	index := make(map[string]int, len(jobs))
	for i, j := range jobs {
		if _, dup := index[j.Key()]; dup {
			return nil, fmt.Errorf("grid: job %s listed twice", j.Key())
		}
		index[j.Key()] = i
	}
	policy, err := opt.Reuse.resolve()
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	params := ""
	if opt.Params != nil {
		if params, err = ParamsKey(opt.Params); err != nil {
			return nil, fmt.Errorf("grid: %w", err)
		}
	}
	code := runningCode(opt.Code)
	rep := Report{File: opt.Results, Jobs: len(jobs), Code: code, Policy: policy}
	results := make([]Result, len(jobs))
	done := make([]bool, len(jobs))
	var out *os.File
	var prev []Result // the results file's rows
	if opt.Results != "" {
		if err := os.MkdirAll(filepath.Dir(opt.Results), 0o755); err != nil {
			return nil, err
		}
		// One grid at a time per results file: two would both run every
		// job and append every row.
		lock, err := safefile.TryLock(safefile.LockPath(opt.Results))
		if errors.Is(err, safefile.ErrLocked) {
			return nil, fmt.Errorf("grid: results file %s is in use by another run (%v); wait for it to finish, or give this grid another results file", opt.Results, err)
		}
		if err != nil {
			return nil, fmt.Errorf("grid: %w", err)
		}
		defer lock.Unlock()
		if prev, err = openResults(opt.Results); err != nil {
			return nil, err
		}
		plan := planReuse(prev, index, code, params, policy)
		if out, err = os.OpenFile(opt.Results, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err != nil {
			return nil, err
		}
		defer out.Close()
		for i, r := range plan.rows {
			if plan.use[i] {
				results[i], done[i] = r, true
			}
		}
		// A reused row that is not its key's newest in the file is appended
		// again, so that ReadResults gives the rows this grid used.
		for _, r := range plan.reappend {
			if err := appendResult(out, r); err != nil {
				return nil, fmt.Errorf("grid: writing %s: %w", opt.Results, err)
			}
		}
		rep.Reused, rep.StaleReused, rep.StaleIgnored, rep.Stale = plan.reused, plan.staleReused, plan.staleIgnored, plan.stale
	}
	skipped := rep.Reused + rep.StaleReused
	rep.ToRun = len(jobs) - skipped
	if opt.Report != nil {
		opt.Report(rep)
	} else if rep.StaleReused > 0 {
		fmt.Fprintln(os.Stderr, rep)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	waitFor, err := dependencies(jobs, index, done, opt.After)
	if err != nil {
		return nil, err
	}
	todo := make(chan task)
	fin := make(chan int)
	var mu sync.Mutex // guards out, the progress count and the callback
	var writeErr error
	finished := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for t := range todo {
				i := t.i
				if opt.Slots != nil && opt.Slots.acquire(ctx, t.rank) != nil {
					// Stopped while waiting for a slot: the job has not
					// run, and gets no row (feed stops starting jobs).
					fin <- i
					continue
				}
				start := time.Now()
				jctx, detail := withDetailSlot(ctx)
				// A panicking fit (a bug) fails its row, saying so,
				// and the grid goes on.
				var m map[string]float64
				err := panics.Call(func() (err error) { m, err = fn(jctx, jobs[i]); return err })
				r := Result{Job: jobs[i], Metrics: m, Detail: detail.raw, Seconds: time.Since(start).Seconds(), Params: params, Code: code}
				if opt.Slots != nil {
					opt.Slots.release()
				}
				if err != nil {
					r.Error = err.Error()
				}
				results[i] = r
				mu.Lock()
				if out != nil && writeErr == nil {
					writeErr = appendResult(out, r)
				}
				finished++
				if opt.Progress != nil {
					opt.Progress(Progress{Done: finished, Skipped: skipped, Total: len(jobs), Last: r})
				}
				mu.Unlock()
				fin <- i
			}
		})
	}
	q := newQueue(done, waitFor, priorities(jobs, waitFor, opt.Cost))
	if opt.Cost == nil && workers > 1 {
		// results[i] is written before i is sent on fin.
		q.learning(jobs, waitFor, prev, func(i int) Result { return results[i] })
	}
	ctxErr := feed(ctx, q, todo, fin)
	close(todo)
	wg.Wait()
	if writeErr != nil {
		return results, fmt.Errorf("grid: writing %s: %w", opt.Results, writeErr)
	}
	if ctxErr != nil {
		return results, fmt.Errorf("grid: stopped after %d of %d jobs: %w", finished, len(jobs)-skipped, ctxErr)
	}
	return results, nil
}

func appendResult(w io.Writer, r Result) error {
	r = sanitized(r)
	r.Digest = ""
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	// The digest is of the row as a reader decodes it (JSON replaces
	// invalid UTF-8, say), so that reading it back gives the same digest.
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		return err
	}
	if back.Digest, err = rowDigest(back); err != nil {
		return err
	}
	if b, err = json.Marshal(back); err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// sanitized replaces non-finite metrics, which JSON cannot hold, by an
// error note: they are a bug in the job function, not data.
func sanitized(r Result) Result {
	bad := func(_ string, v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	for k, v := range r.Metrics {
		if bad(k, v) {
			r.Metrics = maps.Clone(r.Metrics)
			maps.DeleteFunc(r.Metrics, bad)
			if r.Error == "" {
				r.Error = fmt.Sprintf("metric %q is %v", k, v)
			}
			break
		}
	}
	return r
}

// openResults reads an existing results file (none is fine). A last line
// cut short by an interrupted run (no trailing newline, not valid JSON) is
// cut off the file so that appending continues on a clean line; any other
// bad line is an error naming it.
func openResults(path string) ([]Result, error) {
	b, err := membudget.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	lines := bytes.Split(b, []byte{'\n'})
	last := len(lines) - 1 // the text after the final newline ("" if none)
	var rs []Result
	for i, ln := range lines {
		if i == 0 {
			ln = jsontext.TrimBOM(ln)
		}
		if len(bytes.TrimSpace(ln)) == 0 {
			continue
		}
		r, notRow, err := readRow(path, i+1, ln)
		if notRow && i == last && interruptedRow(ln) {
			// An interrupted write: drop it.
			return rs, os.Truncate(path, int64(len(b)-len(ln)))
		}
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
		if i == last {
			// A complete row without its newline: end the line before appending.
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			_, err = f.Write([]byte{'\n'})
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return rs, err
		}
	}
	return rs, nil
}

// rowStart is how every row this package writes begins (Job's first field).
const rowStart = `{"dataset":`

// decodeRow decodes one line of a results file: a JSON object with a
// "dataset", as every row has; another JSON value or object (a model file
// given as -results, say) is not a row.
func decodeRow(ln []byte) (Result, error) {
	var r Result
	if err := json.Unmarshal(ln, &r); err != nil {
		return r, fmt.Errorf("not a result row: %s", jsontext.Explain(err))
	}
	if r.Dataset == "" {
		return r, fmt.Errorf("not a result row: no \"dataset\" (is this a results file of psub protocol?)")
	}
	return r, nil
}

// readRow reads line n (from 1) of the results file path: the row, its
// digest checked and cleared. notRow says that the line is no row at all
// (decodeRow's error) rather than a row whose digest fails.
func readRow(path string, n int, ln []byte) (r Result, notRow bool, err error) {
	if r, err = decodeRow(ln); err != nil {
		return r, true, fmt.Errorf("%s:%d: %v", path, n, err)
	}
	if err := checkDigest(&r); err != nil {
		return r, false, fmt.Errorf("%s:%d: job %s: %w", path, n, r.Key(), err)
	}
	return r, false, nil
}

// interruptedRow reports whether an undecodable last line is what a write
// cut short leaves: the start of a row. Anything else (a one-line text
// file given as -results) is not cut off but refused, so that a file that
// is not a results file is never truncated.
func interruptedRow(ln []byte) bool {
	ln = bytes.TrimSpace(ln)
	n := min(len(ln), len(rowStart))
	return bytes.HasPrefix(ln, []byte(rowStart[:n]))
}

// dependencies gives, per job, the index of the job it waits for (Options.After), or −1.
func dependencies(jobs []Job, index map[string]int, done []bool, after func(Job) (Job, bool)) ([]int, error) {
	waitFor := make([]int, len(jobs))
	for i, j := range jobs {
		waitFor[i] = -1
		if after == nil || done[i] {
			continue
		}
		p, ok := after(j)
		if !ok {
			continue
		}
		k, listed := index[p.Key()]
		switch {
		case !listed || done[k]:
		case k == i:
			return nil, fmt.Errorf("grid: job %s waits for itself", j.Key())
		default:
			waitFor[i] = k
		}
	}
	// Every chain must end at a job that waits for nothing.
	for i := range jobs {
		for k, steps := i, 0; waitFor[k] >= 0; k, steps = waitFor[k], steps+1 {
			if steps > len(jobs) {
				return nil, fmt.Errorf("grid: job %s waits in a cycle", jobs[i].Key())
			}
		}
	}
	return waitFor, nil
}

// task is a job handed to a worker, with its rank among the ready jobs
// (the cost of the chain of waits it heads), which Slots serve by.
type task struct {
	i    int
	rank float64
}

// feed hands the jobs not done to the workers in the order of q until
// all have finished or ctx is cancelled (then it waits for the running
// ones and returns ctx's error).
func feed(ctx context.Context, q *queue, todo chan<- task, fin <-chan int) error {
	running := 0
	var ctxErr error
	for q.left > 0 {
		if ctxErr != nil {
			if running == 0 {
				break
			}
			<-fin
			running--
			continue
		}
		var send chan<- task
		next, ok := q.peek()
		if ok {
			send = todo
		}
		select {
		case send <- task{i: next, rank: q.rank(next)}:
			q.take()
			running++
		case i := <-fin:
			running--
			q.finish(i)
		case <-ctx.Done():
			ctxErr = ctx.Err()
		}
	}
	return ctxErr
}
