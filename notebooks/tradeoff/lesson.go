package tradeoff

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// entryIndex is the position of the entry named name in a ladder (-1 when
// absent).
func entryIndex(runs [][]Row, name string) int {
	return slices.IndexFunc(runs[0], func(r Row) bool { return r.Name == name })
}

// Lesson is notebook 07's lesson written from the rows on the page: C4's
// test accuracy beside the best entry's, its training time beside TRW-S's,
// which unconstrained entries lose to C4 (lower test accuracy and a
// certifiably worse objective in every seed), and, for each of them, the
// objective its learner reported beside the certified objective of its w
// (the inference error). Every number comes from runs; the wording follows
// them (a seed count of one says there is no standard error). It needs the
// entries C4 and TRW-S.
func (Experiment) Lesson(runs [][]Row) (string, error) {
	c4, trws := entryIndex(runs, "C4"), entryIndex(runs, "TRW-S")
	if c4 < 0 || trws < 0 {
		return "", fmt.Errorf("tradeoff lesson: the ladder needs C4 and TRW-S (has %v)", entryNames(runs))
	}
	acc := func(r Row) float64 { return 100 * r.TestAcc }
	secs := func(r Row) float64 { return r.Seconds }
	best := 0
	for i := range runs[0] {
		if m, _ := Stat(runs, i, acc); m > must0(Stat(runs, best, acc)) {
			best = i
		}
	}
	var b strings.Builder
	seeds := fmt.Sprintf("%d seeds, mean ± standard error", len(runs))
	if len(runs) == 1 {
		seeds = "one seed, so no standard error"
	}
	fmt.Fprintf(&b, "**What this page measured** (%s, %d entries):\n\n", seeds, len(runs[0]))
	c4Acc, c4SE := Stat(runs, c4, acc)
	bestAcc, _ := Stat(runs, best, acc)
	d, dse := pairedDiff(runs, c4, best, acc)
	switch {
	case best == c4:
		fmt.Fprintf(&b, "- **C4 has the best test accuracy** of the ladder, %s %%", pm(c4Acc, c4SE, len(runs), "%.1f"))
	default:
		fmt.Fprintf(&b, "- **C4's test accuracy, %s %%, is %s points from the best entry's** (%s, %.1f %%",
			pm(c4Acc, c4SE, len(runs), "%.1f"), pm(d, dse, len(runs), "%+.2f"), runs[0][best].Name, bestAcc)
		if len(runs) > 1 && dse > 0 {
			fmt.Fprintf(&b, "; paired over the seeds, a difference of %.1f standard errors", math.Abs(d)/dse)
		}
		b.WriteString(")")
	}
	c4Obj, _ := Stat(runs, c4, func(r Row) float64 { return r.PrimalHi })
	fmt.Fprintf(&b, ", with a certified objective (%.4g: the learner's value is the objective of its w, since graph cuts are exact on every training edge).\n", c4Obj)
	c4s, _ := Stat(runs, c4, secs)
	ts, _ := Stat(runs, trws, secs)
	fmt.Fprintf(&b, "- **Training time:** C4 %s s per model, TRW-S %s s: TRW-S took %.1f× as long.\n",
		shortSecs(c4s), shortSecs(ts), ts/c4s)
	var losers []string
	for i, r := range runs[0] {
		if r.Inference == runs[0][c4].Inference {
			continue
		}
		worse := 0
		for _, run := range runs {
			if run[i].PrimalLo > run[c4].PrimalHi {
				worse++
			}
		}
		dd, dds := pairedDiff(runs, i, c4, acc)
		rep, _ := Stat(runs, i, func(r Row) float64 { return r.Primal })
		lo, _ := Stat(runs, i, func(r Row) float64 { return r.PrimalLo })
		hi, _ := Stat(runs, i, func(r Row) float64 { return r.PrimalHi })
		line := fmt.Sprintf("- **%s** (unconstrained, %s inference): test accuracy %s points against C4; its learner reported %.4g, the certified objective of its w is %.4g … %.4g (%.1f× C4's); certifiably worse than C4 in %d of %d seeds.\n",
			r.Name, r.Inference, pm(dd, dds, len(runs), "%+.2f"), rep, lo, hi, hi/c4Obj, worse, len(runs))
		b.WriteString(line)
		if worse == len(runs) && dd < 0 {
			losers = append(losers, r.Name)
		}
	}
	switch len(losers) {
	case 0:
		b.WriteString("\nNo unconstrained entry loses to C4 in both test accuracy and certified objective on every seed.\n")
	default:
		fmt.Fprintf(&b, "\nLoses to C4 in test accuracy and, on every seed, in certified objective: **%s**.\n", strings.Join(losers, ", "))
	}
	return b.String(), nil
}

// must0 is the first of two values.
func must0(a, _ float64) float64 { return a }

// pairedDiff is the mean over runs of metric(i) − metric(j) and its
// standard error.
func pairedDiff(runs [][]Row, i, j int, metric func(Row) float64) (mean, se float64) {
	var d []float64
	for _, run := range runs {
		d = append(d, metric(run[i])-metric(run[j]))
	}
	return grid.MeanSE(d)
}

// pm writes m ± se (just m for one run).
func pm(m, se float64, n int, format string) string {
	if n < 2 {
		return fmt.Sprintf(format, m)
	}
	return fmt.Sprintf(format+" ± "+strings.Replace(format, "+", "", 1), m, se)
}

// shortSecs writes seconds with two significant digits.
func shortSecs(s float64) string { return fmt.Sprintf("%.2g", s) }

// Entries is the table of what each entry of the ladder is: its constraint
// set, its inference in training and at test time, and the settings every
// entry shares in profile p.
func (t Experiment) Entries(p protocol.Profile) protocol.Table {
	s := t.Settings(p)
	shared := fmt.Sprintf("C_reg = %g, relative gap %g, Hamming loss; %d + %d images, seeds %v", s.C, s.Tol, s.Train, s.Test, s.Seeds)
	tb := protocol.Table{Title: "the entries (" + string(p) + " profile; every entry: " + shared + ")",
		Header: []string{"entry", "weights w in", "training inference", "test inference"}}
	for _, e := range Ladder() {
		if !slices.Contains(s.Entries, e.Name) {
			continue
		}
		train, test := "graph cut (exact on training edges)", "TGC (graph cut, non-submodular edges truncated)"
		set := e.Set.Name()
		if e.Inference != nil {
			train, test = e.Inference.Name()+" (approximate)", e.Inference.Name()
			set = "anything (unconstrained)"
		}
		tb.Rows = append(tb.Rows, []string{e.Name, set, train, test})
	}
	return tb
}

// TimeAccuracy is test accuracy (%) against training seconds, one point
// per seed, for each entry: names[i] with xs[i] seconds and ys[i] %.
func (Experiment) TimeAccuracy(runs [][]Row) (names []string, xs, ys [][]float64) {
	for i, r := range runs[0] {
		names = append(names, r.Name)
		var x, y []float64
		for _, run := range runs {
			x, y = append(x, run[i].Seconds), append(y, 100*run[i].TestAcc)
		}
		xs, ys = append(xs, x), append(ys, y)
	}
	return names, xs, ys
}

// RunDetails is the closing section's account of a run, from its rows and
// the log of reusing them: the profile, the code versions that computed
// the rows, their job time and training time, the results file, and the
// log.
func (t Experiment) RunDetails(p protocol.Profile, rows []grid.Result, log string) string {
	s := t.Settings(p)
	var job, train float64
	commits := map[string]int{}
	typed, err := grid.Rows[Job, Row](rows)
	if err != nil {
		return err.Error()
	}
	for _, r := range typed {
		job += r.Seconds
		train += r.Metrics.Seconds
		c := r.Code.Commit
		if c == "" {
			c = "unrecorded"
		}
		commits[c]++
	}
	var cs []string
	for c, n := range commits {
		cs = append(cs, fmt.Sprintf("%s (%d rows)", c, n))
	}
	slices.Sort(cs)
	var b strings.Builder
	fmt.Fprintf(&b, "- **Profile** %s: seeds %v, %d training + %d test images each, %d entries: %d fits.\n", p, s.Seeds, s.Train, s.Test, len(s.Entries), len(rows))
	file := filepath.ToSlash(protocol.DefaultResults(t.Name(), p))
	for _, dir := range []string{"notebooks/results/", "out/"} {
		if i := strings.LastIndex(file, "/"+dir); i >= 0 {
			file = file[i+1:] // from the repository's root
			break
		}
	}
	fmt.Fprintf(&b, "- **Rows** in `%s`, computed by code %s.\n", file, strings.Join(cs, ", "))
	fmt.Fprintf(&b, "- **Time** of the fits when they ran: %s of job time, %s of it training (the rest measures inference exactness).\n",
		(time.Duration(job * float64(time.Second))).Round(100*time.Millisecond), (time.Duration(train * float64(time.Second))).Round(100*time.Millisecond))
	if log = strings.TrimSpace(log); log != "" {
		fmt.Fprintf(&b, "- **Reuse**, as the run reported it:\n\n```\n%s\n```\n", log)
	}
	return b.String()
}

// ladderBranches are the two chains of nested sets, C0 ⊂ C1 ⊂ C2 ⊂ C2* ⊆ C4
// and C2 ⊆ C3 ⊆ C4, along which the optimal objective cannot rise.
var ladderBranches = [][]string{{"C0", "C1", "C2", "C2*", "C4"}, {"C2", "C3", "C4"}}

// LadderSteps says, from one ladder of rows (notebook 00's), how the
// objective and the test accuracy move along both branches of nested
// sets: whether the objective falls at every step (it must, up to the
// solver's tolerance, since the sets are nested), and at which steps test
// accuracy falls, by how many points. Entries missing from rows are
// skipped.
func LadderSteps(rows []Row, tol float64) string {
	at := map[string]Row{}
	for _, r := range rows {
		at[r.Name] = r
	}
	var rises, drops []string
	seen := map[string]bool{}
	for _, br := range ladderBranches {
		var chain []Row
		for _, n := range br {
			if r, ok := at[n]; ok {
				chain = append(chain, r)
			}
		}
		for i := 1; i < len(chain); i++ {
			a, b := chain[i-1], chain[i]
			step := a.Name + " → " + b.Name
			if seen[step] {
				continue
			}
			seen[step] = true
			if b.Primal > a.Primal*(1+tol) {
				rises = append(rises, fmt.Sprintf("%s (%.4g → %.4g)", step, a.Primal, b.Primal))
			}
			if d := 100 * (b.TestAcc - a.TestAcc); d < 0 {
				drops = append(drops, fmt.Sprintf("%s (%+.1f points)", step, d))
			}
		}
	}
	var b strings.Builder
	if len(rises) == 0 {
		b.WriteString("The objective falls at every step of both branches, as nested sets require.")
	} else {
		fmt.Fprintf(&b, "The objective rises beyond the solver's tolerance at %s: a nested set cannot do worse, so this is a solver failure.", strings.Join(rises, ", "))
	}
	if len(drops) == 0 {
		b.WriteString(" Test accuracy rises (or stays) at every step.")
	} else {
		fmt.Fprintf(&b, " Test accuracy rises with it except at %s: a lower training objective need not mean a better test accuracy.", strings.Join(drops, ", "))
	}
	return b.String()
}
