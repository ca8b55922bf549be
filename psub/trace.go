package psub

import (
	"fmt"
	"strings"
)

// Iteration records one cutting-plane iteration of Train: one round of
// loss-augmented inference, one new cutting plane, and the w-update
// (QP solves and hard-constraint generation) that follows it.
type Iteration struct {
	Stage int // 0-based stage (pretraining and constraint minibatches add stages)
	Iter  int // 1-based, counted across stages

	// Primal is the best primal objective ½‖w‖² + C·ξ found in this stage
	// (certified when inference is exact), Dual the QP's dual objective, a
	// lower bound, and Gap = (Primal − Dual)/Primal.
	Primal, Dual, Gap float64
	// Loss is the mean loss of the loss-augmented labellings (the b of the
	// new plane); Violation how much the plane exceeds the current slack at
	// the QP's w (the largest violation there only when inference ran at
	// that w: not for a cached plane, nor one of the in-out point of
	// Tuning.Stabilize).
	Loss, Violation float64

	Planes    int   // cutting planes in the QP after this iteration
	HardAdded int   // hard constraints added during this iteration's w-update
	HardTotal int   // hard constraints in the QP after it
	QPCalls   int   // QP solves in the w-update
	Margins   int64 // hard-constraint margins computed in the w-update
	CacheHit  bool  // the plane came from the inference cache, not inference
	Truncated int   // edges truncated by training-time inference (with a submodular set: only round-off below HardTol)

	// InOut is the weight of the best iterate in the in-out point at which
	// this iteration's inference ran (Tuning.Stabilize, adapted round by
	// round); 0 when it ran at the QP's w only, or the plane was cached.
	InOut float64

	InferenceSeconds, QPSeconds, ConstraintSeconds float64
}

// QPCall records one QP solve and the hard-constraint generation after it
// (one pass of the loop of Algorithms 1 and 2).
type QPCall struct {
	Stage, Iter       int // the iteration it belongs to (0: before the first inference)
	Primal, Dual      float64
	Planes, Rows      int
	HardAdded         int     // hard constraints added after this solve
	Margins           int64   // margins computed after this solve
	MinMargin         float64 // smallest margin (or lower bound) over the enforced pool
	NotConverged      bool    // the QP hit its iteration limit (solution still used)
	RoundOff          bool    // the QP stopped at the level of rounding error, above its tolerance
	Resolution        float64 // the relative gap float64 cannot resolve in this solve (qp.Solution.Resolution)
	Sweeps            int     // the QP solver's iterations
	QPSeconds         float64
	ConstraintSeconds float64
}

// StopReason says why a stage of Train stopped.
type StopReason int

const (
	// StopNone: the stage has not stopped (no training, or an error).
	StopNone StopReason = iota
	// StopGap: the relative gap (best primal − dual)/best primal reached Tol.
	StopGap
	// StopNoViolation: the loss-augmented labellings did not violate the
	// working set (by more than round-off), so no plane could be added.
	// With exact inference the working set's optimum is then the optimum;
	// with inexact inference it is the end of what that inference finds.
	StopNoViolation
	// StopMaxIter: MaxIter iterations ran without either of the above.
	StopMaxIter
	// StopNotCertified: the stopping rule ended training but the returned
	// model failed a check of Train (Trace.Problems says which): its gap is
	// above Tol or negative, a QP solve of the last stage missed its
	// tolerance, or hard constraints are violated beyond HardTol. Train
	// reports a stop with no violated labelling and the gap above Tol this
	// way: with an accurate QP that stop implies a gap ≤ Tol.
	StopNotCertified
)

// Converged reports whether the stopping rule ended the stage (StopGap or
// StopNoViolation), not the iteration cap, and nothing failed.
func (r StopReason) Converged() bool { return r == StopGap || r == StopNoViolation }

// String is a short phrase for tables: "gap ≤ Tol", "no violated
// labelling", "iteration cap", "not certified" or "not stopped".
func (r StopReason) String() string {
	switch r {
	case StopGap:
		return "gap ≤ Tol"
	case StopNoViolation:
		return "no violated labelling"
	case StopMaxIter:
		return "iteration cap"
	case StopNotCertified:
		return "not certified"
	case StopNone:
		return "not stopped"
	}
	return fmt.Sprintf("StopReason(%d)", int(r))
}

// Trace is what Train records: curves to plot and totals for tables.
type Trace struct {
	Iterations []Iteration
	QPCalls    []QPCall

	// Stop is how the last stage ended: the gap closed (StopGap), MaxIter
	// (StopMaxIter), or the stopping rule ended it but a check failed
	// (StopNotCertified, see Problems). Converged is Stop.Converged().
	Stop StopReason
	// Converged: the returned model is certified (see Train): the stopping
	// rule ended training, the gap is within [−1e-9, Tol] allowing for the
	// QP's rounding level, no QP solve of the last stage hit its iteration
	// limit or stopped at a rounding level above Tol, and no hard constraint is
	// violated beyond HardTol.
	Converged bool
	// Problems says, one sentence each, what kept the model from being
	// certified (empty when Converged, and for a plain stop at MaxIter),
	// with what to do when the cause is the scale of C and the features.
	Problems []string
	// Scale is C·max‖a‖² over the cutting planes from inference, the
	// spread of the QP's numbers: beyond about 10¹⁰ float64 may not certify
	// the result (features ×s act as C×s²).
	Scale float64
	// HardViolated counts the hard constraints of the set (C2*, C3, C4,
	// C̄4) violated beyond HardTol at the returned weights.
	HardViolated   int
	Iters          int   // cutting-plane iterations, all stages
	HardIntroduced int   // hard constraints added to the QP (re-additions after removal count again)
	ActiveHard     int   // hard constraints with a positive dual at the end
	ActivePlanes   int   // cutting planes with a positive dual at the end
	Margins        int64 // hard-constraint margins computed, all calls
	// InferenceMargins counts the training edges' margins read off the
	// cuts of loss-augmented inference instead (Tuning.MarginPass).
	InferenceMargins int64
	MinMargin        float64 // smallest hard-constraint margin at the end (pool sets)
	QPNotConverged   int     // QP solves that hit their iteration limit
	QPRoundOff       int     // QP solves that stopped on the rounding allowance, above the QP's own tolerance (any level; certify counts those above Tol)
	PlanesRemoved    int     // inactive cutting planes dropped (InactiveWindow)
	HardRemoved      int     // inactive hard constraints dropped (InactiveWindow)
	// StabilizedRounds counts the inference rounds at the in-out point
	// (Tuning.Stabilize), Misprices those whose plane did not cut off the
	// QP's solution and were followed by inference at the QP's w.
	StabilizedRounds, Misprices int
	// Resumed lists the iterations after which the training was resumed
	// from a checkpoint (Settings.CheckpointDir); empty for one run.
	Resumed []int
	// Warm says what a warm start (Settings.Warm) took over; nil without.
	Warm *WarmStats
	// Working is the working set training ended with, to warm-start
	// another training from (Settings.Warm).
	Working *WorkingSet `json:"-"`

	Seconds                                        float64 // wall time of Train
	InferenceSeconds, QPSeconds, ConstraintSeconds float64
}

func (t *Trace) add(it Iteration) {
	t.Iterations = append(t.Iterations, it)
	t.InferenceSeconds += it.InferenceSeconds
}

func (t *Trace) addQP(c QPCall) {
	t.QPCalls = append(t.QPCalls, c)
	t.QPSeconds += c.QPSeconds
	t.ConstraintSeconds += c.ConstraintSeconds
}

// Final is the last iteration's record (zero if none).
func (t *Trace) Final() Iteration {
	if len(t.Iterations) == 0 {
		return Iteration{}
	}
	return t.Iterations[len(t.Iterations)-1]
}

// Status is one line saying whether training converged and, when not,
// why: "converged: gap 0.00018 ≤ Tol", "NOT converged: iteration cap (gap
// 0.013)", "NOT converged: not certified: <problems>".
func (t *Trace) Status() string {
	gap := t.Final().Gap
	switch {
	case t.Converged:
		return fmt.Sprintf("converged: gap %.2g ≤ Tol", gap)
	case len(t.Problems) > 0 && t.Stop == StopMaxIter:
		return fmt.Sprintf("NOT converged: iteration cap (gap %.2g); %s", gap, strings.Join(t.Problems, "; "))
	case len(t.Problems) > 0:
		return fmt.Sprintf("NOT converged: %s: %s", t.Stop, strings.Join(t.Problems, "; "))
	}
	return fmt.Sprintf("NOT converged: %s (gap %.2g)", t.Stop, gap)
}
