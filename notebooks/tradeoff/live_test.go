package tradeoff

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/probably-submodular/crf/psub"
)

// Refit measures what RunLadder measures, on the same graphs with the same
// learner settings: RunLadder (the runner of notebook 07's tables) is the
// oracle for the accuracies, the objective and its interval, and the
// fraction of non-submodular test edges.
func TestLiveRefitMatchesTradeoff(t *testing.T) {
	l, err := NewLive(LiveOptions{Seed: 3, MaxTrain: 3, Test: 2, MinSide: 6, MaxSide: 7})
	if err != nil {
		t.Fatal(err)
	}
	nonSub := 0
	for _, name := range LiveEntries() {
		s := LiveSettings{Entry: name, C: 2, Train: 2, EdgeNoise: 0.2}
		f, err := l.Refit(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		prob, _ := l.Problem(s.EdgeNoise)
		train, test := prob.Train[:s.Train], prob.Test
		en, err := liveEntry(name, test)
		if err != nil {
			t.Fatal(err)
		}
		opt := l.Options()
		rows, err := RunLadder(train, test, LadderOptions{Settings: psub.Settings{C: s.C, Tol: opt.Tol, MaxIter: opt.MaxIter}, Entries: []Entry{en}})
		if err != nil {
			t.Fatal(err)
		}
		r := rows[0]
		near := func(what string, got, want float64) {
			if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Errorf("%s: %s %.12g, RunLadder says %.12g", name, what, got, want)
			}
		}
		near("training accuracy", f.TrainAcc, r.TrainAcc)
		near("test accuracy", f.TestAcc, r.TestAcc)
		near("learner's objective", f.Primal, r.Primal)
		near("objective interval, low end", f.PrimalLo, r.PrimalLo)
		near("objective interval, high end", f.PrimalHi, r.PrimalHi)
		near("non-submodular test edges", f.NonSubmodularTest, r.NonSubmodularTest)
		if f.Iters != r.Iters || f.TestEdges != r.TestEdges {
			t.Errorf("%s: %d iterations, %d test edges; RunLadder %d, %d", name, f.Iters, f.TestEdges, r.Iters, r.TestEdges)
		}

		// The drawn graph is the first test graph, labelled as the accuracy
		// counts it, with the edges Model.NonSubmodularFraction counts.
		in := &test[0]
		if f.Name != in.Name || !slices.Equal(f.Truth, in.Labels) || !slices.Equal(f.Edges, in.Edges) || len(f.Pos) != in.Nodes() {
			t.Fatalf("%s: drawn graph %q is not the first test graph %q", name, f.Name, in.Name)
		}
		p, err := f.Model.PredictWith(in, en.Inference)
		if err != nil || !slices.Equal(p.Labels, f.Pred) {
			t.Errorf("%s: drawn labels differ from the model's prediction (%v)", name, err)
		}
		frac, err := f.Model.NonSubmodularFraction(test[:1], 0)
		if err != nil {
			t.Fatal(err)
		}
		marked := 0
		for _, b := range f.NonSubmodular {
			if b {
				marked++
			}
		}
		if len(f.NonSubmodular) != len(in.Edges) || marked != int(math.Round(frac*float64(len(in.Edges)))) {
			t.Errorf("%s: %d of %d edges marked, Model.NonSubmodularFraction says %.4g of %d", name, marked, len(f.NonSubmodular), frac, len(in.Edges))
		}
		nonSub += marked
		if en.Inference == nil && name != "C3" && name != "C4" && name != "C̄4" && marked > 0 {
			t.Errorf("%s: definitely submodular, but %d edges marked", name, marked)
		}
	}
	if nonSub == 0 {
		t.Error("no entry marked a non-submodular edge: the marks are not exercised")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The edge noise moves only the contrast feature: graphs, ground truth and
// unaries stay, so the drawing does not jump when the control moves.
func TestLiveProblemEdgeNoise(t *testing.T) {
	l, err := NewLive(LiveOptions{MaxTrain: 2, Test: 2, MinSide: 5, MaxSide: 6})
	if err != nil {
		t.Fatal(err)
	}
	a, err := l.Problem(0.1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := l.Problem(1.5)
	if again, _ := l.Problem(0.1); again != a {
		t.Error("the problem of an edge noise is generated again, not kept")
	}
	contrastMoved := false
	for i := range a.Test {
		x, y := a.Test[i], b.Test[i]
		if !slices.Equal(x.Labels, y.Labels) || !slices.Equal(x.Edges, y.Edges) || !slices.Equal(a.TestPos[i], b.TestPos[i]) {
			t.Fatalf("test graph %d: graph or labels change with the edge noise", i)
		}
		for k := range x.Unary {
			if !slices.Equal(x.Unary[k], y.Unary[k]) {
				t.Fatalf("test graph %d node %d: unary %v vs %v", i, k, x.Unary[k], y.Unary[k])
			}
		}
		for j := range x.Pairwise {
			p, q := x.Pairwise[j], y.Pairwise[j]
			if p[0] != q[0] || p[2] != q[2] || p[3] != q[3] {
				t.Fatalf("test graph %d edge %d: features other than contrast moved: %v vs %v", i, j, p, q)
			}
			contrastMoved = contrastMoved || p[1] != q[1]
		}
	}
	if !contrastMoved {
		t.Error("the contrast feature did not change with the edge noise")
	}
}

func TestLiveRefitStopsAtCap(t *testing.T) {
	l, err := NewLive(LiveOptions{MaxTrain: 2, Test: 1, MinSide: 6, MaxSide: 7, MaxIter: 2})
	if err != nil {
		t.Fatal(err)
	}
	f, err := l.Refit(LiveSettings{Entry: "C2", C: 10, Train: 2, EdgeNoise: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if f.Stop != psub.StopMaxIter || f.Iters != 2 {
		t.Errorf("stopped by %v after %d iterations, want the cap of 2", f.Stop, f.Iters)
	}
}

func TestLiveErrors(t *testing.T) {
	l, err := NewLive(LiveOptions{MaxTrain: 2, Test: 1, MinSide: 4, MaxSide: 4})
	if err != nil {
		t.Fatal(err)
	}
	ok := LiveSettings{Entry: "C4", C: 1, Train: 1, EdgeNoise: 0.3}
	if _, err := l.Refit(ok); err != nil {
		t.Fatalf("%v: %v", ok, err)
	}
	bad := map[string]func(*LiveSettings){
		"entry":     func(s *LiveSettings) { s.Entry = "C5" },
		"C zero":    func(s *LiveSettings) { s.C = 0 },
		"C NaN":     func(s *LiveSettings) { s.C = math.NaN() },
		"training":  func(s *LiveSettings) { s.Train = 3 },
		"training0": func(s *LiveSettings) { s.Train = 0 },
		"noise":     func(s *LiveSettings) { s.EdgeNoise = 0 },
		"noise inf": func(s *LiveSettings) { s.EdgeNoise = math.Inf(1) },
	}
	for what, change := range bad {
		s := ok
		change(&s)
		if _, err := l.Refit(s); err == nil {
			t.Errorf("%s: %+v gave no error", what, s)
		} else if what == "entry" && !errors.Is(err, ErrUnknownEntry) {
			t.Errorf("unknown entry: %v does not wrap ErrUnknownEntry", err)
		}
	}
	for _, o := range []LiveOptions{{MaxTrain: -1}, {MinSide: 1}, {MinSide: 6, MaxSide: 5}, {Tol: -1}, {MaxIter: -3}} {
		if _, err := NewLive(o); err == nil {
			t.Errorf("NewLive(%+v): no error", o)
		}
	}
	if got := LiveEntries(); len(got) != 10 || got[0] != "C0" || got[6] != "C̄4" || got[9] != "TRW-S" {
		t.Errorf("LiveEntries() = %v", got)
	}
	def, dl := DefaultLiveSettings(), must(NewLive(LiveOptions{}))
	if !slices.Contains(LiveEntries(), def.Entry) || def.Train < 1 || def.Train > dl.Options().MaxTrain {
		t.Errorf("default settings %+v outside the default controls (%d training graphs at most)", def, dl.Options().MaxTrain)
	}
}
