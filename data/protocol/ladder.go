package protocol

// Experiment runners of notebooks 06 (sample complexity) and 07 (model
// error vs inference error).
//
// RunTradeoff trains one model per rung of the ladder C0 ⊂ C1 ⊂ C2 ⊂ C2* ⊆ C4
// (and C3) and, past the top of the ladder, without constraints but with
// approximate training-time inference (TGC, QPBO, TRW-S), and measures for
// each the two kinds of error the paper trades against each other:
//
//   - model error: what the constraint set leaves out. Measured by the
//     capacity, the optimal value of the training objective ½‖w‖² + C·ξ
//     (smaller = the set fits the training data better), and by accuracy.
//   - inference error: what approximate inference gets wrong. Measured on
//     the test graphs by the fraction of non-submodular edges, the edges
//     TGC truncates, the nodes QPBO leaves unlabelled and the gap between
//     TRW-S's energy and its lower bound.
//
// With approximate training-time inference the learner's own objective is
// not certified: a missed most-violated labelling makes ξ look smaller. So
// RunTradeoff re-evaluates the final w's objective on the training set with
// an interval [PrimalLo, PrimalHi]: the best labelling any of TGC, QPBO and
// TRW-S finds gives the lower end, the best of their lower bounds on the
// loss-augmented energy the upper end. For the constraint sets the training
// edges are submodular, graph cut is exact, and the interval is a point.

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/inference"
)

// TradeoffEntry is one model of the tradeoff ladder.
type TradeoffEntry struct {
	Name string // as in tables: "C0", …, "C4", "TGC", "QPBO", "TRW-S"
	Set  psub.ConstraintSet
	// Inference is the training-time inference of an Unconstrained entry,
	// also used to predict its test labels; nil for the constraint sets,
	// which train with exact graph cuts and predict with TGC (Model.Predict).
	Inference inference.Method
}

// TradeoffLadder is the default ladder: the six constraint sets in order of
// growing capacity, then unconstrained training with TGC, QPBO and TRW-S.
func TradeoffLadder() []TradeoffEntry {
	return []TradeoffEntry{
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

// TradeoffOptions sets RunTradeoff.
type TradeoffOptions struct {
	// Settings are the learner's settings shared by every entry (C, Tol,
	// MaxIter, Loss, …); each entry overrides Set and Inference.
	Settings psub.Settings
	// Entries is the ladder (nil means TradeoffLadder()).
	Entries []TradeoffEntry
	// Labels is the number of labels (0 means 2).
	Labels int
	// Eps is the tolerance of NonSubmodularFraction (0 means its default).
	Eps float64
	// Progress, when set, is called before each entry is trained.
	Progress func(done int, entry string)
}

// TradeoffRow is what RunTradeoff measures for one entry.
type TradeoffRow struct {
	Name      string
	Set       string // constraint set name
	Inference string // training-time inference ("graphcut" for the sets)

	// Capacity. Primal is the learner's final objective (certified only for
	// the constraint sets); [PrimalLo, PrimalHi] brackets the true objective
	// of the final w (see the file comment). Norm2 is ½‖w‖².
	Primal, PrimalLo, PrimalHi, Norm2 float64
	Iters                             int
	Converged                         bool
	Stop                              psub.StopReason // why training stopped (Trace.Stop)
	Seconds                           float64         // training wall time

	// Accuracy: fraction of correctly labelled nodes (1 − Hamming over all
	// nodes of the set) with the entry's prediction (TGC for the sets, the
	// training inference otherwise).
	TrainAcc, TestAcc float64

	// Inference exactness on the test graphs.
	NonSubmodularTrain, NonSubmodularTest float64 // fractions of edges
	TGCTruncated, TestEdges               int     // edges truncated by TGC, of all test edges
	QPBOUnlabelled, TestNodes             int     // nodes QPBO left unlabelled, of all test nodes
	TRWSGap                               float64 // Σ(E − LB)/Σ|E| of TRW-S over the test graphs
	TRWSExact                             int     // test graphs where TRW-S certified optimality
}

// RunTradeoff trains every entry on train and measures it on train and test
// (see the file comment). Every training graph must be labelled; test graphs
// must be labelled too (for the accuracy).
func RunTradeoff(train, test []psub.Instance, opt TradeoffOptions) ([]TradeoffRow, error) {
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
		entries = TradeoffLadder()
	}
	loss := opt.Settings.Loss
	if loss == nil {
		loss = psub.Hamming{}
	}
	costs, err := loss.NodeCosts(train, labels)
	if err != nil {
		return nil, fmt.Errorf("tradeoff: training loss: %w", err)
	}
	rows := make([]TradeoffRow, 0, len(entries))
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
		m, tr, err := psub.Train(train, labels, s)
		if err != nil {
			return nil, fmt.Errorf("tradeoff: %s: %w", en.Name, err)
		}
		row := TradeoffRow{
			Name: en.Name, Set: en.Set.Name(), Inference: "graphcut",
			Primal: tr.Final().Primal, Iters: tr.Iters, Converged: tr.Converged, Stop: tr.Stop,
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
		if row.TrainAcc, err = tradeoffAccuracy(m, train, en.Inference); err != nil {
			return nil, fmt.Errorf("tradeoff: %s: training set: %w", en.Name, err)
		}
		if row.TestAcc, err = tradeoffAccuracy(m, test, en.Inference); err != nil {
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
	if err != nil {
		return 0, err
	}
	if ev.Labelled != len(set) {
		return 0, fmt.Errorf("%d of %d instances have no labels", len(set)-ev.Labelled, len(set))
	}
	if len(set) == 0 {
		return 0, errors.New("no nodes")
	}
	return ev.Accuracy, nil
}

// tradeoffExactness runs TGC, QPBO and TRW-S on the model's energy of every test
// graph and records what each says about the difficulty of inference.
func tradeoffExactness(m *psub.Model, test []psub.Instance, row *TradeoffRow) error {
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

// PairwiseRows returns the pairwise feature rows φ_p of every edge of set,
// in order (views into the instances, not copies, for dense features;
// copies of sparse ones).
func PairwiseRows(set []psub.Instance) [][]float64 {
	var rows [][]float64
	for i := range set {
		rows = append(rows, set[i].DensePairwise()...)
	}
	return rows
}

// NonSubmodularPoint is one point of NonSubmodularCurve.
type NonSubmodularPoint struct {
	Images, Edges int     // training graphs used and their edges
	Fraction      float64 // non-submodular fraction of the test edges
	Converged     bool
	Iters         int
	Seconds       float64
}

// NonSubmodularCurve trains a model on the first k graphs of train for each
// k in sizes (ascending) and measures the fraction of the edges of test on
// which its pairwise energy is not submodular (Model.NonSubmodularFraction
// with tolerance eps): the observed counterpart of the hull/cone coverage
// of notebook 06 (settings.Set is typically psub.C4{} or psub.C3{}).
func NonSubmodularCurve(train, test []psub.Instance, labels int, sizes []int, settings psub.Settings, eps float64, progress func(done int)) ([]NonSubmodularPoint, error) {
	if len(sizes) == 0 || len(test) == 0 {
		return nil, errors.New("non-submodular curve: no sizes or no test graphs")
	}
	var out []NonSubmodularPoint
	for i, k := range sizes {
		if k < 1 || k > len(train) || (i > 0 && k <= sizes[i-1]) {
			return nil, fmt.Errorf("non-submodular curve: sizes %v must be ascending within 1..%d (training graphs)", sizes, len(train))
		}
		if progress != nil {
			progress(i)
		}
		start := time.Now()
		m, tr, err := psub.Train(train[:k], labels, settings)
		if err != nil {
			return nil, fmt.Errorf("non-submodular curve: %d training graphs: %w", k, err)
		}
		f, err := m.NonSubmodularFraction(test, eps)
		if err != nil {
			return nil, fmt.Errorf("non-submodular curve: %d training graphs: %w", k, err)
		}
		p := NonSubmodularPoint{Images: k, Fraction: f, Converged: tr.Converged, Iters: tr.Iters, Seconds: time.Since(start).Seconds()}
		for _, in := range train[:k] {
			p.Edges += len(in.Edges)
		}
		out = append(out, p)
	}
	return out, nil
}

// TradeoffStat is the mean and the standard error (0 for one run) over
// runs of the ladder (e.g. seeds) of one metric of entry i.
func TradeoffStat(runs [][]TradeoffRow, i int, metric func(TradeoffRow) float64) (mean, stderr float64) {
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
