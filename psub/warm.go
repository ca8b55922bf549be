package psub

// Warm starts (Settings.Warm): a training can begin with the working set
// another training ended with. Every cutting plane of the 1-slack SVM is a
// lower bound of the risk that does not depend on C, and every hard
// constraint of a set is a constraint of the problem whatever C is, so a
// working set carried along a grid of C, or from a training set to a
// superset of it, changes where the cutting-plane method starts and never
// what it certifies: it still stops only when inference finds no labelling
// that opens the gap beyond Tol. A plane from a subset S of the training
// set T, scaled by |S|/|T|, is the plane of T whose labellings are those of
// the plane on S and the true labels elsewhere, so it is one of T's
// constraints exactly.
//
// A plane's feature part a does not depend on the loss, and its offset b is
// the mean of Σ_k c_k·[ŷ_k ≠ y_k] over the instances: with node costs that
// are the same for all nodes of one class in one instance (Hamming, the
// class-averaged loss), b is a sum over (instance, class) of the number of
// mislabelled nodes times their cost. Each plane keeps those counts (its
// tally), so when the costs change but features and labels do not (Δ_avg's
// class weights follow the class frequencies of the training set, which
// differ between a selection set and the final set), b is recomputed
// under the new costs, and the plane is again exactly the constraint of
// its labellings in the new problem.
//
// On a superset, a carried plane counts the new instances at their true
// labels, where they contribute nothing, so the cutting-plane method has
// to find their violations plane by plane (the final fits of the
// protocols, on a quarter more images than their selection fits, took
// nearly as many iterations warm as cold). The first inference of the new
// training labels them anyway: each carried plane is then also added
// completed, with those labellings on the new instances instead of the
// truth, again exactly one of the new problem's constraints (its
// labellings are the plane's on the old instances and the first
// inference's on the new ones).

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/probably-submodular/crf/internal/safefile"
)

// WorkingSet is the cutting planes and hard constraints of a finished
// training (Trace.Working), with their duals and the planes' tallies, and
// what they are valid for: the layout, the loss, the constraint set, and a
// digest of every instance the planes average over (features, labels and
// the loss's node costs) and of every instance whose edges gave hard
// constraints (features).
type WorkingSet struct {
	Layout Layout
	Loss   string
	Set    string
	C      float64
	// Train is the number of training instances; Instances holds the
	// digests of the training instances followed by the other instances
	// whose edges the set constrains (ConstraintPool.Extra: C̄4's test
	// instances).
	Train     int
	Instances []InstanceDigest
	Planes    []WarmPlane
	Hard      []WarmRow
}

// InstanceDigest identifies an instance for a warm start: Features covers
// the features and edges (what hard constraints depend on), Labelled also
// the labels (what a plane's a and tally depend on), Plane also the node
// costs (what its b depends on). Labelled is zero in working sets written
// before it existed.
type InstanceDigest struct {
	Features, Plane, Labelled [32]byte
}

// WarmPlane is a cutting plane a·w ≥ b − ξ (a and b are means over the
// training instances) and its dual.
type WarmPlane struct {
	A     []float64
	B     float64
	Alpha float64
	// Tally[k·Labels+c] counts the nodes of true class c of training
	// instance k that the plane's labellings get wrong: b is the mean over
	// instances of Σ_c Tally·(cost of such a node). nil when unknown (a
	// plane saved before tallies existed, or restored from a checkpoint
	// written before checkpoints kept them), and then the plane carries
	// over only where the costs are the same.
	// Every plane keeps one, whatever its dual: the working set holds only
	// the planes pruning left (Tuning.InactiveWindow), a plane inactive at
	// one C may be active at the next, and a tally is Train·Labels small
	// counts (a byte each in the file for counts below 64), where the
	// labellings themselves would take a label per node.
	Tally []int32
}

// WarmRow is hard constraint Column of the set (a row of the set's matrix
// B) on edge Edge of instance Instance (an index into
// WorkingSet.Instances; with ConstraintPool.Keep, Edge counts only the
// edges Keep accepts), and its dual. C2*'s constraints are on no edge:
// Instance is −1 and Edge the pairwise feature.
type WarmRow struct {
	Instance, Edge, Column int
	Mu                     float64
}

// WarmStats says what a warm start used (Trace.Warm).
type WarmStats struct {
	// Planes and Hard count the planes and hard constraints taken over;
	// PlanesDropped and HardDropped those left out because the new problem
	// differs where they depend on it (another instance's features or
	// labels, node costs that no tally can re-cost, an instance missing
	// from the new training set, another set).
	Planes, Hard, PlanesDropped, HardDropped int
	// Recosted counts the planes among Planes whose offset was recomputed
	// from their tallies under this problem's node costs (the features and
	// labels matched, the loss or its costs did not).
	Recosted int
	// Completed counts the planes added at the first iteration as
	// completions of the carried ones on the instances the working set
	// did not have.
	Completed int
	// FromC is the C of the training the working set came from.
	FromC float64
}

// Save writes the working set to path atomically, with a checksum.
func (ws *WorkingSet) Save(path string) error {
	return safefile.WriteSealed(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(ws) })
}

// LoadWorkingSet reads a working set written by Save; a missing file is
// an error wrapping fs.ErrNotExist.
func LoadWorkingSet(path string) (*WorkingSet, error) {
	b, err := safefile.ReadSealed(path)
	if err != nil {
		return nil, fmt.Errorf("working set %w", err)
	}
	var ws WorkingSet
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&ws); err != nil {
		return nil, fmt.Errorf("working set %s: unreadable: %v", path, err)
	}
	return &ws, nil
}

// poolInstances is the list of instances whose edges the set's pool
// constrains, in pool order: the training instances, then the pool's Extra
// (C̄4's test instances).
func (t *trainer) poolInstances() []Instance {
	if len(t.spec.extra) > 0 {
		return append(slices.Clip(t.train), t.spec.extra...)
	}
	return t.train
}

// digests returns the instance digests of the training instances and the
// pool's other instances, computed once per training.
func (t *trainer) digests() []InstanceDigest {
	if t.instDigests == nil {
		t.instDigests = t.computeDigests()
	}
	return t.instDigests
}

func (t *trainer) computeDigests() []InstanceDigest {
	all := t.poolInstances()
	out := make([]InstanceDigest, len(all))
	for i := range all {
		in := &all[i]
		if i < len(t.items) {
			it := t.items[i]
			out[i] = InstanceDigest{Features: it.features, Labelled: it.labelled, Plane: it.planeDigest(t.costs[i])}
			continue
		}
		h := &hasher{h: sha256.New()}
		h.features(in)
		copy(out[i].Features[:], h.sum())
		if i < len(t.train) {
			h.ints(in.Labels...)
			copy(out[i].Labelled[:], h.sum())
			h.num(t.costs[i]...)
			copy(out[i].Plane[:], h.sum())
		}
	}
	return out
}

// poolOffsets gives, per pool instance, the index of its first edge among
// the pool's rows (nil for the identity pool of C2*); with the pool's Keep,
// only the edges it accepts count.
func (t *trainer) poolOffsets() []int {
	return t.spec.offsets
}

// workingSet is the trainer's working set at the end of training.
func (t *trainer) workingSet() *WorkingSet {
	ws := &WorkingSet{Layout: t.layout, Loss: t.s.Loss.Name(), Set: t.s.Set.Name(), C: t.s.C,
		Train: len(t.train), Instances: t.digests()}
	alpha, mu := t.qp.Duals()
	t.padTallies()
	for j := range t.qp.Planes() {
		a, b := t.qp.Plane(j)
		ws.Planes = append(ws.Planes, WarmPlane{A: a, B: b, Alpha: alpha[j], Tally: t.tallies[j]})
	}
	if q := t.spec.pool; q != nil {
		off := t.poolOffsets()
		for k, idx := range t.rowPool {
			r := WarmRow{Instance: -1, Edge: idx / len(q.B), Column: idx % len(q.B), Mu: mu[k]}
			if off != nil {
				r.Instance, _ = slices.BinarySearch(off, r.Edge+1)
				r.Instance--
				r.Edge -= off[r.Instance]
			}
			ws.Hard = append(ws.Hard, r)
		}
	}
	return ws
}

// warmStart adds the planes and hard constraints of s.Warm that are valid
// for this problem to the QP, with their duals rescaled to this C, and
// records what it used in the trace. Layouts that differ are an error;
// planes or constraints that do not carry over are left out and counted.
func (t *trainer) warmStart() error {
	ws, s := t.s.Warm, t.s
	if !sameLayout(ws.Layout, t.layout) {
		return fmt.Errorf("warm start: working set of layout %+v, this problem's is %+v", ws.Layout, t.layout)
	}
	if !(ws.C > 0) || ws.Train < 0 || ws.Train > len(ws.Instances) {
		return fmt.Errorf("warm start: damaged working set (C = %v, %d training of %d instances)", ws.C, ws.Train, len(ws.Instances))
	}
	mine := t.digests()
	where := s.WarmInstances
	if where == nil {
		where = make([]int, len(ws.Instances))
		for k := range where {
			where[k] = k
			if k >= len(mine) {
				where[k] = -1
			}
		}
	}
	if len(where) != len(ws.Instances) {
		return fmt.Errorf("warm start: WarmInstances has %d entries, the working set %d instances", len(where), len(ws.Instances))
	}
	seen := map[int]bool{}
	for k, i := range where {
		if i < -1 || i >= len(mine) || (i >= 0 && seen[i]) {
			return fmt.Errorf("warm start: WarmInstances[%d] = %d: want −1 or a distinct index below %d", k, i, len(mine))
		}
		seen[i] = i >= 0
	}
	st := WarmStats{FromC: ws.C}
	// Planes: every training instance of the working set must be a
	// training instance here, with the same features and labels; with the
	// same costs too (and loss), b carries over scaled, otherwise it is
	// recomputed from the plane's tally where the costs allow it.
	same, labelled := ws.Loss == s.Loss.Name(), true
	for k := 0; k < ws.Train && labelled; k++ {
		i := where[k]
		labelled = i >= 0 && i < len(t.train) && mine[i].Labelled == ws.Instances[k].Labelled
		same = same && i >= 0 && i < len(t.train) && mine[i].Plane == ws.Instances[k].Plane
	}
	var classCost [][]float64
	var classNodes [][]int32
	if !same && labelled {
		classCost, classNodes = t.classCosts()
	}
	var alpha, mu []float64
	cScale := s.C / ws.C
	t.padTallies()
	frac := float64(ws.Train) / float64(len(t.train))
	for j, p := range ws.Planes {
		if len(p.A) != t.layout.Dim() {
			return fmt.Errorf("warm start: plane %d of length %d, want %d", j, len(p.A), t.layout.Dim())
		}
		if p.Tally != nil && len(p.Tally) != ws.Train*t.layout.Labels {
			return fmt.Errorf("warm start: damaged working set (plane %d has a tally of %d counts, want %d)", j, len(p.Tally), ws.Train*t.layout.Labels)
		}
		b := frac * p.B
		tally := t.remapTally(p.Tally, where, ws.Train)
		switch {
		case same:
		case classCost != nil && tally != nil:
			var err error
			if b, err = t.recost(tally, classCost, classNodes); err != nil {
				return fmt.Errorf("warm start: damaged working set (plane %d: %v)", j, err)
			}
			st.Recosted++
		default:
			st.PlanesDropped++
			continue
		}
		a := make([]float64, len(p.A))
		for i, v := range p.A {
			a[i] = frac * v
		}
		if t.qp.AddPlane(a, b) < 0 {
			return fmt.Errorf("warm start: plane %d: %w", j, t.qp.Err())
		}
		t.maxA2 = math.Max(t.maxA2, dot(a, a))
		t.inactive = append(t.inactive, 0)
		t.tallies = append(t.tallies, tally)
		alpha = append(alpha, math.Max(0, p.Alpha)*cScale)
		st.Planes++
	}
	if st.Planes > 0 {
		t.warmNew = missing(where, ws.Train, len(t.train))
	}
	// Hard constraints: only where every stage enforces the whole pool
	// (no pretraining, no minibatches), of the same set, on edges with the
	// same features here.
	q := t.spec.pool
	stages := t.stages()
	rowsOK := q != nil && ws.Set == s.Set.Name() && len(stages) == 1 && stages[0] == q.rows
	off := t.poolOffsets()
	for _, r := range ws.Hard {
		idx := -1
		if rowsOK && r.Column >= 0 && r.Column < len(q.B) && r.Edge >= 0 {
			switch {
			case off == nil && r.Instance == -1 && r.Edge < q.rows:
				idx = r.Edge*len(q.B) + r.Column
			case off != nil && r.Instance >= 0 && r.Instance < len(where):
				i := where[r.Instance]
				if i >= 0 && mine[i].Features == ws.Instances[r.Instance].Features && r.Edge < off[i+1]-off[i] {
					idx = (off[i]+r.Edge)*len(q.B) + r.Column
				}
			}
		}
		if idx < 0 || q.added[idx] {
			st.HardDropped++
			continue
		}
		q.added[idx] = true
		n := t.qp.Rows()
		if t.addRow(q, idx) < 0 {
			return fmt.Errorf("warm start: hard constraint %d: %w", idx, t.qp.Err())
		}
		if t.qp.Rows() > n {
			mu = append(mu, math.Max(0, r.Mu)*cScale)
			st.Hard++
		} else {
			st.HardDropped++ // a zero row: 0 ≥ 0
		}
	}
	sum := 0.0
	for _, a := range alpha {
		sum += a
	}
	if sum > s.C {
		for j := range alpha {
			alpha[j] *= s.C / sum
		}
	}
	if err := t.qp.WarmStart(append(alpha, make([]float64, t.qp.Planes()-len(alpha))...), mu); err != nil {
		return fmt.Errorf("warm start: %w", err)
	}
	t.trace.Warm = &st
	return nil
}

func sameLayout(a, b Layout) bool {
	return a.Labels == b.Labels && a.UnaryDim == b.UnaryDim && a.PairwiseDim == b.PairwiseDim && a.Tied == b.Tied
}

// classCosts returns, per training instance and class, the cost of a
// mislabelled node of that class and the number of nodes of the class, or
// nil when some instance's costs differ between nodes of one class (a
// NodeCosts loss): tallies cannot re-cost planes then.
func (t *trainer) classCosts() (cost [][]float64, nodes [][]int32) {
	labels := t.layout.Labels
	cost, nodes = make([][]float64, len(t.train)), make([][]int32, len(t.train))
	for i := range t.train {
		cc, n := make([]float64, labels), make([]int32, labels)
		for k, y := range t.train[i].Labels {
			switch c := t.costs[i][k]; {
			case n[y] == 0:
				cc[y] = c
			case cc[y] != c:
				return nil, nil
			}
			n[y]++
		}
		cost[i], nodes[i] = cc, n
	}
	return cost, nodes
}

// recost is the offset b of a plane with tally (over this training set)
// under the node costs classCost: the mean over instances of the
// mislabelled nodes' costs. A count above the classNodes of its class is
// an error (no labelling has it).
func (t *trainer) recost(tally []int32, classCost [][]float64, classNodes [][]int32) (float64, error) {
	labels := t.layout.Labels
	b := 0.0
	for i := range t.train {
		sum := 0.0
		for c := range labels {
			m := tally[i*labels+c]
			if m < 0 || m > classNodes[i][c] {
				return 0, fmt.Errorf("%d mislabelled nodes of class %d in %s, which has %d", m, c, t.train[i].label(i), classNodes[i][c])
			}
			sum += float64(m) * classCost[i][c]
		}
		b += sum
	}
	return b / float64(len(t.train)), nil
}

// remapTally moves a working set's tally (over its train training
// instances) to this training set through where; the training instances
// not in the working set count as labelled right (the plane's labelling
// there is the truth). nil stays nil.
func (t *trainer) remapTally(tally []int32, where []int, train int) []int32 {
	if tally == nil {
		return nil
	}
	labels := t.layout.Labels
	out := make([]int32, len(t.train)*labels)
	for k := range train {
		if i := where[k]; i >= 0 && i < len(t.train) {
			copy(out[i*labels:(i+1)*labels], tally[k*labels:(k+1)*labels])
		}
	}
	return out
}

// missing lists the training instances (of train) that no working-set
// training instance maps to through where, nil if none.
func missing(where []int, wsTrain, train int) []int {
	have := make([]bool, train)
	for k := range wsTrain {
		if i := where[k]; i >= 0 && i < train {
			have[i] = true
		}
	}
	var out []int
	for i, ok := range have {
		if !ok {
			out = append(out, i)
		}
	}
	return out
}

// noteMiss records, for instance i labelled z by inference, its
// mislabelled nodes per true class (called by the worker that owns i).
func (t *trainer) noteMiss(i int, z []int) {
	m := t.missOf(i)
	clear(m)
	for k, y := range t.train[i].Labels {
		if z[k] != y {
			m[y]++
		}
	}
}

// missOf is instance i's part of t.miss.
func (t *trainer) missOf(i int) []int32 {
	l := t.layout.Labels
	return t.miss[i*l : (i+1)*l]
}

// notePlane records the tally of the plane just added to the QP (t.miss,
// which inference or fromCache filled). After the first inference of a
// warm start on a superset it also completes the carried planes
// (completeWarm).
func (t *trainer) notePlane() {
	t.tallies = slices.Grow(t.tallies, 1)
	for len(t.tallies) < t.qp.Planes()-1 {
		t.tallies = append(t.tallies, nil) // planes restored from a checkpoint
	}
	t.tallies = append(t.tallies, slices.Clone(t.miss))
	t.completeWarm()
}

// padTallies gives every plane of the QP a tally entry: planes restored
// from a checkpoint without tallies have none (nil).
func (t *trainer) padTallies() {
	for len(t.tallies) < t.qp.Planes() {
		t.tallies = append(t.tallies, nil)
	}
}

// dropTallies removes the tallies of planes drop (ascending), which the
// QP is about to remove.
func (t *trainer) dropTallies(drop []int) {
	t.padTallies()
	keep := t.tallies[:0]
	d := 0
	for j, tally := range t.tallies {
		if d < len(drop) && drop[d] == j {
			d++
			continue
		}
		keep = append(keep, tally)
	}
	clear(t.tallies[len(keep):])
	t.tallies = keep
}

// completeWarm adds, once, after the first inference of a training warm
// started on a superset, a completed copy of every plane carried over (all
// planes in the QP but the last, which that inference just added): on the
// instances t.warmNew, which the working set did not have, the copy has
// the labellings that inference found instead of the true labels, so it
// adds their mean feature difference and loss over this training set.
func (t *trainer) completeWarm() {
	nw := t.warmNew
	t.warmNew = nil
	if len(nw) == 0 {
		return
	}
	labels := t.layout.Labels
	aN := make([]float64, t.layout.Dim())
	bN := 0.0
	tallyN := make([]int32, len(t.train)*labels)
	for _, i := range nw {
		in := &t.train[i]
		if t.cache != nil {
			// The cache was empty before this first round: its entry is
			// this round's labelling, and an instance without one was
			// labelled at no loss, which the truth also is.
			switch c := t.cache[i]; len(c) {
			case 0:
			case 1:
				axpy(aN, 1, c[0].psi)
				bN += c[0].loss
				copy(tallyN[i*labels:], c[0].miss)
			default:
				return
			}
			continue
		}
		var z []int
		for _, wk := range t.works {
			if p, ok := wk.prev[i]; ok {
				z = p
			}
		}
		if z == nil {
			return // not a labelling of this round: add nothing
		}
		t.layout.featureDiff(aN, in, &t.feats[i], in.Labels, z)
		bN += LossValue(t.costs[i], in.Labels, z)
		copy(tallyN[i*labels:], t.missOf(i))
	}
	n := float64(len(t.train))
	for k := range aN {
		aN[k] /= n
	}
	bN /= n
	carried := t.qp.Planes() - 1
	for j := range carried {
		a, b := t.qp.Plane(j)
		for k := range a {
			a[k] += aN[k]
		}
		if t.qp.AddPlane(a, b+bN) < 0 {
			return // the QP's error surfaces at its next call
		}
		var tally []int32
		if tj := t.tallies[j]; tj != nil {
			tally = make([]int32, len(tj))
			for k := range tj {
				tally[k] = tj[k] + tallyN[k]
			}
		}
		t.tallies = append(t.tallies, tally)
		t.inactive = append(t.inactive, 0)
		t.maxA2 = math.Max(t.maxA2, dot(a, a))
		if t.trace.Warm != nil {
			t.trace.Warm.Completed++
		}
	}
}
