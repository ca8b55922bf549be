package fetch

import (
	"archive/tar"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/safefile"
)

// GitHub is the default archive host, RawGitHub the per-file one.
const (
	GitHub    = "https://github.com"
	RawGitHub = "https://raw.githubusercontent.com"
)

// MirrorEnv names the environment variable holding a mirror (Options.Mirror).
const MirrorEnv = "PSUB_DATA_MIRROR"

// Options say where the data goes and where it comes from.
type Options struct {
	// Dir is the data folder: each data set is its sub-folder.
	Dir string
	// Mirror is where the archives are: a base URL standing for
	// https://github.com (BASE/OWNER/NAME/archive/COMMIT.tar.gz) or a local
	// folder laid out the same way (MakeMirror writes one); "" is GitHub.
	Mirror string
	// RawBase is the per-file fallback's host ("" is RawGitHub);
	// NoFallback turns the fallback off.
	RawBase    string
	NoFallback bool
	// Client makes the requests; nil is a client that gives up on a
	// connection after 20 s.
	Client *http.Client
	// Log gets one line per step; Live redraws a download's progress in
	// place (Log is a terminal).
	Log  io.Writer
	Live bool
}

// SetReport is the state of one data set after Check or Fetch.
type SetReport struct {
	Set      string   `json:"set"`
	Dir      string   `json:"dir"`
	Files    int      `json:"files"`   // source files and derived files
	Present  int      `json:"present"` // verified before this run
	Fetched  int      `json:"fetched"` // downloaded and verified by this run
	Derived  int      `json:"derived"` // made and verified by this run
	Missing  int      `json:"missing"` // absent or failing verification at the end
	Bytes    int64    `json:"bytes"`   // size of the source files
	Route    string   `json:"route,omitempty"`
	Problems []string `json:"problems,omitempty"` // the first few
}

// Complete reports whether every file of the set is there and verified.
func (s SetReport) Complete() bool { return s.Missing == 0 }

// Report is the outcome of a Fetch.
type Report struct {
	Dir        string      `json:"dir"`
	Sets       []SetReport `json:"sets"`
	Requests   int64       `json:"requests"`
	Downloaded int64       `json:"downloaded_bytes"`
	Seconds    float64     `json:"seconds"`
}

// Complete reports whether every set is complete.
func (r Report) Complete() bool {
	return !slices.ContainsFunc(r.Sets, func(s SetReport) bool { return !s.Complete() })
}

// state is what a data set's folder holds: the files to get (local path to
// sha256) and the derived files to make (path to pixel sum).
type state struct {
	src     Source
	dir     string
	need    map[string]string
	derive  map[string]string
	present int
	files   int // source and derived
	sources int
	bad     []string
}

// inspect verifies every file of set in dir/set, in parallel.
func inspect(dir string, src Source) (*state, error) {
	sums, err := data.Checksums(src.Set)
	if err != nil {
		return nil, err
	}
	pix, err := data.DerivedPixelSums(src.Set)
	if err != nil {
		return nil, err
	}
	st := &state{src: src, dir: filepath.Join(dir, src.Set), need: map[string]string{}, derive: map[string]string{}}
	type job struct {
		file, want string
		pixels     bool
	}
	var jobs []job
	for f, s := range sums {
		jobs = append(jobs, job{f, s, false})
	}
	for f, s := range pix {
		jobs = append(jobs, job{f, s, true})
	}
	st.files, st.sources = len(jobs), len(sums)
	errs := make([]string, len(jobs))
	parallel(len(jobs), func(i int) {
		j := jobs[i]
		p := filepath.Join(st.dir, filepath.FromSlash(j.file))
		var got string
		var err error
		if j.pixels {
			got, err = data.PNGPixelSum(p)
		} else {
			got, err = data.FileSHA256(p)
		}
		switch {
		case errors.Is(err, os.ErrNotExist):
			errs[i] = "-"
		case err != nil:
			errs[i] = err.Error()
		case got != j.want:
			kind := "sha256"
			if j.pixels {
				kind = "pixel sum"
			}
			errs[i] = fmt.Sprintf("%s: %s %s, expected %s", j.file, kind, got, j.want)
		}
	})
	for i, j := range jobs {
		switch {
		case errs[i] == "":
			st.present++
			continue
		case errs[i] != "-":
			st.bad = append(st.bad, errs[i])
		}
		if j.pixels {
			st.derive[j.file] = j.want
		} else {
			st.need[j.file] = j.want
		}
	}
	slices.Sort(st.bad)
	return st, nil
}

func (st *state) report() SetReport {
	r := SetReport{Set: st.src.Set, Dir: st.dir, Files: st.files, Present: st.present,
		Missing: len(st.need) + len(st.derive), Bytes: st.src.Bytes}
	r.Problems = append(r.Problems, st.bad[:min(len(st.bad), 5)]...)
	return r
}

// Check verifies the sets in dir without any network: a file counts when
// its sha256 (its pixel sum, for a derived file) is the shipped one.
func Check(dir string, sets []string) ([]SetReport, error) {
	var out []SetReport
	for _, s := range sets {
		src, err := Lookup(s)
		if err != nil {
			return nil, err
		}
		st, err := inspect(dir, src)
		if err != nil {
			return nil, err
		}
		out = append(out, st.report())
	}
	return out, nil
}

// fetcher holds one Fetch's connections and counters.
type fetcher struct {
	opt        Options
	client     *http.Client
	requests   atomic.Int64
	downloaded atomic.Int64
}

// countingTransport counts requests and the bytes of their bodies.
type countingTransport struct {
	f    *fetcher
	next http.RoundTripper
}

func (t countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.f.requests.Add(1)
	resp, err := t.next.RoundTrip(r)
	if err == nil {
		resp.Body = &countingBody{resp.Body, &t.f.downloaded}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// Fetch brings every file of the sets that dir lacks or holds damaged: one
// archive per source repository (from the mirror or GitHub), of which only
// the set's files are kept, each verified; the files still missing after
// that come one by one from RawBase (unless NoFallback); derived files are
// then made from the source files and verified. What verifies is kept, so
// an interrupted Fetch resumes: a partial download continues where it
// stopped (or starts over when the server cannot resume), verified files
// are not fetched again. The error is for bad options; a set that cannot be
// completed is reported incomplete.
func Fetch(ctx context.Context, opt Options, sets []string) (Report, error) {
	t0 := time.Now()
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	opt.RawBase = cmp.Or(opt.RawBase, RawGitHub)
	f := &fetcher{opt: opt}
	base := opt.Client
	if base == nil {
		base = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 20 * time.Second}).DialContext,
			TLSHandshakeTimeout:   20 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
		}}
	}
	next := base.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c := *base
	c.Transport = countingTransport{f, next}
	f.client = &c

	rep := Report{Dir: opt.Dir}
	for _, s := range sets {
		src, err := Lookup(s)
		if err != nil {
			return rep, err
		}
		r, err := f.set(ctx, src)
		if err != nil {
			return rep, err
		}
		rep.Sets = append(rep.Sets, r)
	}
	rep.Requests, rep.Downloaded = f.requests.Load(), f.downloaded.Load()
	rep.Seconds = time.Since(t0).Seconds()
	return rep, nil
}

func (f *fetcher) logf(format string, a ...any) { fmt.Fprintf(f.opt.Log, format+"\n", a...) }

// set completes one data set.
func (f *fetcher) set(ctx context.Context, src Source) (SetReport, error) {
	st, err := inspect(f.opt.Dir, src)
	if err != nil {
		return SetReport{}, err
	}
	rep := st.report()
	if len(st.need) == 0 && len(st.derive) == 0 {
		f.logf("%s: all %d files present and verified in %s", src.Set, st.files, st.dir)
		return rep, nil
	}
	var problems []string
	if n := len(st.need); n > 0 {
		f.logf("%s: %d of %d files to fetch (%s of source files in all) from %s", src.Set, n, st.sources, mb(src.Bytes), src.Short())
		got, route, err := f.fromArchive(ctx, st)
		rep.Fetched += got
		rep.Route = route
		if err != nil {
			f.logf("%s: the archive route failed: %v", src.Set, err)
			problems = append(problems, "archive: "+err.Error())
		}
		if len(st.need) > 0 && !f.opt.NoFallback {
			got, err := f.perFile(ctx, st)
			rep.Fetched += got
			if got > 0 {
				rep.Route = strings.TrimPrefix(rep.Route+", per-file", ", ")
			}
			if err != nil {
				problems = append(problems, "per-file: "+err.Error())
			}
		}
	}
	if len(st.derive) > 0 {
		n, err := f.derive(st)
		rep.Derived = n
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	rep.Missing = len(st.need) + len(st.derive)
	rep.Problems = append(problems, st.bad[:min(len(st.bad), 5)]...)
	if rep.Missing > 0 {
		f.logf("%s: INCOMPLETE: %d of %d files missing or failing verification in %s", src.Set, rep.Missing, st.files, st.dir)
	} else {
		f.logf("%s: complete: %d files verified (%d fetched, %d derived)", src.Set, st.files, rep.Fetched, rep.Derived)
	}
	return rep, nil
}

// fromArchive reads the source's archive (downloading it first, unless the
// mirror is a folder) and keeps the needed files that verify.
func (f *fetcher) fromArchive(ctx context.Context, st *state) (int, string, error) {
	src := st.src
	m := strings.TrimPrefix(f.opt.Mirror, "file://")
	if m != "" && !strings.HasPrefix(m, "http://") && !strings.HasPrefix(m, "https://") {
		p := filepath.Join(m, filepath.FromSlash(src.ArchivePath()))
		r, err := os.Open(p)
		if err != nil {
			return 0, "mirror folder", fmt.Errorf("mirror folder %s: %w", m, err)
		}
		defer r.Close()
		f.logf("%s: reading %s", src.Set, p)
		n, err := f.extract(r, st)
		return n, "mirror folder", err
	}
	// m is "" or an http(s) URL here.
	u := cmp.Or(strings.TrimSuffix(m, "/"), GitHub) + "/" + src.ArchivePath()
	dest := filepath.Join(f.opt.Dir, ".fetch", strings.ReplaceAll(src.Repo, "/", "_")+"-"+src.Commit+".tar.gz")
	if err := f.download(ctx, u, dest); err != nil {
		return 0, "archive", err
	}
	r, err := os.Open(dest)
	if err != nil {
		return 0, "archive", err
	}
	n, err := f.extract(r, st)
	r.Close()
	if err == nil || isCorrupt(err) {
		// Read through (every file it had is kept) or damaged: either way
		// not worth keeping.
		os.Remove(dest)
		os.Remove(filepath.Dir(dest))
	}
	return n, "archive", err
}

type corruptError struct{ err error }

func (e corruptError) Error() string { return "damaged archive: " + e.err.Error() }
func (e corruptError) Unwrap() error { return e.err }

func isCorrupt(err error) bool { var c corruptError; return errors.As(err, &c) }

// download gets u into dest, through dest.part: a part left by an
// interrupted run is resumed with a Range request, or started over when the
// server answers with the whole file. An existing dest is complete.
func (f *fetcher) download(ctx context.Context, u, dest string) error {
	if _, err := os.Stat(dest); err == nil {
		f.logf("  %s: complete from an earlier run", dest)
		return nil
	}
	part := dest + ".part"
	var off int64
	if fi, err := os.Stat(part); err == nil {
		off = fi.Size()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if off > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", off))
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, unwrapURL(err))
	}
	defer resp.Body.Close()
	flags := os.O_WRONLY | os.O_CREATE
	total := resp.ContentLength
	switch {
	case resp.StatusCode == http.StatusPartialContent && off > 0 &&
		strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", off)):
		flags |= os.O_APPEND
		if total >= 0 {
			total += off
		}
		f.logf("  resuming %s at %s", u, mb(off))
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC
		if off > 0 {
			f.logf("  %s cannot resume (HTTP 200 to a Range request): starting over", u)
		}
		off = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		os.Remove(part)
		return fmt.Errorf("GET %s: %s for the rest of a partial download (removed; run again)", u, resp.Status)
	default:
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return err
	}
	f.logf("  GET %s (%s)", u, sizeOf(total))
	t0 := time.Now()
	pr := &progress{f: f, name: u, done: off, total: total, t0: t0, last: t0}
	_, cerr := io.Copy(out, io.TeeReader(resp.Body, pr))
	if err := out.Close(); cerr == nil {
		cerr = err
	}
	pr.print(true)
	if cerr != nil {
		return fmt.Errorf("GET %s: interrupted after %s (kept in %s; run again to resume): %w", u, mb(pr.done), part, cerr)
	}
	return os.Rename(part, dest)
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// progress prints a download's progress: in place on a terminal, else a
// line every 10 seconds.
type progress struct {
	f           *fetcher
	name        string
	done, total int64
	t0, last    time.Time
}

func (p *progress) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	every := 10 * time.Second
	if p.f.opt.Live {
		every = 200 * time.Millisecond
	}
	if now := time.Now(); now.Sub(p.last) >= every {
		p.last = now
		p.print(false)
	}
	return len(b), nil
}

func (p *progress) print(final bool) {
	line := fmt.Sprintf("  %s of %s, %.1f MB/s", mb(p.done), sizeOf(p.total), float64(p.done)/1e6/max(time.Since(p.t0).Seconds(), 1e-3))
	switch {
	case p.f.opt.Live && final:
		fmt.Fprintf(p.f.opt.Log, "\r%s\033[K\n", line)
	case p.f.opt.Live:
		fmt.Fprintf(p.f.opt.Log, "\r%s\033[K", line)
	default:
		fmt.Fprintln(p.f.opt.Log, line)
	}
}

// extract keeps the needed files of a GitHub archive (every path below one
// top folder) whose sha256 is right; the others are reported.
func (f *fetcher) extract(r io.Reader, st *state) (int, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return 0, corruptError{err}
	}
	tr := tar.NewReader(gz)
	got := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return got, corruptError{err}
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		_, rel, ok := strings.Cut(h.Name, "/")
		if !ok {
			continue
		}
		local, ok := st.src.Local(rel)
		want, needed := st.need[local]
		if !ok || !needed {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return got, corruptError{err}
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != want {
			st.bad = append(st.bad, fmt.Sprintf("%s: sha256 %x in the archive, expected %s", local, sum, want))
			continue
		}
		if err := writeFile(filepath.Join(st.dir, filepath.FromSlash(local)), b); err != nil {
			return got, err
		}
		delete(st.need, local)
		got++
	}
	if _, err := io.Copy(io.Discard, gz); err != nil {
		return got, corruptError{err}
	}
	f.logf("%s: %d files kept from the archive, %d still missing", st.src.Set, got, len(st.need))
	return got, nil
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safefile.WriteBytes(path, b)
}

// perFile downloads the files still needed one by one, stopping at the
// first failure to connect (the host is unreachable: every other request
// would fail the same way).
func (f *fetcher) perFile(ctx context.Context, st *state) (int, error) {
	files := slices.Sorted(maps.Keys(st.need))
	f.logf("%s: %d files one by one from %s", st.src.Set, len(files), f.opt.RawBase)
	got := 0
	for i, local := range files {
		remote, ok := st.src.Remote(local)
		if !ok {
			st.bad = append(st.bad, local+": no path in "+st.src.Short())
			continue
		}
		var esc []string
		for _, s := range strings.Split(remote, "/") {
			esc = append(esc, url.PathEscape(s))
		}
		u := strings.TrimSuffix(f.opt.RawBase, "/") + "/" + st.src.Repo + "/" + st.src.Commit + "/" + strings.Join(esc, "/")
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return got, err
		}
		resp, err := f.client.Do(req)
		if err != nil {
			return got, fmt.Errorf("GET %s: %w (stopped; %d files left)", u, unwrapURL(err), len(files)-i)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			return got, fmt.Errorf("GET %s: %w", u, err)
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusForbidden:
			return got, fmt.Errorf("GET %s: %s: the host limits requests; run again later (%d files left)", u, resp.Status, len(files)-i)
		case resp.StatusCode != http.StatusOK:
			st.bad = append(st.bad, fmt.Sprintf("%s: GET %s: %s", local, u, resp.Status))
			continue
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != st.need[local] {
			st.bad = append(st.bad, fmt.Sprintf("%s: sha256 %x from %s, expected %s", local, sum, u, st.need[local]))
			continue
		}
		if err := writeFile(filepath.Join(st.dir, filepath.FromSlash(local)), b); err != nil {
			return got, err
		}
		delete(st.need, local)
		got++
		if f.opt.Live {
			fmt.Fprintf(f.opt.Log, "\r  %d/%d\033[K", i+1, len(files))
		}
	}
	if f.opt.Live {
		fmt.Fprintln(f.opt.Log)
	}
	return got, nil
}

// derive makes the derived files whose sources are all present, in
// parallel, and keeps those whose pixel sum is right.
func (f *fetcher) derive(st *state) (int, error) {
	if st.src.Set != data.MitoDir {
		return 0, fmt.Errorf("%s: no rule makes its derived files", st.src.Set)
	}
	t0 := time.Now()
	masks, labels := data.MitoDerivedMasks()
	var todo []int
	blocked := 0
	for i, m := range masks {
		if _, ok := st.derive[m]; !ok {
			continue
		}
		if _, missing := st.need[labels[i]]; missing {
			blocked++
			continue
		}
		todo = append(todo, i)
	}
	f.logf("%s: rasterising %d masks from the polygon labels", st.src.Set, len(todo))
	errs := make([]string, len(todo))
	parallel(len(todo), func(k int) {
		i := todo[k]
		sum, err := data.DeriveMitoMask(st.dir, labels[i], masks[i])
		switch {
		case err != nil:
			errs[k] = err.Error()
		case sum != st.derive[masks[i]]:
			os.Remove(filepath.Join(st.dir, filepath.FromSlash(masks[i])))
			errs[k] = fmt.Sprintf("%s: rasterised with pixel sum %s, expected %s (removed)", masks[i], sum, st.derive[masks[i]])
		}
	})
	n := 0
	for k, i := range todo {
		if errs[k] != "" {
			st.bad = append(st.bad, errs[k])
			continue
		}
		delete(st.derive, masks[i])
		n++
	}
	f.logf("%s: %d masks made and verified in %.1f s", st.src.Set, n, time.Since(t0).Seconds())
	if blocked > 0 {
		return n, fmt.Errorf("%d derived masks cannot be made: their label files are missing", blocked)
	}
	if n < len(todo) {
		return n, fmt.Errorf("%d derived masks failed verification", len(todo)-n)
	}
	return n, nil
}

// parallel runs fn(0..n-1) on GOMAXPROCS goroutines.
func parallel(n int, fn func(i int)) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), max(n, 1)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func sizeOf(n int64) string {
	if n < 0 {
		return "size not announced"
	}
	return mb(n)
}
