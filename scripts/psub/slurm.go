package main

// The Slurm mode of psub protocol: a protocol's grid as an sbatch job array
// (one task per shard, each writing its own results file), a job that builds
// the problems once before it, and a job that merges the shards after it.
// Slurm schedules; psub only writes the scripts and, when asked, submits
// them.

import (
	"cmp"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

const slurmSynopsis = `psub protocol NAME -profile P -slurm DIR [-shards N] [-submit] [-cpus-per-task N] [-mem M] [-time T] [-partition P] [-account A]`

// slurmTaskTarget is the work (in core-seconds) the default shard count
// gives each array task: short enough for quick turnaround and backfill,
// long enough that loading the problems is a small part of a task.
const slurmTaskTarget = 30 * 60

// slurmPlan is what -slurm writes and submits; it is printed as JSON.
type slurmPlan struct {
	Protocol string           `json:"protocol"`
	Profile  protocol.Profile `json:"profile"`
	Dir      string           `json:"dir"`
	// Root is the module root, the jobs' working directory: the segment
	// cache (out/cache/segment) and the default results file are under
	// it, so it must be on storage that every node sees.
	Root string `json:"root"`
	// Psub is the binary the jobs run; Source is the version of the
	// checkout's source when the jobs were written (codever.CurrentCode), which
	// the jobs check before they run: rows record the version of the source
	// they find, which must be the one psub was built from.
	Psub      string `json:"psub"`
	Source    string `json:"source,omitempty"`
	Shards    int    `json:"shards"`
	CPUs      int    `json:"cpus_per_task"`
	Mem       string `json:"mem"`
	Time      string `json:"time"`
	Partition string `json:"partition,omitempty"`
	Account   string `json:"account,omitempty"`
	// Results is the merged results file.
	Results string `json:"results"`
	// Prepare says whether a job builds the problems before the array
	// (protocols with a Build step); PrepareTime is its time limit.
	Prepare     bool          `json:"prepare"`
	PrepareTime string        `json:"prepare_time,omitempty"`
	Cost        protocol.Cost `json:"cost"`
	Scripts     []string      `json:"scripts"`
	// Jobs are the submitted job ids (with -submit).
	Jobs *slurmJobs `json:"jobs,omitempty"`
}

type slurmJobs struct {
	Prepare string `json:"prepare,omitempty"`
	Array   string `json:"array"`
	Merge   string `json:"merge"`
}

// buildFunc returns the function that builds p's problems into the segment
// cache (data.DefaultSegmentCache), its Build method, or nil when p has none
// that writes there: -slurm DIR -prepare builds them once for all array
// tasks. The protocols' Build methods differ in what they return besides
// the built set.
func buildFunc(p protocol.Protocol) func(protocol.Profile, func(done, total int)) (items int, err error) {
	switch b := p.(type) {
	case interface {
		Build(protocol.Profile, func(int, int)) (*data.SegmentedSet, error)
	}:
		return func(prof protocol.Profile, building func(int, int)) (int, error) {
			set, err := b.Build(prof, building)
			if err != nil {
				return 0, err
			}
			return len(set.Items), nil
		}
	case interface {
		Build(protocol.Profile, func(int, int)) (*data.SegmentedSet, []data.Fold, error)
	}:
		return func(prof protocol.Profile, building func(int, int)) (int, error) {
			set, _, err := b.Build(prof, building)
			if err != nil {
				return 0, err
			}
			return len(set.Items), nil
		}
	}
	return nil
}

var (
	slurmMem  = regexp.MustCompile(`^[1-9][0-9]*[KMGT]?$`)
	slurmTime = regexp.MustCompile(`^([0-9]+|[0-9]+:[0-9]+|[0-9]+:[0-9]+:[0-9]+|[0-9]+-[0-9]+|[0-9]+-[0-9]+:[0-9]+|[0-9]+-[0-9]+:[0-9]+:[0-9]+)$`)
	slurmName = regexp.MustCompile(`^[A-Za-z0-9_.,-]+$`)
)

// runSlurm is "psub protocol NAME -slurm DIR ...": p is the protocol NAME
// names, args the flags after NAME. protocol.go hands such command lines
// over through runProtocol.
func runSlurm(p protocol.Protocol, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("protocol", slurmSynopsis, stdout)
	profile := fs.String("profile", "", "the profile to run: tiny, quick or full (required)")
	dir := fs.String("slurm", "", "write the job scripts into `DIR` (created; on storage the nodes share)")
	prepare := fs.Bool("prepare", false, "build the protocol's problems into the segment cache and stop (what DIR/prepare.sbatch runs)")
	checkSource := fs.String("check-source", "", "fail unless the checkout's source version is `HASH`, then stop, or -prepare (what the jobs run first)")
	shards := fs.Int("shards", 0, "array tasks (shards of the grid); 0: about 30 min of fits per CPU of a task, at most one per group of dependent fits")
	submit := fs.Bool("submit", false, "submit the jobs with sbatch (prepare, array, then merge, each after the previous one succeeded)")
	cpus := fs.Int("cpus-per-task", 1, "CPUs of an array task; it runs as many fits at once")
	mem := fs.String("mem", "", "memory of an array task, sbatch's --mem (e.g. 4G); default from the protocol's costs")
	limit := fs.String("time", "", "time limit of an array task, sbatch's --time (e.g. 2:00:00); default from the protocol's costs")
	partition := fs.String("partition", "", "sbatch's --partition for every job (default: the cluster's)")
	account := fs.String("account", "", "sbatch's --account for every job (default: yours)")
	results := fs.String("results", "", "the merged results `FILE`, to which the merge adds the shards' rows, keeping every row it holds (default: for the full profile the committed notebooks/results/NAME-full.jsonl, else out/NAME-PROFILE.jsonl, under the module root)")
	costs := fs.String("costs", "", "a results `FILE` to measure the fits' seconds from (default: the merged results file and DIR's shard files, those that exist)")
	psubBin := fs.String("psub", "", "the psub `BINARY` the jobs run (default: a copy of this one in DIR/bin)")
	fs.after = help("slurm", nil)
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	if strings.TrimSpace(*dir) == "" {
		return fs.usageErr("-slurm needs a directory for the job scripts")
	}
	if *profile == "" {
		return fs.usageErr("-profile is required (tiny, quick or full)")
	}
	prof, err := protocol.ParseProfile(*profile)
	if err != nil {
		return fs.usageErr("%v", err)
	}
	if *checkSource != "" {
		if err := checkCode(*checkSource); err != nil {
			return err
		}
		if !*prepare {
			return writeJSON(stdout, map[string]string{"source": *checkSource})
		}
	}
	if *prepare {
		return runPrepare(p, prof, stdout, stderr)
	}
	if err := firstErr(
		fs.intIn("shards", *shards, 0, math.MaxInt32, "array tasks, 0 for the default"),
		fs.intIn("cpus-per-task", *cpus, 1, maxWorkers, "CPUs of an array task"),
	); err != nil {
		return err
	}
	switch {
	case *mem != "" && !slurmMem.MatchString(*mem):
		return fs.usageErr("-mem %q: want a size as sbatch takes it, e.g. 4096M or 4G", *mem)
	case *limit != "" && !slurmTime.MatchString(*limit):
		return fs.usageErr("-time %q: want a time as sbatch takes it, e.g. 90, 2:00:00 or 1-12:00:00", *limit)
	case *partition != "" && !slurmName.MatchString(*partition):
		return fs.usageErr("-partition %q: want a partition name (letters, digits, _ . , -)", *partition)
	case *account != "" && !slurmName.MatchString(*account):
		return fs.usageErr("-account %q: want an account name (letters, digits, _ . , -)", *account)
	}

	// The merge job writes -results later, a superset of its rows (which
	// -costs may read now); the scripts are written now.
	outs := paths(folderArg("-slurm", *dir))
	for _, f := range []string{"prepare.sbatch", "array.sbatch", "merge.sbatch", "HOWTO.txt"} {
		outs = append(outs, fileArg("-slurm", filepath.Join(*dir, f)))
	}
	if err := fs.guard(outs, paths(fileArg("-costs", *costs), fileArg("-psub", *psubBin))); err != nil {
		return err
	}
	if err := fs.guard(append(outs, fileArg("-results", *results)), dataFolders("")); err != nil {
		return err
	}
	root, err := data.Locator{}.ModuleRoot()
	if err != nil {
		return fmt.Errorf("-slurm: the jobs run in the module's checkout: %w", err)
	}
	plan := slurmPlan{Protocol: p.Name(), Profile: prof, Root: root, CPUs: *cpus,
		Partition: *partition, Account: *account}
	if plan.Dir, err = filepath.Abs(*dir); err != nil {
		return err
	}
	if plan.Results, err = filepath.Abs(cmp.Or(*results, protocol.DefaultResults(p.Name(), prof))); err != nil {
		return err
	}
	// Costs measured from an earlier run: -costs, else the merged file
	// and the shard files of an earlier submission from DIR.
	costFiles := []string{*costs}
	if *costs == "" {
		costFiles = []string{plan.Results}
		shardFiles, _ := filepath.Glob(filepath.Join(plan.Dir, "shard-*.jsonl"))
		for _, f := range shardFiles {
			// A damaged shard file fails its own task, with a message in
			// its log; here it only measures nothing.
			if _, err := grid.ReadResults(f); err != nil {
				fmt.Fprintf(stderr, "warning: costs not measured from %v\n", err)
				continue
			}
			costFiles = append(costFiles, f)
		}
	}
	if plan.Cost, err = protocol.EstimateCost(p, prof, costFiles...); err != nil {
		return err
	}
	plan.Shards = cmp.Or(*shards, defaultShards(plan.Cost, *cpus))
	if plan.Shards > plan.Cost.Groups {
		return fs.usageErr("-shards %d: %s %s has %d groups of dependent fits, so at most %d shards",
			plan.Shards, p.Name(), prof, plan.Cost.Groups, plan.Cost.Groups)
	}
	plan.Mem = cmp.Or(*mem, taskMem(plan.Cost, *cpus))
	plan.Time = cmp.Or(*limit, slurmDuration(taskSeconds(plan.Cost, plan.Shards, *cpus)))
	if buildFunc(p) != nil {
		plan.Prepare = true
		// A partition's time cap holds for both.
		plan.PrepareTime = cmp.Or(*limit, slurmDuration(2*plan.Cost.BuildSeconds+600))
	}

	if err := os.MkdirAll(filepath.Join(plan.Dir, "logs"), 0o755); err != nil {
		return err
	}
	plan.Psub = *psubBin
	if plan.Psub == "" {
		if plan.Psub, err = installSelf(filepath.Join(plan.Dir, "bin", "psub")); err != nil {
			return err
		}
	} else if plan.Psub, err = checkExecutable(plan.Psub); err != nil {
		return fs.usageErr("-psub: %v", err)
	}
	if code, err := codever.CurrentCode(); err == nil && code.Known() {
		plan.Source = code.Source
	} else {
		fmt.Fprintf(stderr, "warning: the jobs cannot check that the checkout stays unchanged: %v\n", err)
	}
	for _, w := range sharedStorageWarnings(plan) {
		fmt.Fprintln(stderr, "warning:", w)
	}
	for _, f := range [][2]string{{"prepare.sbatch", plan.file("prepare.sbatch", "-prepare", "prepare.out")},
		{"array.sbatch", plan.file("array.sbatch", "", "shard-%a.out")}, {"merge.sbatch", plan.file("merge.sbatch", "-merge", "merge.out")},
		{"HOWTO.txt", plan.file("HOWTO.txt", "", "")}} {
		if f[0] == "prepare.sbatch" && !plan.Prepare {
			continue
		}
		path := filepath.Join(plan.Dir, f[0])
		if err := safefile.WriteBytes(path, []byte(f[1])); err != nil {
			return err
		}
		plan.Scripts = append(plan.Scripts, path)
		fmt.Fprintf(stderr, "wrote %s\n", path)
	}
	if *submit {
		jobs, err := plan.submit(stderr)
		if err != nil {
			return err
		}
		plan.Jobs = &jobs
	}
	return writeJSON(stdout, plan)
}

// defaultShards gives each task about slurmTaskTarget of work per CPU, and
// no more shards than groups.
func defaultShards(c protocol.Cost, cpus int) int {
	work := float64(c.Fits) * c.FitSeconds / float64(cpus)
	n := int(math.Ceil(work / slurmTaskTarget))
	return max(1, min(n, c.Groups))
}

// taskSeconds is the time limit of an array task: its share of the fits on
// its CPUs plus its longest fit (the tail), doubled, plus ten minutes to
// load the problems and start.
func taskSeconds(c protocol.Cost, shards, cpus int) float64 {
	groups := math.Ceil(float64(c.Groups) / float64(shards))
	fits := groups * float64(c.Fits) / math.Max(1, float64(c.Groups))
	work := fits*c.FitSeconds/float64(cpus) + c.MaxFitSeconds
	return 2*work + 600
}

// taskMem is a task's memory: one worker's peak and what each further
// worker adds, with a quarter more for safety, in MiB rounded up to 256.
func taskMem(c protocol.Cost, cpus int) string {
	mb := 1.25 * (c.MemoryMB + float64(cpus-1)*c.FitMemoryMB)
	return fmt.Sprintf("%dM", int(math.Ceil(mb/256))*256)
}

// slurmDuration writes seconds, rounded up to whole minutes, as
// days-hours:minutes:seconds.
func slurmDuration(sec float64) string {
	m := int(math.Ceil(sec / 60))
	return fmt.Sprintf("%d-%02d:%02d:00", m/(24*60), m/60%24, m%60)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// slurmText holds the templates of the files -slurm writes, one per file
// name.
//
//go:embed slurm.tmpl
var slurmText string

var slurmTemplates = template.Must(template.New("slurm").Funcs(template.FuncMap{"q": shellQuote}).Parse(slurmText))

// slurmScript is what a template of slurm.tmpl reads: the plan, the suffix
// of the job's name and its log file.
type slurmScript struct {
	slurmPlan
	Job, Log string
}

// Models is where the jobs write the final models: beside the merged rows.
func (p slurmPlan) Models() string { return protocol.ModelsBeside(p.Results, p.Protocol, p.Profile) }

// file writes the file name of slurm.tmpl for p.
func (p slurmPlan) file(name, job, log string) string {
	var b strings.Builder
	if err := slurmTemplates.ExecuteTemplate(&b, name, slurmScript{p, job, log}); err != nil {
		panic(err) // slurm.tmpl is wrong: the tests write every file
	}
	return b.String()
}

// submit runs sbatch for the prepare job, the array after it and the merge
// after the array. A failed job cancels the ones after it
// (--kill-on-invalid-dep), instead of leaving them pending forever.
func (p slurmPlan) submit(stderr io.Writer) (slurmJobs, error) {
	var jobs slurmJobs
	sbatch, err := exec.LookPath("sbatch")
	if err != nil {
		return jobs, fmt.Errorf("-submit: sbatch not found on PATH (submit from a node of the cluster, or by hand: %s)", filepath.Join(p.Dir, "HOWTO.txt"))
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(sbatch, append([]string{"--parsable"}, args...)...)
		var errb strings.Builder
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("sbatch %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
		}
		id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";") // "id" or "id;cluster"
		if id == "" || strings.ContainsAny(id, " \n") {
			return "", fmt.Errorf("sbatch %s: no job id in its answer %q", strings.Join(args, " "), out)
		}
		fmt.Fprintf(stderr, "submitted %s: job %s\n", filepath.Base(args[len(args)-1]), id)
		return id, nil
	}
	var dep []string
	if p.Prepare {
		if jobs.Prepare, err = run(filepath.Join(p.Dir, "prepare.sbatch")); err != nil {
			return jobs, err
		}
		dep = []string{"--dependency=afterok:" + jobs.Prepare, "--kill-on-invalid-dep=yes"}
	}
	if jobs.Array, err = run(append(dep, filepath.Join(p.Dir, "array.sbatch"))...); err != nil {
		return jobs, p.partly(jobs, err)
	}
	if jobs.Merge, err = run("--dependency=afterok:"+jobs.Array, "--kill-on-invalid-dep=yes", filepath.Join(p.Dir, "merge.sbatch")); err != nil {
		return jobs, p.partly(jobs, err)
	}
	return jobs, nil
}

// partly names the jobs already submitted when a later sbatch failed.
func (p slurmPlan) partly(jobs slurmJobs, err error) error {
	ids := slices.DeleteFunc([]string{jobs.Prepare, jobs.Array}, func(id string) bool { return id == "" })
	if len(ids) == 0 {
		return err
	}
	return fmt.Errorf("%w (already submitted: job %s; scancel it before submitting again)", err, strings.Join(ids, ", "))
}

// sharedStorageWarnings names paths that compute nodes usually cannot see.
func sharedStorageWarnings(p slurmPlan) []string {
	var w []string
	for _, path := range []struct{ what, path string }{{"-slurm", p.Dir}, {"the module root", p.Root}, {"-results", p.Results}} {
		for _, local := range []string{"/tmp/", "/var/tmp/", "/dev/shm/"} {
			if strings.HasPrefix(path.path+"/", local) {
				w = append(w, fmt.Sprintf("%s %s is under %s, which the nodes of most clusters do not share", path.what, path.path, local))
			}
		}
	}
	return w
}

// installSelf copies the running binary to dst (atomically: the tasks of an
// earlier array may still be running the old one) and returns dst.
func installSelf(dst string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the running psub binary (pass -psub): %w", err)
	}
	if a, errA := os.Stat(self); errA == nil {
		if b, errB := os.Stat(dst); errB == nil && os.SameFile(a, b) {
			return dst, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	in, err := os.Open(self)
	if err != nil {
		return "", err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".psub.*.tmp")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(tmp, in)
	err = errors.Join(err, tmp.Chmod(0o755), tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("copying %s to %s: %w", self, dst, err)
	}
	return dst, nil
}

// checkExecutable returns path made absolute when it names an executable
// regular file.
func checkExecutable(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", err
	case !st.Mode().IsRegular() || st.Mode()&0o111 == 0:
		return "", fmt.Errorf("%s is not an executable file", abs)
	}
	return abs, nil
}

// prepareReport is what -prepare prints.
type prepareReport struct {
	Protocol string           `json:"protocol"`
	Profile  protocol.Profile `json:"profile"`
	// Built is false for a protocol without a build step (nothing to
	// share: every task loads its data itself).
	Built   bool    `json:"built"`
	Items   int     `json:"items,omitempty"`
	Cache   string  `json:"cache,omitempty"`
	Seconds float64 `json:"seconds"`
}

// runPrepare builds the problems of p into the segment cache.
func runPrepare(p protocol.Protocol, prof protocol.Profile, stdout, stderr io.Writer) error {
	rep := prepareReport{Protocol: p.Name(), Profile: prof}
	start := time.Now()
	if build := buildFunc(p); build != nil {
		last := -1
		items, err := build(prof, func(done, total int) {
			// At most about 20 lines.
			if step := max(1, total/20); done == total || done/step != last {
				last = done / step
				fmt.Fprintf(stderr, "building %s %s: %d of %d\n", p.Name(), prof, done, total)
			}
		})
		if err != nil {
			return err
		}
		rep.Built, rep.Items, rep.Cache = true, items, data.DefaultSegmentCache().Dir
	} else {
		fmt.Fprintf(stderr, "%s has no build step that writes the segment cache: nothing to prepare\n", p.Name())
	}
	rep.Seconds = time.Since(start).Seconds()
	return writeJSON(stdout, rep)
}

// checkCode fails unless the checkout's source version is want.
func checkCode(want string) error {
	code, err := codever.CurrentCode()
	if err != nil {
		return fmt.Errorf("cannot read the checkout's source version: %w", err)
	}
	if code.Source != want {
		root, _ := data.Locator{}.ModuleRoot()
		return fmt.Errorf("the checkout %s changed since these jobs were written: its source is now %s (commit %s), the jobs' psub was built from source %s, "+
			"so rows would record the wrong version; restore the checkout, or write and submit the jobs again (psub protocol ... -slurm DIR -submit)", root, code.Source, code.Commit, want)
	}
	return nil
}
