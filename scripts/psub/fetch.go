package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/data/fetch"
)

// runFetch gets the data sets (package data/fetch), checks them, or writes
// a mirror of them.
func runFetch(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fetch", "psub fetch [-dir DIR] [-mirror URL|DIR] [-raw URL] [-check] [-no-fallback] [-make-mirror OUT] [DATASET ...]", stdout)
	dir := fs.String("dir", "", "the data folder (default $PSUB_DATA, else ../shared/data beside the repository, where the loaders look)")
	mirror := fs.String("mirror", os.Getenv(fetch.MirrorEnv), "where the archives are: a base URL standing for https://github.com, or a folder laid out as OWNER/NAME/archive/COMMIT.tar.gz (default $"+fetch.MirrorEnv+", else GitHub)")
	check := fs.Bool("check", false, "only verify what the data folder holds (no network); exit 1 when a data set is incomplete")
	raw := fs.String("raw", os.Getenv("PSUB_DATA_RAW"), "the per-file fallback's host, standing for "+fetch.RawGitHub+" (default $PSUB_DATA_RAW, else GitHub)")
	noFallback := fs.Bool("no-fallback", false, "never download files one by one when the archive route fails")
	makeMirror := fs.String("make-mirror", "", "write into this folder the archives of the data sets, from the verified data folder, for -mirror")
	fs.after = func(w io.Writer) {
		fmt.Fprintf(w, "\nDATASET is any of %s (default: all). Exit status 1 while any of them\n", strings.Join(fetch.Names(), " "))
		fmt.Fprintln(w, "is incomplete (absent, unreachable, failing verification, or not derivable).")
	}
	if err := fs.parse(args); err != nil {
		return err
	}
	sets := fs.Args()
	if len(sets) == 0 || (len(sets) == 1 && sets[0] == "all") {
		sets = fetch.Names()
	}
	for _, s := range sets {
		if _, err := fetch.Lookup(s); err != nil {
			return fs.usageErr("%v", err)
		}
	}
	// Each set where the loaders find it (data.Locator), else in the
	// default folder; -dir decides for all.
	dirOf := func(set string) string {
		if *dir != "" {
			return *dir
		}
		if d, err := (data.Locator{}).Find(set); err == nil {
			return filepath.Dir(d)
		}
		return defaultDataDir()
	}
	if *makeMirror != "" {
		// The mirror is written from the data folders it archives: it may
		// not be one of them, lie inside one, or be the -mirror folder read.
		ins := paths(folderArg("-dir", *dir))
		if *dir == "" {
			for _, s := range sets {
				ins = append(ins, folderArg("the data folder of "+s, dirOf(s)))
			}
		}
		if *mirror != "" && !strings.Contains(*mirror, "://") {
			ins = append(ins, folderArg("-mirror", *mirror))
		}
		if err := fs.guard(paths(folderArg("-make-mirror", *makeMirror)), ins); err != nil {
			return err
		}
		var written []string
		for _, s := range sets {
			w, err := fetch.MakeMirror(dirOf(s), *makeMirror, []string{s})
			if err != nil {
				return err
			}
			written = append(written, w...)
		}
		fmt.Fprintf(stderr, "fetch: %d archives written under %s\n", len(written), *makeMirror)
		return writeJSON(stdout, map[string]any{"mirror": *makeMirror, "archives": written})
	}
	rep := fetch.Report{Dir: cmp.Or(*dir, defaultDataDir())}
	if *check {
		for _, s := range sets {
			r, err := fetch.Check(dirOf(s), []string{s})
			if err != nil {
				return err
			}
			rep.Sets = append(rep.Sets, r...)
		}
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
		return incomplete(rep.Sets, stderr)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	t0 := time.Now()
	for _, s := range sets {
		opt := fetch.Options{Dir: dirOf(s), Mirror: *mirror, RawBase: *raw, NoFallback: *noFallback, Log: stderr, Live: isTerminal(stderr)}
		r, err := fetch.Fetch(ctx, opt, []string{s})
		if err != nil {
			return err
		}
		rep.Sets = append(rep.Sets, r.Sets...)
		rep.Requests += r.Requests
		rep.Downloaded += r.Downloaded
	}
	rep.Seconds = time.Since(t0).Seconds()
	if err := writeJSON(stdout, rep); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "fetch: %d request(s), %.1f MB downloaded in %.1f s\n", rep.Requests, float64(rep.Downloaded)/1e6, rep.Seconds)
	if err := incomplete(rep.Sets, stderr); err != nil {
		return err
	}
	if abs := mustAbs(rep.Dir); abs != mustAbs(defaultDataDir()) && os.Getenv(data.EnvVar) == "" {
		fmt.Fprintf(stderr, "fetch: the loaders find this folder when you export %s=%s\n", data.EnvVar, abs)
	}
	return nil
}

// incomplete prints each incomplete set's first problems and returns an
// error naming them.
func incomplete(reps []fetch.SetReport, stderr io.Writer) error {
	var bad []string
	for _, r := range reps {
		if r.Complete() {
			fmt.Fprintf(stderr, "fetch: %s complete (%d files verified) in %s\n", r.Set, r.Files, r.Dir)
			continue
		}
		bad = append(bad, r.Set)
		fmt.Fprintf(stderr, "fetch: %s INCOMPLETE: %d of %d files missing or failing verification in %s (source files %.1f MB)\n", r.Set, r.Missing, r.Files, r.Dir, float64(r.Bytes)/1e6)
		for _, p := range r.Problems {
			fmt.Fprintf(stderr, "  %s\n", p)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%d data set(s) incomplete: %s; run scripts/fetch-data %s again (it keeps what verified; with a mirror: --mirror URL or $%s)",
			len(bad), strings.Join(bad, " "), strings.Join(bad, " "), fetch.MirrorEnv)
	}
	return nil
}

// defaultDataDir is where fetched data goes: $PSUB_DATA, else
// ../shared/data beside the module root (data.DefaultRelDir).
func defaultDataDir() string {
	if d := os.Getenv(data.EnvVar); d != "" {
		return d
	}
	root, err := data.Locator{}.ModuleRoot()
	if err != nil {
		return filepath.Join("..", "shared", "data")
	}
	return filepath.Clean(filepath.Join(root, data.DefaultRelDir))
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
