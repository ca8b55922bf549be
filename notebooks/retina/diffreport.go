package retina

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub/imageio"
)

// WellAboveChance is how far above chance (50 % class-averaged accuracy on
// two classes) C0 must score for the unaries to count as carrying
// information: 10 points (the paper's C0 is 43 points above).
const WellAboveChance = 10

// tagSet selects the rows of one descriptor and column.
func tagSet(tag, set string) func(grid.Job) bool {
	return func(j grid.Job) bool { return j.Tag == tag && j.Set == set }
}

// DiffMetrics are what a fit of the differences measured: its training
// metrics, the C psub trained at and its scores, and for the QPBO columns
// the scores under each completion rule.
type DiffMetrics struct {
	protocol.Fit
	CPsub      float64 `json:"c_psub"`
	TestAcc    float64 `json:"test_acc"`
	TestCavg   float64 `json:"test_cavg"`
	TestIoU    float64 `json:"test_iou"`
	TestVOC    float64 `json:"test_voc"`
	TrainCavg  float64 `json:"train_cavg"`
	NonSubTest float64 `json:"nonsub_test"`
	*Completions
}

// Completions are a QPBO column's test scores under each completion rule
// (CompletionRules), and the fraction of test nodes QPBO left unlabelled.
type Completions struct {
	CavgICM      float64 `json:"test_cavg_icm"`
	CavgZero     float64 `json:"test_cavg_zero"`
	CavgPyStruct float64 `json:"test_cavg_pystruct"`
	IoUICM       float64 `json:"test_iou_icm"`
	IoUZero      float64 `json:"test_iou_zero"`
	IoUPyStruct  float64 `json:"test_iou_pystruct"`
	VOCICM       float64 `json:"test_voc_icm"`
	VOCZero      float64 `json:"test_voc_zero"`
	VOCPyStruct  float64 `json:"test_voc_pystruct"`
	Unlabelled   float64 `json:"test_unlabelled"`
}

// Cavg is the test 1−Δ_avg under a completion rule.
func (c Completions) Cavg(rule string) float64 {
	return map[string]float64{CompleteICM: c.CavgICM, CompleteZero: c.CavgZero, CompletePyStruct: c.CavgPyStruct}[rule]
}

// DiffRow is a row of the differences.
type DiffRow = grid.Row[grid.Job, DiffMetrics]

// diffRows reads rows of the differences. A row that does not read, or a
// QPBO column's without its Completions, is failed.
func diffRows(rows []grid.Result) []DiffRow {
	typed, _ := grid.Rows[grid.Job, DiffMetrics](rows)
	for i, r := range typed {
		if _, qpbo := qpboColumns[r.Job.Set]; qpbo && r.Error == "" && r.Metrics.Completions == nil {
			typed[i].Error = "no completions"
		}
	}
	return typed
}

// cavg, unlabelled are metrics of DiffMetrics.
var (
	cavg       = func(m DiffMetrics) float64 { return m.TestCavg }
	unlabelled = func(m DiffMetrics) float64 { return m.Unlabelled }
)

// descriptorNames are the descriptors with rows, in DefaultDifferences'
// order.
func descriptorNames(rows []DiffRow) []string {
	var out []string
	for _, r := range DefaultDifferences().Runs {
		if !slices.Contains(out, r.Descriptor) && slices.ContainsFunc(rows, func(x DiffRow) bool { return x.Job.Tag == r.Descriptor }) {
			out = append(out, r.Descriptor)
		}
	}
	return out
}

// diffText is "a − b = d (p = …, n folds)" in points.
func diffText(ma, mb, p float64, n int) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%+.2f (p = %.2g, %s)", ma-mb, p, foldCount(n))
}

// DescriptorTable is experiment (a): per descriptor, the mean test
// 1−Δ_avg of each column over its folds, and the two orderings the audit
// found off the paper's: C4 − QPBO and C3 − C2 (paired over folds).
func DescriptorTable(results []grid.Result) protocol.Table {
	rows := diffRows(results)
	s := DefaultDifferences()
	cols := []string{"C0", "C2", "C3", "C4", "QPBO"}
	t := protocol.Table{Title: fmt.Sprintf("(a) richer unaries: test 1−Δ_avg (%%), 50 horses, first folds of the 40, PyStruct's C = %g, tol %g", s.C, s.Tol),
		Header: append(append([]string{"descriptor", "values"}, cols...), "C4 − QPBO", "C3 − C2")}
	for _, d := range descriptorNames(rows) {
		row := []string{d, fmt.Sprint(DescriptorVariants()[d].Dim())}
		for _, c := range cols {
			m, _, _, n := cavgPair(rows, d, c, c)
			row = append(row, fmt.Sprintf("%.1f (%d)", m, n))
		}
		row = append(row, diffText(cavgPair(rows, d, "C4", "QPBO")),
			diffText(cavgPair(rows, d, "C3", "C2")))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// CompletionTable is experiment (b): QPBO trained with each completion
// rule (rows) and tested with each (columns), mean test 1−Δ_avg on the
// paper's descriptor, with C4 on the same folds and C4 − QPBO when the
// rules agree, the fraction of test nodes roof duality leaves
// unlabelled, and how many fits psub certified (approximate inference can
// end a fit uncertified: no violated labelling found, gap above Tol).
func CompletionTable(results []grid.Result) protocol.Table {
	rows := diffRows(results)
	t := protocol.Table{Title: "(b) QPBO completion of unlabelled nodes: test 1−Δ_avg (%), paper's descriptor; rows: rule in training, columns: rule at test",
		Header: []string{"trained with"}}
	for _, r := range CompletionRules {
		t.Header = append(t.Header, "tested with "+r)
	}
	t.Header = append(t.Header, "C4, same folds", "C4 − QPBO (same rule)", "unlabelled test nodes %", "fits certified")
	for _, set := range []string{"QPBO", "QPBO-zero", "QPBO-pystruct"} {
		rule := qpboColumns[set]
		sel := tagSet(PaperDescriptor, set)
		row := []string{rule}
		for _, test := range CompletionRules {
			rule := on(sel, func(m DiffMetrics) float64 { return m.Cavg(test) })
			m, _, _, n := paired(rows, rule, rule)
			row = append(row, fmt.Sprintf("%.2f (%d)", m, n))
		}
		c4, q, p, n := cavgPair(rows, PaperDescriptor, "C4", set)
		u, _, _, _ := paired(rows, on(sel, unlabelled), on(sel, unlabelled))
		cert, fits := certified(rows, sel)
		row = append(row, fmt.Sprintf("%.2f", c4), diffText(c4, q, p, n), fmt.Sprintf("%.2f", u), fmt.Sprintf("%d of %d", cert, fits))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// cavgPair is paired of the test 1−Δ_avg of columns a and b with
// descriptor d.
func cavgPair(rows []DiffRow, d, a, b string) (ma, mb, p float64, n int) {
	return paired(rows, on(tagSet(d, a), cavg), on(tagSet(d, b), cavg))
}

// certified counts the fits sel selects that psub certified, and all of
// them.
func certified(rows []DiffRow, sel func(grid.Job) bool) (cert, fits int) {
	for _, r := range rows {
		if r.Error == "" && sel(r.Job) {
			fits++
			if r.Metrics.Converged {
				cert++
			}
		}
	}
	return cert, fits
}

// pairReading is one reading of a paired comparison: its name, the two
// means (%), p, the folds and the folds where the first side is higher.
type pairReading struct {
	Name        string
	A, B, P     float64
	Folds, Wins int
}

// c3c2Readings are C3 against C2 in test (or held-out) 1−Δ_avg under
// several readings: the full profile's 40 folds with C selected, each half
// of them, the held-out scores of the selection fits at each C of the grid
// (40 folds, same hold-out), and the fixed-C fits of (a).
func c3c2Readings(full, diff []grid.Result) []pairReading {
	var out []pairReading
	add := func(r pairReading, ok bool) {
		if ok {
			out = append(out, r)
		}
	}
	final := protocol.Tagged(full, "final")
	test := protocol.TestCavg
	add(reading("full profile, C selected per fold, test", final, on(setIs("C3"), test), on(setIs("C2"), test)))
	half := func(lo, hi int, set string) func(grid.Job) bool {
		return func(j grid.Job) bool { return j.Set == set && j.Fold >= lo && j.Fold < hi }
	}
	add(reading("full profile, folds 0–19", final, on(half(0, 20, "C3"), test), on(half(0, 20, "C2"), test)))
	add(reading("full profile, folds 20–39", final, on(half(20, 40, "C3"), test), on(half(20, 40, "C2"), test)))
	sel := protocol.Tagged(full, "select")
	var cs []float64
	for _, r := range sel {
		if !slices.Contains(cs, r.Job.C) {
			cs = append(cs, r.Job.C)
		}
	}
	slices.Sort(cs)
	val := func(m protocol.Metrics) float64 { return m.ValCavg }
	for _, c := range cs {
		at := func(set string) func(grid.Job) bool {
			return func(j grid.Job) bool { return j.Set == set && j.C == c }
		}
		add(reading(fmt.Sprintf("selection fits at C = %.3g, held-out fifth", c), sel, on(at("C3"), val), on(at("C2"), val)))
	}
	s := DefaultDifferences()
	rows := diffRows(diff)
	for _, d := range descriptorNames(rows) {
		add(reading(fmt.Sprintf("%s, C = %g, tol %g, test", d, s.C, s.Tol), rows, on(tagSet(d, "C3"), cavg), on(tagSet(d, "C2"), cavg)))
	}
	return out
}

// reading is the pairReading of sides a and b of rows; ok is false
// without a fold.
func reading[M any](name string, rows []grid.Row[grid.Job, M], a, b side[M]) (r pairReading, ok bool) {
	r = pairReading{Name: name}
	r.A, r.B, r.P, r.Folds = paired(rows, a, b)
	for _, f := range foldsOf(rows, a.sel) {
		va, okA := metricAt(rows, a, f)
		vb, okB := metricAt(rows, b, f)
		if okA && okB && va > vb {
			r.Wins++
		}
	}
	return r, r.Folds > 0
}

// C3C2Table is experiment (c): c3c2Readings as a table.
func C3C2Table(full, diff []grid.Result) protocol.Table {
	t := protocol.Table{Title: "(c) C3 − C2 (points of 1−Δ_avg) under several readings", Header: []string{"reading", "C3", "C2", "C3 − C2", "folds with C3 > C2"}}
	for _, r := range c3c2Readings(full, diff) {
		t.Rows = append(t.Rows, []string{r.Name, fmt.Sprintf("%.2f", r.A), fmt.Sprintf("%.2f", r.B), diffText(r.A, r.B, r.P, r.Folds), fmt.Sprintf("%d of %d", r.Wins, r.Folds)})
	}
	return t
}

// foldsOf are the folds of the rows sel selects, sorted.
func foldsOf[M any](rows []grid.Row[grid.Job, M], sel func(grid.Job) bool) []int {
	var out []int
	for _, r := range rows {
		if r.Error == "" && sel(r.Job) && !slices.Contains(out, r.Job.Fold) {
			out = append(out, r.Job.Fold)
		}
	}
	slices.Sort(out)
	return out
}

// metricAt is the side's metric in fold f.
func metricAt[M any](rows []grid.Row[grid.Job, M], s side[M], f int) (float64, bool) {
	for _, r := range rows {
		if r.Error == "" && r.Job.Fold == f && s.sel(r.Job) {
			return s.metric(r.Metrics), true
		}
	}
	return 0, false
}

// ColourHorses says whether the horses' data folder holds colour images
// that pair with the masks: its sub-folders, and the channels of the
// first image of each image folder. dir "" finds the folder as the
// loaders do.
func ColourHorses(dir string) (string, error) {
	if dir == "" {
		var err error
		if dir, err = (data.Locator{}).Find(data.HorsesDir); err != nil {
			return "", err
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var subs []string
	colour := false
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		subs = append(subs, e.Name()+"/")
		if e.Name() == "figure_ground" {
			continue
		}
		imgs, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil || len(imgs) == 0 {
			continue
		}
		v, err := imageio.ReadImage(filepath.Join(dir, e.Name(), imgs[0].Name()))
		if err != nil {
			return "", err
		}
		if v.Channels == 3 {
			colour = true
		}
	}
	if colour {
		return fmt.Sprintf("The horses' folder holds %s, with colour images among them.", strings.Join(subs, ", ")), nil
	}
	return fmt.Sprintf("The horses' folder holds only %s: no colour images (its README: the colour originals, rgb/, were not brought because they do not pair pixel for pixel with the masks), so no colour variant was run.",
		strings.Join(subs, " and ")), nil
}

// DifferenceSentences are the section's conclusions, one per audit
// finding, generated from the final rows of the full profile and the rows
// of RunDifferences.
func DifferenceSentences(full, results []grid.Result) []string {
	diff := diffRows(results)
	var out []string
	s := DefaultDifferences()
	setting := fmt.Sprintf("(first folds of the 40, C = %g, tol %g)", s.C, s.Tol)
	// (a) unaries.
	var c0s, orders []string
	best := math.Inf(-1)
	var toward4, toward3 []string
	for _, d := range descriptorNames(diff) {
		c0, _, _, n := cavgPair(diff, d, "C0", "C0")
		if n == 0 {
			continue
		}
		best = math.Max(best, c0)
		c0s = append(c0s, fmt.Sprintf("%.1f %% with %s (%d values, %s)", c0, d, DescriptorVariants()[d].Dim(), foldCount(n)))
		a4, aq, p4, n4 := cavgPair(diff, d, "C4", "QPBO")
		a3, a2, p3, n3 := cavgPair(diff, d, "C3", "C2")
		orders = append(orders, fmt.Sprintf("%s: C4 − QPBO %s, C3 − C2 %s", d, diffText(a4, aq, p4, n4), diffText(a3, a2, p3, n3)))
		if v, _ := protocol.Ordered(a4, aq, p4, Alpha); v == protocol.Reproduced {
			toward4 = append(toward4, d)
		}
		if v, _ := protocol.Tied(a3, a2, p3, Alpha, 0); v == protocol.Reproduced && n3 > 0 {
			toward3 = append(toward3, d)
		}
	}
	if len(c0s) > 0 {
		verdict := "does not rise well above chance"
		if best-50 >= WellAboveChance {
			verdict = "rises well above chance"
		}
		out = append(out, fmt.Sprintf("(a) Richer unaries of the paper's kind %s: C0 reaches %s; with at least %d points above 50 %% as the bar, C0 %s.",
			setting, strings.Join(c0s, ", "), WellAboveChance, verdict))
		under := func(ds []string) string {
			if len(ds) == 0 {
				return "under no descriptor"
			}
			return "under " + strings.Join(ds, ", ")
		}
		out = append(out, fmt.Sprintf("The paper's C4 significantly above QPBO holds %s; its C3 tied with C2 holds %s (%s).",
			under(toward4), under(toward3), strings.Join(orders, "; ")))
	}
	// (b) completion.
	var readings, below, short []string
	paperGap := retinaPaperScores["C4"][0] - retinaPaperScores["QPBO"][0]
	for _, set := range []string{"QPBO", "QPBO-zero", "QPBO-pystruct"} {
		c4, q, p, n := cavgPair(diff, PaperDescriptor, "C4", set)
		if n == 0 {
			continue
		}
		sel := tagSet(PaperDescriptor, set)
		u, _, _, _ := paired(diff, on(sel, unlabelled), on(sel, unlabelled))
		cert, _ := certified(diff, sel)
		rule := qpboColumns[set]
		readings = append(readings, fmt.Sprintf("%s %s, its models leaving %.1f %% of the test nodes unlabelled, %d of its fits certified",
			rule, diffText(c4, q, p, n), u, cert))
		switch v, _ := protocol.Ordered(c4, q, p, Alpha); {
		case v == protocol.Reproduced:
			below = append(below, rule)
		case v == protocol.Partly && c4-q >= paperGap:
			short = append(short, rule)
		}
	}
	if len(readings) > 0 {
		var verdict string
		switch {
		case len(below) > 0:
			verdict = "QPBO falls significantly below C4 (the paper's order) when trained and tested with the " + strings.Join(below, ", ") +
				" completion, so the tie depends on how unlabelled nodes are completed"
		case len(short) > 0:
			verdict = fmt.Sprintf("Under the %s completion QPBO ends below C4 by at least the paper's %.1f points on average, but not significantly over these folds; under none is it significantly below", strings.Join(short, ", "), paperGap)
		default:
			verdict = "QPBO falls significantly below C4 under none of these readings: the completion rule does not explain the tie"
		}
		out = append(out, fmt.Sprintf("(b) QPBO completion %s, C4 − QPBO with the rule used in training and at test: %s. %s.", setting, strings.Join(readings, "; "), verdict))
	}
	// (c) C3 vs C2.
	rs := c3c2Readings(full, results)
	pos, sig := 0, 0
	var tied []string
	for _, r := range rs {
		if r.A > r.B {
			pos++
			if r.P < Alpha {
				sig++
			}
		}
		if v, _ := protocol.Tied(r.A, r.B, r.P, Alpha, 0); v == protocol.Reproduced {
			tied = append(tied, r.Name)
		}
	}
	if len(rs) > 0 {
		verdict := "the gap is robust: C3 does not degenerate to C2 on the horses, as the paper says it does on the retina, under any reading tried"
		if len(tied) > 0 {
			verdict = "the paper's tie (no significant gain of C3 over C2) holds under " + strings.Join(tied, "; ") + ", and not under the others"
		}
		out = append(out, fmt.Sprintf("(c) C3 − C2 is positive under %d of %d readings (table (c)) and significantly so (p < %g) under %d; %s.",
			pos, len(rs), Alpha, sig, verdict))
	}
	return out
}

// foldCount is "1 fold" or "n folds".
func foldCount(n int) string {
	if n == 1 {
		return "1 fold"
	}
	return fmt.Sprintf("%d folds", n)
}
