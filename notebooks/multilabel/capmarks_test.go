package multilabel

import (
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

func TestMultiLabelComparisonsMarkCappedColumns(t *testing.T) {
	var rows []grid.Result
	for _, col := range Columns() {
		stop := psub.StopGap
		if col == "C4" {
			stop = psub.StopMaxIter
		}
		rows = append(rows, grid.Result{Job: grid.Job{Dataset: "yeast", Set: col, Loss: "hamming", C: 0.1, Tag: CReadingPyStruct},
			Metrics: map[string]float64{"stop": float64(stop), "gap": 0.03, "train_acc": 0.8, "test_acc": 0.8}})
		// The same column at another reading of C is not in the table.
		rows = append(rows, grid.Result{Job: grid.Job{Dataset: "yeast", Set: col, Loss: "hamming", C: 0.1, Tag: CReadingLiteral},
			Metrics: map[string]float64{"stop": float64(psub.StopMaxIter)}})
	}
	cs := Experiment{}.Comparisons(rows, false)
	c4 := ColumnName("C4")
	if cs[0].Marks[c4] != protocol.CapMark || len(cs[0].Marks) != 1 || len(cs[0].Notes) != 1 {
		t.Fatalf("yeast marks %v notes %q", cs[0].Marks, cs[0].Notes)
	}
	if len(cs[2].Marks) != 0 {
		t.Fatalf("scene has no rows but marks %v", cs[2].Marks)
	}
}
