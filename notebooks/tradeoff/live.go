package tradeoff

// Live re-fits of notebook 07's capacity ladder, for the live controls of
// notebooks 00 and 07: a student picks an entry of the ladder (C0 … C4, C̄4,
// or unconstrained training with TGC, QPBO or TRW-S), C, and two properties
// of the embedded synthetic segmentation (how many training graphs, how
// informative the edge features are), and Live.Refit trains one model on a
// problem small enough to answer in well under a second on 2 cores
// (BenchmarkLiveRefit, data/BENCHMARKS.md) and measures what the drawing
// shows: accuracy, the objective, non-submodular test edges, and the
// labelling of one test graph.

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/psub"
)

// LiveSettings is one position of the live controls.
type LiveSettings struct {
	// Entry names the model: one of LiveEntries().
	Entry string
	// C is the learner's C (> 0; psub's scale).
	C float64
	// Train is the number of training graphs, 1 … LiveOptions.MaxTrain.
	Train int
	// EdgeNoise is the synthetic problem's ContrastNoise (> 0): the noise of
	// the hidden intensity whose contrast is an edge feature. Low noise
	// makes contrast mark the object boundary (informative edge features,
	// which C3/C4 and the unconstrained models exploit); high noise turns it
	// into noise.
	EdgeNoise float64
}

// String is a short label of the settings, for drawings and logs.
func (s LiveSettings) String() string {
	return fmt.Sprintf("%s, C = %.3g, %d training graphs, edge noise %.2g", s.Entry, s.C, s.Train, s.EdgeNoise)
}

// DefaultLiveSettings is where the controls start: C4 at notebook 07's C = 1
// with four training graphs and the synthetic problem's default edge noise.
func DefaultLiveSettings() LiveSettings {
	return LiveSettings{Entry: "C4", C: 1, Train: 4, EdgeNoise: 0.3}
}

// liveEntries is the ladder of the controls: Ladder with the
// transductive C̄4 after C4 (its test edges are bound in NewLive).
var liveEntries = []string{"C0", "C1", "C2", "C2*", "C3", "C4", "C̄4", "TGC", "QPBO", "TRW-S"}

// LiveEntries lists the entries the controls offer, in order of growing
// capacity (the unconstrained ones last).
func LiveEntries() []string { return slices.Clone(liveEntries) }

// LiveOptions fixes what the controls do not change. The zero value is the
// problem the notebooks use.
type LiveOptions struct {
	Seed uint64 // of the synthetic problem (0 is a seed like any other)
	// MaxTrain is the most training graphs the controls offer (0 means 8);
	// Test the number of test graphs (0 means 4). The first test graph is
	// the one drawn.
	MaxTrain, Test int
	// MinSide, MaxSide bound the side of each graph's node grid (0 means 8
	// and 10: 64–100 nodes).
	MinSide, MaxSide int
	// Tol and MaxIter are the learner's (0 means 1e-3 and 300): the cap
	// bounds the time of a re-fit at large C, and LiveFit says when it
	// stopped training.
	Tol     float64
	MaxIter int
}

func (o LiveOptions) withDefaults() LiveOptions {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.MaxTrain, 8)
	def(&o.Test, 4)
	def(&o.MinSide, 8)
	def(&o.MaxSide, 10)
	def(&o.MaxIter, 300)
	if o.Tol == 0 {
		o.Tol = 1e-3
	}
	return o
}

// Live re-fits models on the live problem. Problems are generated once per
// edge noise and kept. Safe for concurrent use.
type Live struct {
	opt      LiveOptions
	mu       sync.Mutex
	problems map[float64]*data.Segmentation
}

// NewLive returns a Live for the options (see LiveOptions for the zero
// value).
func NewLive(opt LiveOptions) (*Live, error) {
	opt = opt.withDefaults()
	if opt.MaxTrain < 1 || opt.Test < 1 || opt.MinSide < 2 || opt.MaxSide < opt.MinSide || !(opt.Tol > 0) || opt.MaxIter < 1 {
		return nil, fmt.Errorf("live: options %+v: want MaxTrain, Test ≥ 1, 2 ≤ MinSide ≤ MaxSide, Tol > 0, MaxIter ≥ 1", opt)
	}
	return &Live{opt: opt, problems: map[float64]*data.Segmentation{}}, nil
}

// Options returns the options in effect (defaults filled in).
func (l *Live) Options() LiveOptions { return l.opt }

// Problem returns the synthetic segmentation for an edge noise: MaxTrain
// training and Test test graphs. The edge noise changes only the contrast
// feature: every other draw of the generator is the same, so the graphs, the
// ground truth and the unaries do not move when the noise does (and, since
// each graph draws from its own stream, a re-fit on k training graphs uses
// the first k of these).
func (l *Live) Problem(edgeNoise float64) (*data.Segmentation, error) {
	if !(edgeNoise > 0) || math.IsInf(edgeNoise, 1) {
		return nil, fmt.Errorf("live: edge noise %v, want a finite value > 0", edgeNoise)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.problems[edgeNoise]; ok {
		return s, nil
	}
	s := data.SyntheticSegmentation(data.SegmentationOptions{
		Seed: l.opt.Seed, Train: l.opt.MaxTrain, Test: l.opt.Test,
		MinSide: l.opt.MinSide, MaxSide: l.opt.MaxSide, ContrastNoise: edgeNoise,
	})
	l.problems[edgeNoise] = s
	return s, nil
}

// LiveFit is what one re-fit measured.
type LiveFit struct {
	Settings LiveSettings
	Model    *psub.Model

	// Accuracy: fraction of nodes labelled right, predicting as notebook
	// 07 does (TGC for the constraint sets, the training inference for the
	// unconstrained entries).
	TrainAcc, TestAcc float64
	// Primal is the learner's own final objective ½‖w‖² + C·ξ, certified
	// only when training inference was exact; [PrimalLo, PrimalHi] brackets
	// the true objective of the final w (PrimalInterval; a point for the
	// constraint sets).
	Primal, PrimalLo, PrimalHi float64
	// NonSubmodularTest is the fraction of the test edges whose pairwise
	// energy is not submodular by the model's tolerance (the rule of
	// Model.NonSubmodularFraction, the one training enforces): the edges
	// TGC truncates. TestEdges counts the test edges.
	NonSubmodularTest float64
	TestEdges         int
	// Iters and Stop say how training ended (Stop is StopMaxIter when the
	// cap of LiveOptions.MaxIter stopped it).
	Iters int
	Stop  psub.StopReason
	// TrainSeconds is the training's wall time, Seconds the whole re-fit's.
	TrainSeconds, Seconds float64

	// The drawn test graph (the first): node positions, edges, ground
	// truth, predicted labels, and which edges are non-submodular.
	Name          string
	Pos           [][2]float64
	Edges         [][2]int
	Truth, Pred   []int
	NonSubmodular []bool
}

// ErrUnknownEntry is wrapped by the error of a LiveSettings.Entry that is
// not one of LiveEntries.
var ErrUnknownEntry = errors.New("unknown entry")

// entry returns the ladder entry of a name; C̄4 binds the test graphs.
func liveEntry(name string, test []psub.Instance) (Entry, error) {
	if name == "C̄4" {
		return Entry{Name: name, Set: psub.C4Bar{Test: test}}, nil
	}
	for _, e := range Ladder() {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("live: %w %q (want one of %v)", ErrUnknownEntry, name, liveEntries)
}

// Refit trains the model the settings describe and measures it. Bad
// settings get an error that names the setting.
func (l *Live) Refit(s LiveSettings) (*LiveFit, error) {
	start := time.Now()
	if !(s.C > 0) || math.IsInf(s.C, 1) {
		return nil, fmt.Errorf("live: C = %v, want a finite C > 0", s.C)
	}
	if s.Train < 1 || s.Train > l.opt.MaxTrain {
		return nil, fmt.Errorf("live: %d training graphs, want 1 … %d", s.Train, l.opt.MaxTrain)
	}
	prob, err := l.Problem(s.EdgeNoise)
	if err != nil {
		return nil, err
	}
	train, test := prob.Train[:s.Train], prob.Test
	en, err := liveEntry(s.Entry, test)
	if err != nil {
		return nil, err
	}
	set := psub.Settings{C: s.C, Tol: l.opt.Tol, MaxIter: l.opt.MaxIter, Set: en.Set, Tuning: psub.Tuning{UnconstrainedInference: en.Inference}}
	m, tr, err := psub.Train(train, 2, set)
	if err != nil {
		return nil, fmt.Errorf("live: %s: %w", s, err)
	}
	f := &LiveFit{Settings: s, Model: m, Primal: tr.Final().Primal, Iters: tr.Iters, Stop: tr.Stop, TrainSeconds: tr.Seconds}
	costs, err := psub.Hamming{}.NodeCosts(train, 2)
	if err != nil {
		return nil, fmt.Errorf("live: %s: %w", s, err)
	}
	if f.PrimalLo, f.PrimalHi, err = PrimalInterval(m, train, costs, s.C); err != nil {
		return nil, fmt.Errorf("live: %s: %w", s, err)
	}
	if f.TrainAcc, err = tradeoffAccuracy(m, train, en.Inference); err != nil {
		return nil, fmt.Errorf("live: %s: training set: %w", s, err)
	}
	// The test accuracy from the predictions, keeping the drawn graph's.
	ev, err := m.EvaluateWith(test, en.Inference)
	if err != nil {
		return nil, fmt.Errorf("live: %s: test graphs: %w", s, err)
	}
	f.TestAcc, f.Pred = ev.Accuracy, ev.Predictions[0].Labels
	for i := range test {
		in := &test[i]
		for _, p := range in.DensePairwise() {
			ns := m.NonSubmodularEdge(p)
			if ns {
				f.NonSubmodularTest++
			}
			if i == 0 {
				f.NonSubmodular = append(f.NonSubmodular, ns)
			}
		}
		f.TestEdges += len(in.Edges)
	}
	if f.TestEdges > 0 {
		f.NonSubmodularTest /= float64(f.TestEdges)
	}
	shown := &test[0]
	f.Name, f.Pos, f.Edges, f.Truth = shown.Name, prob.TestPos[0], shown.Edges, shown.Labels
	f.Seconds = time.Since(start).Seconds()
	return f, nil
}
