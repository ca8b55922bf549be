package tradeoff

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/inference"
)

// Entry is one model of the tradeoff ladder.
type Entry struct {
	Name string // as in tables: "C0", …, "C4", "TGC", "QPBO", "TRW-S"
	Set  psub.ConstraintSet
	// Inference is the training-time inference of an Unconstrained entry,
	// also used to predict its test labels; nil for the constraint sets,
	// which train with exact graph cuts and predict with TGC (Model.Predict).
	Inference inference.Method
}

// Ladder is the default ladder: the six constraint sets in order of
// growing capacity, then unconstrained training with TGC, QPBO and TRW-S.
func Ladder() []Entry {
	return []Entry{
		{Name: "C0", Set: psub.C0{}},
		{Name: "C1", Set: psub.C1{}},
		{Name: "C2", Set: psub.C2{}},
		{Name: "C2*", Set: psub.C2Star{}},
		{Name: "C3", Set: psub.C3{}},
		{Name: "C4", Set: psub.C4{}},
		{Name: "TGC", Set: psub.Unconstrained{}, Inference: inference.TruncatedGraphCut{Dynamic: true}},
		{Name: "QPBO", Set: psub.Unconstrained{}, Inference: inference.QPBO{}},
		{Name: "TRW-S", Set: psub.Unconstrained{}, Inference: inference.TRWS{}},
	}
}

// LadderOptions sets RunLadder.
type LadderOptions struct {
	// Settings are the learner's settings shared by every entry (C, Tol,
	// MaxIter, Loss, …); each entry overrides Set and Inference.
	Settings psub.Settings
	// Entries is the ladder (nil means Ladder()).
	Entries []Entry
	// Labels is the number of labels (0 means 2).
	Labels int
	// Eps is the tolerance of NonSubmodularFraction (0 means its default).
	Eps float64
	// Progress, when set, is called before each entry is trained.
	Progress func(done int, entry string)
}

// Row is what RunLadder measures for one entry; its numbers are the
// metrics of a row of the protocol's results file (the JSON names).
type Row struct {
	Name      string `json:"-"`
	Set       string `json:"-"` // constraint set name
	Inference string `json:"-"` // training-time inference ("graphcut" for the sets)

	// Capacity. Primal is the learner's final objective (certified only for
	// the constraint sets); [PrimalLo, PrimalHi] brackets the true objective
	// of the final w (see the file comment). Norm2 is ½‖w‖².
	Primal    float64         `json:"primal"`
	PrimalLo  float64         `json:"primal_lo"`
	PrimalHi  float64         `json:"primal_hi"`
	Norm2     float64         `json:"norm2"`
	Iters     int             `json:"iterations"`
	Converged grid.Flag       `json:"converged"`
	Stop      psub.StopReason `json:"stop"`          // why training stopped (Trace.Stop)
	Seconds   float64         `json:"train_seconds"` // training wall time

	// Accuracy: fraction of correctly labelled nodes (1 − Hamming over all
	// nodes of the set) with the entry's prediction (TGC for the sets, the
	// training inference otherwise).
	TrainAcc float64 `json:"train_acc"`
	TestAcc  float64 `json:"test_acc"`

	// Inference exactness on the test graphs: fractions of non-submodular
	// edges, edges truncated by TGC of all test edges, nodes QPBO left
	// unlabelled of all test nodes, Σ(E − LB)/Σ|E| of TRW-S over the test
	// graphs and the test graphs where TRW-S certified optimality.
	NonSubmodularTrain float64 `json:"nonsubmodular_train"`
	NonSubmodularTest  float64 `json:"nonsubmodular_test"`
	TGCTruncated       int     `json:"tgc_truncated"`
	TestEdges          int     `json:"test_edges"`
	QPBOUnlabelled     int     `json:"qpbo_unlabelled"`
	TestNodes          int     `json:"test_nodes"`
	TRWSGap            float64 `json:"trws_gap"`
	TRWSExact          int     `json:"trws_exact"`
}

// RunLadder trains every entry on train and measures it on train and test
// (see the file comment). Every training graph must be labelled; test graphs
// must be labelled too (for the accuracy).
func RunLadder(train, test []psub.Instance, opt LadderOptions) ([]Row, error) {
	if len(train) == 0 || len(test) == 0 {
		return nil, errors.New("tradeoff: empty training or test set")
	}
	labels := opt.Labels
	if labels == 0 {
		labels = 2
	}
	if labels != 2 {
		return nil, fmt.Errorf("tradeoff: %d labels; TGC and QPBO are binary, so the ladder needs 2", labels)
	}
	entries := opt.Entries
	if entries == nil {
		entries = Ladder()
	}
	loss := opt.Settings.Loss
	if loss == nil {
		loss = psub.Hamming{}
	}
	costs, err := loss.NodeCosts(train, labels)
	if err != nil {
		return nil, fmt.Errorf("tradeoff: training loss: %w", err)
	}
	// Checked and laid out once for every entry's training and scoring.
	ptrain, err := psub.Prepare(train, labels)
	if err != nil {
		return nil, fmt.Errorf("tradeoff: training set: %w", err)
	}
	ptest, err := psub.Prepare(test, labels)
	if err != nil {
		return nil, fmt.Errorf("tradeoff: test set: %w", err)
	}
	rows := make([]Row, 0, len(entries))
	for i, en := range entries {
		if opt.Progress != nil {
			opt.Progress(i, en.Name)
		}
		if en.Set == nil {
			return nil, fmt.Errorf("tradeoff: entry %d (%s) has no constraint set", i, en.Name)
		}
		s := opt.Settings
		s.Set, s.Tuning.UnconstrainedInference = en.Set, en.Inference
		start := time.Now()
		m, tr, err := psub.TrainPrepared(ptrain, s)
		if err != nil {
			return nil, fmt.Errorf("tradeoff: %s: %w", en.Name, err)
		}
		row := Row{
			Name: en.Name, Set: en.Set.Name(), Inference: "graphcut",
			Primal: tr.Final().Primal, Iters: tr.Iters, Converged: grid.Flag(tr.Converged), Stop: tr.Stop,
			Seconds: time.Since(start).Seconds(),
		}
		if en.Inference != nil {
			row.Inference = en.Inference.Name()
		}
		C := s.C
		if C == 0 {
			C = 1
		}
		row.Norm2 = 0.5 * tradeoffSqNorm(m.W)
		lo, hi, err := PrimalInterval(m, train, costs, C)
		if err != nil {
			return nil, fmt.Errorf("tradeoff: %s: %w", en.Name, err)
		}
		row.PrimalLo, row.PrimalHi = lo, hi
		if row.TrainAcc, err = preparedAccuracy(m, ptrain, en.Inference); err != nil {
			return nil, fmt.Errorf("tradeoff: %s: training set: %w", en.Name, err)
		}
		if row.TestAcc, err = preparedAccuracy(m, ptest, en.Inference); err != nil {
			return nil, fmt.Errorf("tradeoff: %s: test set: %w", en.Name, err)
		}
		if row.NonSubmodularTrain, err = m.NonSubmodularFraction(train, opt.Eps); err != nil {
			return nil, fmt.Errorf("tradeoff: %s: %w", en.Name, err)
		}
		if row.NonSubmodularTest, err = m.NonSubmodularFraction(test, opt.Eps); err != nil {
			return nil, fmt.Errorf("tradeoff: %s: %w", en.Name, err)
		}
		if err := tradeoffExactness(m, test, &row); err != nil {
			return nil, fmt.Errorf("tradeoff: %s: %w", en.Name, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// PrimalInterval brackets the 1-slack objective ½‖w‖² + C·ξ(w) of a model on
// a training set, ξ(w) = (1/n) Σ_i max_y [Δ(y_i, y) − w·ψ(x_i, y_i) +
// w·ψ(x_i, y)] (≥ 0, since y = y_i gives 0), costs being the loss's node
// costs. Each max is a loss-augmented MAP problem; TGC, QPBO and TRW-S
// attack it, the best labelling they find gives the lower end and the best
// of their lower bounds on the energy the upper end. When every edge is
// submodular TGC is exact and lo = hi.
func PrimalInterval(m *psub.Model, set []psub.Instance, costs [][]float64, C float64) (lo, hi float64, err error) {
	if len(costs) != len(set) {
		return 0, 0, fmt.Errorf("primal interval: %d cost rows for %d instances", len(costs), len(set))
	}
	var sumLo, sumHi float64
	methods := []inference.Method{inference.QPBO{}, inference.TRWS{}}
	for i := range set {
		in := &set[i]
		if len(in.Labels) != in.Nodes() || len(costs[i]) != in.Nodes() {
			return 0, 0, fmt.Errorf("primal interval: instance %d (%s): needs %d labels and costs", i, in.Name, in.Nodes())
		}
		e, err := m.Energy(in)
		if err != nil {
			return 0, 0, fmt.Errorf("primal interval: instance %d (%s): %w", i, in.Name, err)
		}
		truth := e.Eval(in.Labels) // −w·ψ(x_i, y_i)
		// Loss-augmented energy: the wrong labels get −c_k.
		L := e.Labels
		for k, y := range in.Labels {
			for l := range L {
				if l != y {
					e.Unary[k*L+l] -= costs[i][k]
				}
			}
		}
		r, err := inference.TruncatedGraphCut{}.Minimize(e)
		if err != nil {
			return 0, 0, fmt.Errorf("primal interval: instance %d (%s): %w", i, in.Name, err)
		}
		best, bound := r.Energy, r.LowerBound
		if !r.Exact {
			for _, meth := range methods {
				r, err := meth.Minimize(e)
				if err != nil {
					return 0, 0, fmt.Errorf("primal interval: instance %d (%s): %s: %w", i, in.Name, meth.Name(), err)
				}
				best = math.Min(best, r.Energy)
				bound = math.Max(bound, r.LowerBound)
			}
		} else {
			bound = best
		}
		// max_y h_i(y) = E(y_i) − min_y E'(y), and h_i(y_i) = 0.
		sumLo += math.Max(0, truth-best)
		sumHi += math.Max(0, truth-bound)
	}
	n := float64(len(set))
	norm2 := 0.5 * tradeoffSqNorm(m.W)
	return norm2 + C*sumLo/n, norm2 + C*sumHi/n, nil
}

// tradeoffAccuracy is the fraction of nodes of set labelled right by the model with
// the given inference (nil: Model.Predict, i.e. TGC for two labels).
func tradeoffAccuracy(m *psub.Model, set []psub.Instance, method inference.Method) (float64, error) {
	ev, err := m.EvaluateWith(set, method)
	return labelledAccuracy(ev, err)
}

// preparedAccuracy is tradeoffAccuracy on a prepared set.
func preparedAccuracy(m *psub.Model, set *psub.Prepared, method inference.Method) (float64, error) {
	ev, err := m.EvaluatePrepared(set, method)
	return labelledAccuracy(ev, err)
}

// labelledAccuracy is the accuracy of an evaluation (err: its error) in
// which every instance must be labelled.
func labelledAccuracy(ev psub.Evaluation, err error) (float64, error) {
	if err != nil {
		return 0, err
	}
	n := len(ev.Predictions)
	if ev.Labelled != n {
		return 0, fmt.Errorf("%d of %d instances have no labels", n-ev.Labelled, n)
	}
	if n == 0 {
		return 0, errors.New("no nodes")
	}
	return ev.Accuracy, nil
}

// tradeoffExactness runs TGC, QPBO and TRW-S on the model's energy of every test
// graph and records what each says about the difficulty of inference.
func tradeoffExactness(m *psub.Model, test []psub.Instance, row *Row) error {
	var gap, mag float64
	for i := range test {
		in := &test[i]
		e, err := m.Energy(in)
		if err != nil {
			return fmt.Errorf("test instance %d (%s): %w", i, in.Name, err)
		}
		row.TestEdges += len(in.Edges)
		row.TestNodes += in.Nodes()
		r, err := inference.TruncatedGraphCut{}.Minimize(e)
		if err != nil {
			return fmt.Errorf("test instance %d (%s): tgc: %w", i, in.Name, err)
		}
		row.TGCTruncated += r.Truncated
		if r, err = (inference.QPBO{}).Minimize(e); err != nil {
			return fmt.Errorf("test instance %d (%s): qpbo: %w", i, in.Name, err)
		}
		row.QPBOUnlabelled += r.Unlabelled
		if r, err = (inference.TRWS{}).Minimize(e); err != nil {
			return fmt.Errorf("test instance %d (%s): trws: %w", i, in.Name, err)
		}
		gap += r.Energy - r.LowerBound
		mag += math.Abs(r.Energy)
		if r.Exact {
			row.TRWSExact++
		}
	}
	if mag > 0 {
		row.TRWSGap = gap / mag
	}
	return nil
}

func tradeoffSqNorm(a []float64) float64 {
	var s float64
	for _, v := range a {
		s += v * v
	}
	return s
}

// Stat is the mean and the standard error (0 for one run) over
// runs of the ladder (e.g. seeds) of one metric of entry i.
func Stat(runs [][]Row, i int, metric func(Row) float64) (mean, stderr float64) {
	if len(runs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, r := range runs {
		mean += metric(r[i])
	}
	n := float64(len(runs))
	mean /= n
	if len(runs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, r := range runs {
		d := metric(r[i]) - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}
