package tradeoff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/inference"
)

func smallSegmentation(seed uint64, train, test, side int) *data.Segmentation {
	return data.SyntheticSegmentation(data.SegmentationOptions{Seed: seed, Train: train, Test: test, MinSide: side, MaxSide: side + 1})
}

func TestTradeoffLadder(t *testing.T) {
	s := smallSegmentation(2, 6, 4, 6)
	const tol = 1e-3
	rows, err := RunLadder(s.Train, s.Test, LadderOptions{Settings: psub.Settings{C: 1, Tol: tol}})
	if err != nil {
		t.Fatal(err)
	}
	ladder := Ladder()
	if len(rows) != len(ladder) {
		t.Fatalf("%d rows for %d entries", len(rows), len(ladder))
	}
	edges, nodes := 0, 0
	for _, in := range s.Test {
		edges += len(in.Edges)
		nodes += in.Nodes()
	}
	byName := map[string]Row{}
	for i, r := range rows {
		byName[r.Name] = r
		if r.Name != ladder[i].Name {
			t.Errorf("row %d is %s, want %s", i, r.Name, ladder[i].Name)
		}
		if !(r.PrimalLo <= r.PrimalHi*(1+1e-12)) || r.PrimalLo < r.Norm2 {
			t.Errorf("%s: interval [%g, %g], ½‖w‖² = %g", r.Name, r.PrimalLo, r.PrimalHi, r.Norm2)
		}
		if r.TestEdges != edges || r.TestNodes != nodes {
			t.Errorf("%s: counted %d edges, %d nodes; want %d, %d", r.Name, r.TestEdges, r.TestNodes, edges, nodes)
		}
		for _, v := range []float64{r.TrainAcc, r.TestAcc, r.NonSubmodularTest, r.NonSubmodularTrain} {
			if v < 0 || v > 1 {
				t.Errorf("%s: fraction %g outside [0,1]", r.Name, v)
			}
		}
		if r.TGCTruncated > 0 && r.NonSubmodularTest == 0 {
			t.Errorf("%s: TGC truncated %d edges of a submodular energy", r.Name, r.TGCTruncated)
		}
		if ladder[i].Inference == nil {
			// Exact training inference: the interval is a point, and it is
			// the learner's own (certified) objective up to its tolerance.
			if math.Abs(r.PrimalHi-r.PrimalLo) > 1e-9*(1+r.PrimalHi) {
				t.Errorf("%s: exact inference but interval [%g, %g]", r.Name, r.PrimalLo, r.PrimalHi)
			}
			if math.Abs(r.PrimalLo-r.Primal) > 2*tol*r.Primal {
				t.Errorf("%s: objective of the final w %g, learner's %g", r.Name, r.PrimalLo, r.Primal)
			}
			if r.NonSubmodularTrain != 0 {
				t.Errorf("%s: %.3g of the training edges non-submodular", r.Name, r.NonSubmodularTrain)
			}
		}
	}
	// Definitely submodular sets: every input is submodular.
	for _, name := range []string{"C0", "C1", "C2", "C2*"} {
		if r := byName[name]; r.NonSubmodularTest != 0 || r.TGCTruncated != 0 {
			t.Errorf("%s: %.3g non-submodular test edges, %d truncated", name, r.NonSubmodularTest, r.TGCTruncated)
		}
	}
	// Nested sets: the optimal objective cannot grow with the set. The
	// learner stops within a relative gap tol of the optimum, hence the slack.
	for _, pair := range [][2]string{{"C0", "C1"}, {"C1", "C2"}, {"C2", "C2*"}, {"C2*", "C4"}, {"C2", "C3"}, {"C3", "C4"}} {
		small, big := byName[pair[0]], byName[pair[1]]
		if big.PrimalLo > small.PrimalLo*(1+3*tol) {
			t.Errorf("capacity: %s objective %g above %s's %g", pair[1], big.PrimalLo, pair[0], small.PrimalLo)
		}
	}
	// The synthetic problem is built so that the ladder separates.
	if !(byName["C0"].PrimalLo > 1.5*byName["C2"].PrimalLo) {
		t.Errorf("C0 %g vs C2 %g: no capacity gain", byName["C0"].PrimalLo, byName["C2"].PrimalLo)
	}
}

// PrimalInterval against brute-force loss-augmented inference on graphs
// small enough to enumerate, with weights perturbed to be non-submodular.
func TestPrimalIntervalBruteForce(t *testing.T) {
	s := smallSegmentation(5, 5, 1, 3) // 3×3 and 3×4 grids: ≤ 12 nodes
	m, _, err := psub.Train(s.Train, 2, psub.Settings{Set: psub.C2{}, Tol: 1e-2})
	if err != nil {
		t.Fatal(err)
	}
	costs, err := psub.Hamming{}.NodeCosts(s.Train, 2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	base := append([]float64(nil), m.W...)
	nonSub := 0
	for trial := range 12 {
		scale := []float64{0, 0.5, 3}[trial%3]
		for i := range m.W {
			m.W[i] = base[i] + scale*rng.NormFloat64()
		}
		const C = 2.5
		lo, hi, err := PrimalInterval(m, s.Train, costs, C)
		if err != nil {
			t.Fatal(err)
		}
		var xi float64
		submodular := true
		for i := range s.Train {
			in := &s.Train[i]
			e, _ := m.Energy(in)
			if len(e.NonSubmodularEdges()) > 0 {
				submodular = false
			}
			truth, _ := m.Compatibility(in, in.Labels)
			best := 0.0
			y := make([]int, in.Nodes())
			for mask := 0; mask < 1<<in.Nodes(); mask++ {
				for k := range y {
					y[k] = mask >> k & 1
				}
				sc, _ := m.Compatibility(in, y)
				best = math.Max(best, psub.LossValue(costs[i], in.Labels, y)+sc-truth)
			}
			xi += best
		}
		exact := 0.5*tradeoffSqNorm(m.W) + C*xi/float64(len(s.Train))
		if lo > exact*(1+1e-9)+1e-12 || hi < exact*(1-1e-9)-1e-12 {
			t.Fatalf("trial %d: interval [%.9g, %.9g] misses the brute-force objective %.9g", trial, lo, hi, exact)
		}
		if submodular && math.Abs(hi-lo) > 1e-9*(1+exact) {
			t.Fatalf("trial %d: submodular weights, interval [%g, %g] not a point", trial, lo, hi)
		}
		if !submodular {
			nonSub++
		}
	}
	if nonSub < 4 {
		t.Fatalf("only %d non-submodular trials: the test does not exercise approximate inference", nonSub)
	}
}

func TestTradeoffErrors(t *testing.T) {
	s := smallSegmentation(4, 2, 1, 4)
	cases := []struct {
		name        string
		train, test []psub.Instance
		opt         LadderOptions
	}{
		{"empty train", nil, s.Test, LadderOptions{}},
		{"empty test", s.Train, nil, LadderOptions{}},
		{"three labels", s.Train, s.Test, LadderOptions{Labels: 3}},
		{"no set", s.Train, s.Test, LadderOptions{Entries: []Entry{{Name: "x", Inference: inference.QPBO{}}}}},
	}
	for _, c := range cases {
		if _, err := RunLadder(c.train, c.test, c.opt); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestTradeoffStat(t *testing.T) {
	runs := [][]Row{{{TestAcc: 0.5}, {TestAcc: 0.9}}, {{TestAcc: 0.7}, {TestAcc: 0.9}}}
	acc := func(r Row) float64 { return r.TestAcc }
	if m, se := Stat(runs, 0, acc); math.Abs(m-0.6) > 1e-15 || math.Abs(se-0.1) > 1e-15 {
		t.Errorf("entry 0: %g ± %g, want 0.6 ± 0.1", m, se)
	}
	if m, se := Stat(runs, 1, acc); m != 0.9 || se != 0 {
		t.Errorf("entry 1: %g ± %g, want 0.9 ± 0", m, se)
	}
	if m, se := Stat(runs[:1], 0, acc); m != 0.5 || se != 0 {
		t.Errorf("one run: %g ± %g", m, se)
	}
	if m, _ := Stat(nil, 0, acc); !math.IsNaN(m) {
		t.Errorf("no runs: %g", m)
	}
}
