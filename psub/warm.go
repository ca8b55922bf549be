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
// training (Trace.Working), with their duals, and what they are valid for:
// the layout, the loss, the constraint set, and a digest of every instance
// the planes average over (features, labels and the loss's node costs)
// and of every instance whose edges gave hard constraints (features).
type WorkingSet struct {
	Layout Layout
	Loss   string
	Set    string
	C      float64
	// Train is the number of training instances; Instances holds the
	// digests of the training instances followed by the other instances
	// whose edges the set constrains (C̄4's test instances).
	Train     int
	Instances []InstanceDigest
	Planes    []WarmPlane
	Hard      []WarmRow
}

// InstanceDigest identifies an instance for a warm start: Features covers
// the features and edges (what hard constraints depend on), Plane also the
// labels and node costs (what cutting planes depend on).
type InstanceDigest struct {
	Features, Plane [32]byte
}

// WarmPlane is a cutting plane a·w ≥ b − ξ (a and b are means over the
// training instances) and its dual.
type WarmPlane struct {
	A     []float64
	B     float64
	Alpha float64
}

// WarmRow is hard constraint Column of the set (a row of the set's matrix
// B) on edge Edge of instance Instance (an index into
// WorkingSet.Instances), and its dual. C2*'s constraints are on no edge:
// Instance is −1 and Edge the pairwise feature.
type WarmRow struct {
	Instance, Edge, Column int
	Mu                     float64
}

// WarmStats says what a warm start used (Trace.Warm).
type WarmStats struct {
	// Planes and Hard count the planes and hard constraints taken over;
	// PlanesDropped and HardDropped those left out because the new problem
	// differs where they depend on it (another loss or node costs, an
	// instance missing from the new training set, another set).
	Planes, Hard, PlanesDropped, HardDropped int
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
// constrains, in pool order: the training instances, then C̄4's test
// instances.
func (t *trainer) poolInstances() []Instance {
	if c, ok := t.s.Set.(C4Bar); ok {
		return append(slices.Clip(t.train), c.Test...)
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
		h := &hasher{h: sha256.New()}
		h.ints(len(in.Unary), len(in.Edges))
		for _, u := range in.Unary {
			h.num(u...)
		}
		for e, p := range in.Pairwise {
			h.ints(in.Edges[e][0], in.Edges[e][1])
			h.sparse(p)
		}
		copy(out[i].Features[:], h.sum())
		if i < len(t.train) {
			h.ints(in.Labels...)
			h.num(t.costs[i]...)
			copy(out[i].Plane[:], h.sum())
		}
	}
	return out
}

// poolOffsets gives, per pool instance, the index of its first edge among
// the pool's rows (nil for the identity pool of C2*).
func (t *trainer) poolOffsets() []int {
	q := t.spec.pool
	if q == nil || q.identity() {
		return nil
	}
	all := t.poolInstances()
	off := make([]int, len(all)+1)
	for i := range all {
		off[i+1] = off[i] + len(all[i].Pairwise)
	}
	return off
}

// workingSet is the trainer's working set at the end of training.
func (t *trainer) workingSet() *WorkingSet {
	ws := &WorkingSet{Layout: t.layout, Loss: t.s.Loss.Name(), Set: t.s.Set.Name(), C: t.s.C,
		Train: len(t.train), Instances: t.digests()}
	alpha, mu := t.qp.Duals()
	for j := range t.qp.Planes() {
		a, b := t.qp.Plane(j)
		ws.Planes = append(ws.Planes, WarmPlane{A: a, B: b, Alpha: alpha[j]})
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
	// training instance here, with the same features, labels and costs.
	planesOK := ws.Loss == s.Loss.Name()
	for k := 0; k < ws.Train && planesOK; k++ {
		i := where[k]
		planesOK = i >= 0 && i < len(t.train) && mine[i].Plane == ws.Instances[k].Plane
	}
	var alpha, mu []float64
	cScale := s.C / ws.C
	if planesOK {
		frac := float64(ws.Train) / float64(len(t.train))
		for j, p := range ws.Planes {
			if len(p.A) != t.layout.Dim() {
				return fmt.Errorf("warm start: plane %d of length %d, want %d", j, len(p.A), t.layout.Dim())
			}
			a := make([]float64, len(p.A))
			for i, v := range p.A {
				a[i] = frac * v
			}
			if t.qp.AddPlane(a, frac*p.B) < 0 {
				return fmt.Errorf("warm start: plane %d: %w", j, t.qp.Err())
			}
			t.maxA2 = math.Max(t.maxA2, dot(a, a))
			t.inactive = append(t.inactive, 0)
			alpha = append(alpha, math.Max(0, p.Alpha)*cScale)
		}
		st.Planes = len(ws.Planes)
	} else {
		st.PlanesDropped = len(ws.Planes)
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
