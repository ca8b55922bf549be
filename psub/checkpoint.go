package psub

// Checkpoints of long trainings (Settings.CheckpointDir): after every
// cutting-plane iteration Train saves what the 1-slack cutting-plane method
// cannot recompute cheaply (the working set of cutting planes and hard
// constraints with their duals, the planes' tallies, the stage and
// iteration, the best primal bound and its weights, the trace) and a later
// Train on the same problem and settings
// continues from there. The file name is derived from a fingerprint of the
// problem and of every setting that shapes the iterates, so a changed
// setting starts afresh instead of resuming something else.

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/internal/safefile"
)

// checkpointVersion changes whenever the saved state changes meaning or
// form (it is part of the fingerprint, hence of the file name, so files of
// another version are never read). Adding a field gob can leave empty does
// not change it: BestW and Tallies were added that way. Version 2: the file is sealed
// with a checksum (safefile.WriteSealed).
const checkpointVersion = 2

// checkpoint is the saved state of a trainer between two iterations.
type checkpoint struct {
	Version     int
	Fingerprint string
	Stage       int       // stage being run
	StageIter   int       // iterations done in that stage
	Iter        int       // iterations done in all stages
	Best        float64   // the stage's best primal bound
	BestW       []float64 // the iterate that reached it (nil in files written before BestW)
	PlaneA      [][]float64
	PlaneB      []float64
	// Tallies[j] is plane j's tally (WarmPlane.Tally), empty when unknown;
	// nil in files written before tallies were saved, whose planes are
	// restored without them (and re-costed by no later warm start).
	Tallies     [][]int32
	Alpha       []float64
	Inactive    []int
	Rows        []int // pool indices of the hard rows, in QP order
	Mu          []float64
	RowInactive []int
	HardAdded   int
	Computed    int64 // margins computed so far
	Trace       Trace
}

// fingerprint hashes the training problem (instances, labels, layout), the
// constraint set as the QP sees it (fixed and bounded coordinates, the hard
// constraint pool), the node costs of the loss and the settings that change
// the iterates, Tuning's included, and a warm start's working set (its
// planes' tallies too). MaxIter and Tol are left out, so that a
// run can be resumed with more iterations or a tighter tolerance (the QP's
// tolerance, Tol/100 unless Tuning.QP.Tol is set, is hashed); Workers and
// Progress do not change the iterates (TestFingerprintCoversSettings).
func (t *trainer) fingerprint() string {
	h := &hasher{h: sha256.New()}
	// The order is that of the files written before Settings.Tuning
	// existed, so that their checkpoints keep their names.
	s, u := t.s, t.s.Tuning
	h.str(fmt.Sprintf("v%d %s %s %#v %#v", checkpointVersion, s.Set.Name(), s.Loss.Name(), u.UnconstrainedInference, u.SubmodularInference))
	h.num(s.C, u.HardTol, u.QP.Tol, u.QP.FeasTol)
	h.ints(flag(s.Delayed), flag(u.TightBounds), flag(s.Pretrain), s.Minibatches, u.AddK, u.Cache, u.InactiveWindow,
		flag(s.Tied), u.QP.MaxIter, flag(u.QP.NoPolish))
	if u.MarginPass { // hashed only when set: default fingerprints keep their names
		h.str("margin-pass")
	}
	if u.Stabilize > 0 { // hashed only when on: fingerprints of runs without keep their names
		h.str("stabilize")
		h.num(u.Stabilize)
	}
	l := t.layout
	h.ints(l.Labels, l.UnaryDim, l.PairwiseDim, len(t.train))
	for i := range t.train {
		in := &t.train[i]
		h.features(in)
		h.ints(in.Labels...)
		h.num(t.costs[i]...)
	}
	h.ints(t.spec.fixed...)
	for _, b := range t.spec.bounds {
		h.ints(b[0], b[1])
	}
	// The pool: its rows come from the instances of the set (C̄4's include
	// the test instances, which the loop above does not see).
	if q := t.spec.pool; q != nil {
		h.ints(q.rows, len(q.B))
		// B as the dense rows it was hashed as when it was stored densely,
		// so that a checkpoint of that code still resumes.
		dense := make([]float64, t.layout.Blocks())
		for _, b := range q.B {
			for _, e := range b {
				dense[e.Block] = e.C
			}
			h.num(dense...)
			for _, e := range b {
				dense[e.Block] = 0
			}
		}
		if q.P != nil {
			r, _ := q.P.Dims()
			for i := 0; i < r; i++ {
				h.sparse(q.P.RawRowView(i))
			}
		}
		if q.sp != nil {
			h.ints(q.sp.start...)
			for _, x := range q.sp.idx {
				h.ints(int(x))
			}
			h.num(q.sp.val...)
		}
	}
	if ws := s.Warm; ws != nil {
		// A warm start changes the iterates: hash what it starts from.
		h.str(fmt.Sprintf("warm %s %s %+v", ws.Loss, ws.Set, ws.Layout))
		h.num(ws.C)
		h.ints(ws.Train, len(ws.Instances), len(ws.Planes), len(ws.Hard))
		for _, d := range ws.Instances {
			h.str(string(d.Features[:]) + string(d.Plane[:]))
		}
		for _, p := range ws.Planes {
			h.num(p.A...)
			h.num(p.B, p.Alpha)
		}
		for _, r := range ws.Hard {
			h.ints(r.Instance, r.Edge, r.Column)
			h.num(r.Mu)
		}
		h.ints(len(s.WarmInstances))
		h.ints(s.WarmInstances...)
		// The tallies decide which planes are re-costed and to what b.
		// Hashed last and only when some plane has one, so that a working
		// set saved before tallies existed keeps its checkpoint's name.
		if slices.ContainsFunc(ws.Planes, func(p WarmPlane) bool { return p.Tally != nil }) {
			h.str("tallies")
			for _, p := range ws.Planes {
				h.ints(len(p.Tally))
				for _, m := range p.Tally {
					h.ints(int(m))
				}
			}
		}
	}
	return fmt.Sprintf("%x", h.sum())
}

func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

// hasher feeds numbers to a hash as little-endian words, through a buffer
// (the multi-label pairwise features alone are gigabytes when dense, hence
// sparse for those).
type hasher struct {
	h   hash.Hash
	buf []byte
}

func (h *hasher) word(x uint64) {
	h.buf = binary.LittleEndian.AppendUint64(h.buf, x)
	if len(h.buf) >= 1<<16 {
		h.h.Write(h.buf)
		h.buf = h.buf[:0]
	}
}

func (h *hasher) num(xs ...float64) {
	for _, x := range xs {
		h.word(math.Float64bits(x))
	}
}

func (h *hasher) ints(xs ...int) {
	for _, x := range xs {
		h.word(uint64(x))
	}
}

func (h *hasher) str(s string) {
	h.ints(len(s))
	h.h.Write(h.buf)
	h.buf = h.buf[:0]
	h.h.Write([]byte(s))
}

// sparse hashes the length, then the position and value of every non-zero.
func (h *hasher) sparse(xs []float64) {
	h.ints(len(xs))
	for i, x := range xs {
		if x != 0 {
			h.word(uint64(i))
			h.num(x)
		}
	}
	h.ints(-1)
}

// features hashes an instance's graph and features: the unary rows as
// dense vectors, the edges with their pairwise rows' non-zeros; a sparse
// matrix hashes as its dense form does.
func (h *hasher) features(in *Instance) {
	ur, pr := in.unaryRows(), in.pairwiseRows()
	h.ints(ur.n(), len(in.Edges))
	var buf []float64
	if ur.s != nil {
		buf = make([]float64, ur.s.Dim)
	}
	for k := 0; k < ur.n(); k++ {
		h.num(ur.row(k, buf)...)
	}
	for e := range in.Edges {
		h.ints(in.Edges[e][0], in.Edges[e][1])
		if pr.s == nil {
			h.sparse(in.Pairwise[e])
			continue
		}
		h.ints(pr.s.Dim)
		idx, val := pr.s.Row(e)
		for t, j := range idx {
			if val[t] != 0 {
				h.word(uint64(j))
				h.num(val[t])
			}
		}
		h.ints(-1)
	}
}

func (h *hasher) sum() []byte {
	h.h.Write(h.buf)
	h.buf = h.buf[:0]
	return h.h.Sum(nil)
}

// checkpointPath is the file of this problem and settings.
func (t *trainer) checkpointPath() string {
	return filepath.Join(t.s.CheckpointDir, "train-"+t.fp[:16]+".ckpt")
}

// lockCheckpoint takes the lock of this problem's checkpoint, so that two
// trainings of one problem in one folder do not both run it (and write one
// file), and removes the temporary files of checkpoint writes that were
// killed. It returns the unlock function.
func (t *trainer) lockCheckpoint() (func(), error) {
	if err := os.MkdirAll(t.s.CheckpointDir, 0o755); err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	path := t.checkpointPath()
	l, err := safefile.TryLock(safefile.LockPath(path))
	if errors.Is(err, safefile.ErrLocked) {
		return nil, fmt.Errorf("checkpoint %s: another training of the same problem and settings is running (%v); wait for it, or give this one another checkpoint folder", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	safefile.CleanTemps(path)
	// Writers before safefile named their temporary files .train-*.tmp.
	safefile.CleanTempsMatching(t.s.CheckpointDir, func(name string) bool {
		return strings.HasPrefix(name, ".train-") && strings.HasSuffix(name, ".tmp")
	})
	return func() { l.Unlock() }, nil
}

// saveCheckpoint writes the state after an iteration of stage st, it
// iterations into it, atomically and with a checksum: a run killed while
// writing leaves the previous checkpoint, and a damaged file is refused.
func (t *trainer) saveCheckpoint(it int, best float64) error {
	c := checkpoint{
		Version: checkpointVersion, Fingerprint: t.fp,
		Stage: t.stage, StageIter: it, Iter: t.iter, Best: best, BestW: t.bestW,
		Inactive: t.inactive, Rows: t.rowPool, RowInactive: t.rowInactive,
		HardAdded: t.hardAdded, Computed: t.marginsSoFar(), Trace: *t.trace,
	}
	for j := 0; j < t.qp.Planes(); j++ {
		a, b := t.qp.Plane(j)
		c.PlaneA, c.PlaneB = append(c.PlaneA, a), append(c.PlaneB, b)
	}
	t.padTallies()
	c.Tallies = t.tallies[:t.qp.Planes()]
	c.Alpha, c.Mu = t.qp.Duals()
	path := t.checkpointPath()
	if err := safefile.WriteSealed(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(&c) }); err != nil {
		return fmt.Errorf("checkpoint %w", err)
	}
	return nil
}

// loadCheckpoint reads this problem's checkpoint, or returns nil when there
// is none.
func (t *trainer) loadCheckpoint() (*checkpoint, error) {
	path := t.checkpointPath()
	f, err := safefile.OpenSealed(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, safefile.ErrNotSealed) {
		return nil, fmt.Errorf("checkpoint %s: no checksum (written by an older psub, or damaged); remove it to train from scratch", path)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint %w", err)
	}
	defer f.Close()
	var c checkpoint
	derr := gob.NewDecoder(f).Decode(&c)
	if err := f.Verify(); err != nil {
		return nil, fmt.Errorf("checkpoint %v; remove it to train from scratch", err)
	}
	if derr != nil {
		return nil, fmt.Errorf("checkpoint %s: unreadable (%v); remove it to train from scratch", path, derr)
	}
	switch {
	case c.Version != checkpointVersion:
		return nil, fmt.Errorf("checkpoint %s: version %d, want %d; remove it to train from scratch", path, c.Version, checkpointVersion)
	case c.BestW != nil && len(c.BestW) != t.layout.Dim():
		return nil, fmt.Errorf("checkpoint %s: best weights of length %d, want %d; remove it to train from scratch", path, len(c.BestW), t.layout.Dim())
	case c.Fingerprint != t.fp:
		return nil, fmt.Errorf("checkpoint %s: written for another problem or settings (fingerprint %.16s…, want %.16s…); remove it to train from scratch", path, c.Fingerprint, t.fp)
	case len(c.PlaneA) != len(c.PlaneB) || len(c.Alpha) != len(c.PlaneB) || len(c.Inactive) != len(c.PlaneB),
		len(c.Mu) != len(c.Rows) || len(c.RowInactive) != len(c.Rows):
		return nil, fmt.Errorf("checkpoint %s: inconsistent lengths (%d planes, %d/%d/%d plane entries, %d rows, %d/%d row entries); remove it to train from scratch",
			path, len(c.PlaneB), len(c.PlaneA), len(c.Alpha), len(c.Inactive), len(c.Rows), len(c.Mu), len(c.RowInactive))
	case c.Tallies != nil && len(c.Tallies) != len(c.PlaneB):
		return nil, fmt.Errorf("checkpoint %s: %d tallies for %d planes; remove it to train from scratch", path, len(c.Tallies), len(c.PlaneB))
	case c.Stage < 0 || c.Stage >= len(t.stages()):
		return nil, fmt.Errorf("checkpoint %s: stage %d, want [0,%d); remove it to train from scratch", path, c.Stage, len(t.stages()))
	case c.BestW != nil && !(c.Best >= 0.5*dot(c.BestW, c.BestW)*(1-1e-12)):
		// The primal ½‖w‖² + C·ξ is never below ½‖w‖².
		return nil, fmt.Errorf("checkpoint %s: best primal bound %v below ½‖w‖² of its weights; remove it to train from scratch", path, c.Best)
	}
	return &c, nil
}

// restore rebuilds the QP's working set and the trainer's counters from c.
func (t *trainer) restore(c *checkpoint) error {
	path := t.checkpointPath()
	for j, a := range c.PlaneA {
		t.maxA2 = math.Max(t.maxA2, dot(a, a))
		if t.qp.AddPlane(a, c.PlaneB[j]) < 0 {
			return fmt.Errorf("checkpoint %s: plane %d: %w", path, j, t.qp.Err())
		}
	}
	if q := t.spec.pool; q != nil {
		for k, idx := range c.Rows {
			if idx < 0 || idx >= q.size() {
				return fmt.Errorf("checkpoint %s: hard row %d is pool entry %d, want [0,%d)", path, k, idx, q.size())
			}
			q.added[idx] = true
			if t.addRow(q, idx) < 0 {
				return fmt.Errorf("checkpoint %s: hard row %d: %w", path, k, t.qp.Err())
			}
		}
		q.computed = c.Computed
	} else if len(c.Rows) > 0 {
		return fmt.Errorf("checkpoint %s: %d hard rows for a set without hard constraints", path, len(c.Rows))
	}
	if t.qp.Rows() != len(c.Rows) {
		return fmt.Errorf("checkpoint %s: %d hard rows restored, want %d", path, t.qp.Rows(), len(c.Rows))
	}
	if err := t.restoreTallies(c.Tallies); err != nil {
		return fmt.Errorf("checkpoint %s: %w; remove it to train from scratch", path, err)
	}
	if err := t.qp.WarmStart(c.Alpha, c.Mu); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	t.inactive = append([]int(nil), c.Inactive...)
	t.rowInactive = append([]int(nil), c.RowInactive...)
	t.hardAdded = c.HardAdded
	t.iter = c.Iter
	*t.trace = c.Trace
	t.trace.Resumed = append(t.trace.Resumed, c.Iter)
	return nil
}

// restoreTallies gives the restored planes their saved tallies (none for a
// file written before tallies were saved: padTallies then marks them
// unknown), after checking that each could be a tally of this training
// set: Labels counts per instance, none above the nodes of its class.
func (t *trainer) restoreTallies(tallies [][]int32) error {
	labels := t.layout.Labels
	var nodes []int32 // nodes per (instance, class), counted once
	t.tallies = t.tallies[:0]
	for j, tally := range tallies {
		if len(tally) == 0 {
			t.tallies = append(t.tallies, nil)
			continue
		}
		if len(tally) != len(t.train)*labels {
			return fmt.Errorf("plane %d has a tally of %d counts, want %d", j, len(tally), len(t.train)*labels)
		}
		if nodes == nil {
			nodes = make([]int32, len(t.train)*labels)
			for i := range t.train {
				for _, y := range t.train[i].Labels {
					nodes[i*labels+y]++
				}
			}
		}
		for k, m := range tally {
			if m < 0 || m > nodes[k] {
				return fmt.Errorf("plane %d's tally counts %d mislabelled nodes of class %d in %s, which has %d", j, m, k%labels, t.train[k/labels].label(k/labels), nodes[k])
			}
		}
		t.tallies = append(t.tallies, tally)
	}
	t.padTallies()
	return nil
}
