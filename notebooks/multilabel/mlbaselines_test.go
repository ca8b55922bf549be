package multilabel

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/inference"
)

// randomBinaryEnergy is a complete graph on n binary nodes with random
// terms, frustrated enough that QPBO leaves nodes unlabelled.
func randomBinaryEnergy(r *rand.Rand, n int) *inference.Energy {
	var edges [][2]int
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			edges = append(edges, [2]int{a, b})
		}
	}
	e := inference.NewEnergy(n, 2, edges)
	for i := range e.Unary {
		e.Unary[i] = r.NormFloat64() * 0.3
	}
	for i := range e.Pairwise {
		e.Pairwise[i] = r.NormFloat64()
	}
	return e
}

func TestQPBOFill(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	unlabelled := 0
	for trial := 0; trial < 50; trial++ {
		e := randomBinaryEnergy(r, 7)
		part, err := inference.QPBOPartial(e)
		if err != nil {
			t.Fatal(err)
		}
		for fill := 0; fill <= 1; fill++ {
			res, err := QPBOFill{fill}.Minimize(e)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for i, v := range part {
				want := v
				if v < 0 {
					want, n = fill, n+1
				}
				if res.Labels[i] != want {
					t.Fatalf("trial %d fill %d: node %d labelled %d, partial %d", trial, fill, i, res.Labels[i], v)
				}
			}
			if res.Unlabelled != n || math.Abs(res.Energy-e.Eval(res.Labels)) > 1e-12 {
				t.Fatalf("trial %d: Unlabelled %d (want %d), energy %v (want %v)", trial, res.Unlabelled, n, res.Energy, e.Eval(res.Labels))
			}
			unlabelled += n
		}
	}
	if unlabelled == 0 {
		t.Fatal("no node was ever unlabelled: the test does not exercise the fill")
	}
	if _, err := (QPBOFill{2}).Minimize(randomBinaryEnergy(r, 3)); err == nil {
		t.Error("Fill 2 accepted")
	}
}

func TestDistorted(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		e := randomBinaryEnergy(r, 5)
		// Oracle: the distorted energy built by hand, minimised exactly.
		tr := &inference.Energy{Labels: 2, Edges: e.Edges, Unary: e.Unary, Pairwise: make([]float64, len(e.Pairwise))}
		ng := &inference.Energy{Labels: 2, Edges: e.Edges, Unary: e.Unary, Pairwise: make([]float64, len(e.Pairwise))}
		for j := range e.Edges {
			p := e.Pairwise[4*j : 4*j+4]
			copy(tr.Pairwise[4*j:], []float64{p[0], p[2], p[1], p[3]})
			for k := range 4 {
				ng.Pairwise[4*j+k] = -p[k]
			}
		}
		for _, c := range []struct {
			d      Distorted
			oracle *inference.Energy
		}{{Distorted{Method: inference.BruteForce{}, Transpose: true}, tr}, {Distorted{Method: inference.BruteForce{}, NegatePairwise: true}, ng}} {
			got, err := c.d.Minimize(e)
			if err != nil {
				t.Fatal(err)
			}
			want, err := inference.BruteForce{}.Minimize(c.oracle)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(c.oracle.Eval(got.Labels)-want.Energy) > 1e-9 {
				t.Fatalf("trial %d %s: labelling of energy %v under the distorted energy, minimum %v", trial, c.d.Name(), c.oracle.Eval(got.Labels), want.Energy)
			}
			if math.Abs(got.Energy-e.Eval(got.Labels)) > 1e-12 {
				t.Fatalf("%s: Energy %v is not the given energy's %v", c.d.Name(), got.Energy, e.Eval(got.Labels))
			}
		}
	}
	// Quantum: toward zero, as numpy's astype(int32) of 1000·v.
	e := inference.NewEnergy(1, 2, nil)
	e.Unary[0], e.Unary[1] = 0.0017, -0.0017
	var seen []float64
	spy := spyMethod{seen: &seen}
	if _, err := (Distorted{Method: spy, Quantum: 1e-3}).Minimize(e); err != nil {
		t.Fatal(err)
	}
	if math.Abs(seen[0]-0.001) > 1e-15 || math.Abs(seen[1]+0.001) > 1e-15 || e.Unary[0] != 0.0017 {
		t.Errorf("quantised unaries %v (want 0.001, −0.001), original now %v", seen, e.Unary)
	}
}

// spyMethod records the unaries it is given and labels every node 0.
type spyMethod struct{ seen *[]float64 }

func (spyMethod) Name() string { return "spy" }
func (s spyMethod) Minimize(e *inference.Energy) (inference.Result, error) {
	*s.seen = append([]float64(nil), e.Unary...)
	return inference.Result{Labels: make([]int, e.Nodes())}, nil
}

func TestFitMLBaselineRules(t *testing.T) {
	train, test := data.SyntheticMultiLabel(data.SyntheticMultiLabelOptions{Seed: 5, Train: 40, Test: 30})
	pr, err := data.BuildMultiLabel(train, test, data.MultiLabelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := BaselineTrainings()["QPBO-transposed"]
	m, err := FitBaseline(context.Background(), pr, tr, 1, 1e-2, 50, BaselineRules())
	if err != nil {
		t.Fatal(err)
	}
	// Oracle for the exact and transposed rules: the model retrained the
	// same way (deterministic), scored by hand.
	st := psub.Settings{C: 1, Tol: 1e-2, MaxIter: 50, Set: psub.Unconstrained{}, Workers: 1, Tuning: psub.Tuning{UnconstrainedInference: tr.Method}}
	model, _, err := psub.Train(pr.Train, 2, st)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rule      string
		method    inference.Method
		transpose bool
	}{{"exact", inference.BruteForce{}, false}, {"qpbo_transposed", inference.QPBO{}, true}, {"unary", nil, false}} {
		right, all := 0, 0
		for i := range pr.Test {
			e, err := model.Energy(&pr.Test[i])
			if err != nil {
				t.Fatal(err)
			}
			if c.transpose {
				p := append([]float64(nil), e.Pairwise...)
				for j := range e.Edges {
					p[4*j+1], p[4*j+2] = e.Pairwise[4*j+2], e.Pairwise[4*j+1]
				}
				e.Pairwise = p
			}
			var y []int
			if c.method == nil {
				y = make([]int, e.Nodes())
				for k := range y {
					if e.Unary[2*k+1] < e.Unary[2*k] {
						y[k] = 1
					}
				}
			} else {
				res, err := c.method.Minimize(e)
				if err != nil {
					t.Fatal(err)
				}
				y = res.Labels
			}
			for k, v := range y {
				if v == pr.Test[i].Labels[k] {
					right++
				}
				all++
			}
		}
		want := float64(right) / float64(all)
		if got := m["test_"+c.rule]; math.Abs(got-want) > 1e-9 {
			t.Errorf("test_%s = %v, hand-scored %v", c.rule, got, want)
		}
	}
	if m["test_qpbo_unlabelled_wrong"] > m["test_qpbo_fill0"]+1e-12 || m["test_qpbo_unlabelled_wrong"] > m["test_qpbo_fill1"]+1e-12 {
		t.Errorf("unlabelled-wrong %v above a fill (%v, %v)", m["test_qpbo_unlabelled_wrong"], m["test_qpbo_fill0"], m["test_qpbo_fill1"])
	}
	for _, k := range []string{"iterations", "train_exact", "test_unlabelled", "nonsub_test"} {
		if _, ok := m[k]; !ok {
			t.Errorf("metric %s missing", k)
		}
	}
}

func TestMLBaselineSettingsJobs(t *testing.T) {
	s := DefaultBaselines()
	s.Bias = true
	tr := BaselineTrainings()
	s.Data = append(s.Data, Data{Name: "yeast"})
	jobs := s.Jobs()
	// exact runs on scene only: one job fewer per reading on yeast.
	if want := 2*2*(len(s.Trainings)+len(s.Readings)*len(s.ReadingTrainings)) - 2*(1+len(s.Readings)); len(jobs) != want {
		t.Fatalf("%d jobs, want %d", len(jobs), want)
	}
	for _, j := range append(append(append(jobs, YeastBaselines().Jobs()...), ReferenceBaselines().Jobs()...), YeastCapBaselines().Jobs()...) {
		if _, ok := tr[j.Set]; !ok {
			t.Errorf("job %s: training %q not registered", j.Key(), j.Set)
		}
	}
	if _, err := RunBaselines(context.Background(), BaselineSettings{Data: []Data{{Name: "nope"}}}, "", 1, nil); err == nil {
		t.Error("unknown data set accepted")
	}
	if r, err := selectRules([]string{"unary", "exact"}); err != nil || len(r) != 2 || r[0].Name != "unary" || r[1].Name != "exact" {
		t.Errorf("selectRules(unary, exact) = %v, %v", r, err)
	}
	if _, err := selectRules(YeastBaselines().Rules); err != nil {
		t.Error(err)
	}
	if _, err := selectRules([]string{"nope"}); err == nil {
		t.Error("unknown rule accepted")
	}
}

func TestMLBaselineTableAndLoad(t *testing.T) {
	job := YeastBaselines().Jobs()[1] // yeast QPBO at PyStruct's C
	r := grid.Result{Job: job, Metrics: map[string]float64{"iterations": 12, "converged": 1,
		"train_qpbo": 0.8, "test_qpbo": 0.75, "train_qpbo_transposed": 0.677, "test_qpbo_transposed": 0.669, "test_unlabelled": 0.01}}
	stale := r
	stale.Metrics = map[string]float64{"iterations": 1}
	other := r
	other.Job.Set = "not-a-job"
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	var buf []byte
	for _, x := range []grid.Result{stale, other, r} {
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		buf = append(append(buf, b...), '\n')
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := LoadBaselines(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Metrics["iterations"] != 12 {
		t.Fatalf("loaded %+v, want the newest row of the one listed job", rows)
	}
	tab := BaselineTable(rows)
	line := strings.Join(tab.Rows[0], "|")
	for _, want := range []string{"yeast|QPBO|pystruct|12|1|80.0 / 75.0|–|", "67.7 / 66.9|", "|1.00|"} {
		if !strings.Contains(line, want) {
			t.Errorf("table line %q lacks %q", line, want)
		}
	}
	if len(tab.Rows[0]) != len(tab.Header) {
		t.Errorf("%d cells, %d columns", len(tab.Rows[0]), len(tab.Header))
	}
}
