package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/probably-submodular/crf/internal/runenv"
	"github.com/probably-submodular/crf/viz"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "site:", err)
		os.Exit(1)
	}
}

const usage = `usage: site COMMAND [flags]
  static -out DIR -npm DIR    copy MathJax 2 and require.js from the npm folder into DIR/static,
                              and write the charts' echarts library to DIR/assets/echarts.min.js
  echarts -dir DIR -npm DIR   write the echarts library to DIR/assets/echarts.min.js (beside the
                              notebooks: their saved charts load it by that relative URL)
  nbconvert-flags             print the nbconvert options that point pages at DIR/static
  record -out DIR -notebook NB -status ok|failed -seconds S -profile P [-run ID] [-errors TEXT]
                              record one notebook's run in DIR/notebooks/NAME.run.json
  style PAGE...               add the site's style to nbconvert pages (long code lines wrap)
  data-sets NB...             print, one line per notebook, the data sets it reads (none: an empty line)
  needs-data -out DIR -notebook NB -sets "A B" [-why TEXT] -profile P [-run ID]
                              write DIR/NAME.html saying what data NB needs and the command, and its record
  index -out DIR              write DIR/index.html from DIR/notebooks (executed notebooks, records)
  check -out DIR              fail when a page loads a script, style or image by file:// or network URL`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("no command\n%s", usage)
	}
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet("site "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "out", "the site's folder (scripts/reproduce's out/)")
	// Each command's flags, then one parse.
	var npm, dir, nb, sets, why *string
	var r Record
	switch cmd {
	case "static", "echarts":
		npm = fs.String("npm", ".cache/npm", "the npm prefix of scripts/assets (holds node_modules)")
		if cmd == "echarts" {
			dir = fs.String("dir", "notebooks", "the folder of the notebooks (or pages) whose charts load it")
		}
	case "record", "needs-data":
		nb = fs.String("notebook", "", "the source notebook (notebooks/NN-name.ipynb)")
		fs.StringVar(&r.Profile, "profile", "", "profile asked for (quick or full)")
		fs.StringVar(&r.Run, "run", "", "id shared by the notebooks of one scripts/reproduce run")
		if cmd == "record" {
			fs.StringVar(&r.Status, "status", "", "ok or failed")
			fs.Float64Var(&r.Seconds, "seconds", 0, "wall time of the run")
			fs.StringVar(&r.Errors, "errors", "", "what failed, for a failed notebook")
		} else {
			sets = fs.String("sets", "", "the missing data sets, space-separated")
			why = fs.String("why", "", "why they were not fetched")
		}
	case "nbconvert-flags", "style", "data-sets", "index", "check":
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch cmd {
	case "static":
		st, err := SyncStatic(*npm, *out)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "static: %d files, %.1f MB in %s (%d copied, %d removed)\n",
			st.Files, float64(st.Bytes)/1e6, filepath.Join(*out, staticDir), st.Copied, st.Removed)
		return writeEcharts(stdout, *npm, *out)
	case "echarts":
		return writeEcharts(stdout, *npm, *dir)
	case "nbconvert-flags":
		for _, f := range NbconvertFlags() {
			fmt.Fprintln(stdout, f)
		}
		return nil
	case "record", "needs-data":
		switch {
		case sets == nil && *nb == "":
			return fmt.Errorf("record: -notebook is required")
		case sets != nil && (*nb == "" || strings.TrimSpace(*sets) == ""):
			return fmt.Errorf("needs-data: -notebook and -sets are required")
		}
		if sets != nil {
			n, err := WriteNeedsData(*out, *nb, strings.Fields(*sets), *why)
			if err != nil {
				return err
			}
			r.Status, r.Errors = NeedsDataStatus, n.Summary()
		}
		r.Notebook = filepath.ToSlash(*nb)
		r.Name = strings.TrimSuffix(filepath.Base(*nb), ".ipynb")
		r.Finished = time.Now().UTC().Truncate(time.Second)
		r.Commit, r.Machine = runenv.Commit(), runenv.Machine()
		return WriteRecord(*out, r)
	case "style":
		return stylePages(fs.Args())
	case "data-sets":
		for _, nb := range fs.Args() {
			fmt.Fprintln(stdout, strings.Join(DataSets(nb), " "))
		}
		return nil
	case "index":
		s, err := LoadSite(*out)
		if err != nil {
			return err
		}
		for _, w := range s.Warnings {
			fmt.Fprintln(stderr, "site index: warning:", w)
		}
		if err := WriteIndex(*out, s); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "index: %s, %d notebooks (%s)\n", filepath.Join(*out, "index.html"), len(s.Rows), s.Counts())
		return nil
	}
	// check
	pages, problems, err := CheckSite(*out)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stderr, "  "+p.String())
		}
		return fmt.Errorf("%d of the pages in %s would not work elsewhere (%d problems above): re-render them with scripts/reproduce (pages rendered before it copied MathJax and require.js into %s/static load them from this machine)", countPages(problems), *out, len(problems), *out)
	}
	fmt.Fprintf(stdout, "check: %d pages in %s load no file:// or network URL, and every local reference exists\n", pages, *out)
	return nil
}

// writeEcharts writes the echarts library of the npm folder to
// dir/assets/echarts.min.js (viz.EchartsAsset), where the charts of the
// notebooks in dir, and of the pages rendered from them, load it.
func writeEcharts(stdout io.Writer, npm, dir string) error {
	src := filepath.Join(npm, filepath.FromSlash(viz.EchartsNpmFile))
	lib, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("%v; run scripts/assets, which installs echarts with npm into .cache/npm", err)
	}
	p, err := viz.WriteEchartsAsset(dir, string(lib))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "echarts: %s (from %s)\n", p, src)
	return nil
}

func countPages(ps []Problem) int {
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.File] = true
	}
	return len(seen)
}
