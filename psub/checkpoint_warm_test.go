package psub

import (
	"encoding/gob"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/safefile"
)

// tallyOffset is the offset of a plane with tally (over set, Labels 2) under
// the node costs costs (refCosts, computed independently of the trainer):
// the mean over instances of the mislabelled nodes' costs, each class's
// nodes all costing the same in one instance.
func tallyOffset(t *testing.T, tally []int32, set []Instance, costs [][]float64) float64 {
	t.Helper()
	const labels = 2
	b := 0.0
	for i := range set {
		var cost [labels]float64
		for v, y := range set[i].Labels {
			cost[y] = costs[i][v]
		}
		for c := range labels {
			b += float64(tally[i*labels+c]) * cost[c]
		}
	}
	return b / float64(len(set))
}

// superset is checkpointSet's problem: mixedSet's 9 instances and a
// subset of 6 of them, where[k] the index in all of sub[k].
func superset(seed uint64) (all, sub []Instance, where []int) {
	rng := rand.New(rand.NewPCG(seed, 36))
	all = mixedSet(rng)
	perm := rng.Perm(len(all))
	sub, where = make([]Instance, 6), make([]int, 6)
	for k := range sub {
		sub[k], where[k] = all[perm[k]], perm[k]
	}
	return all, sub, where
}

// rewriteCheckpoint applies edit to the checkpoint in dir and seals it
// again, as a file written so would be.
func rewriteCheckpoint(t *testing.T, dir string, edit func(*checkpoint)) string {
	t.Helper()
	files := checkpointFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("%s holds %v, want one checkpoint", dir, files)
	}
	f, err := safefile.OpenSealed(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var c checkpoint
	err = gob.NewDecoder(f).Decode(&c)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	edit(&c)
	if err := safefile.WriteSealed(files[0], func(w io.Writer) error { return gob.NewEncoder(w).Encode(&c) }); err != nil {
		t.Fatal(err)
	}
	return files[0]
}

// A class-averaged training interrupted and resumed from its checkpoint
// hands on planes that all keep their tallies (issue 27 item 2: restored
// planes had none, so a Δ_avg final fit after a resumed selection fit
// dropped them): every plane's tally gives its offset back under S's costs
// (refCosts), a Δ_avg warm start on the superset T re-costs every one of
// them to the offset computed on T from the tally (refCosts, |S|/|T|·a),
// and the warm fit on T reaches the cold fit's optimum (warmCheck, by
// enumeration). No pruning (a long InactiveWindow), so that the planes
// restored from the checkpoint are still in the working set at the end.
func TestCheckpointKeepsTallies(t *testing.T) {
	const labels, stop = 2, 6
	all, sub, where := superset(1)
	costS, costT := refCosts(sub, labels, true), refCosts(all, labels, true)
	for _, v := range []struct {
		name string
		s    Settings
	}{{"C4", Settings{Set: C4{}, Delayed: true}}, {"C4 cache", Settings{Set: C4{}, Delayed: true, Tuning: Tuning{Cache: 5}}},
		{"C2", Settings{Set: C2{}}}} {
		t.Run(v.name, func(t *testing.T) {
			s := v.s
			s.C, s.Tol, s.Workers, s.Loss = 10, 1e-4, 1, ClassAveraged{}
			s.Tuning.InactiveWindow = 1 << 20
			s.CheckpointDir = t.TempDir()
			interrupted(t, sub, s, stop)
			_, tr := trainSet(t, sub, s)
			if len(tr.Resumed) != 1 || tr.Resumed[0] != stop-1 {
				t.Fatalf("Resumed = %v, want [%d]", tr.Resumed, stop-1)
			}
			ws := tr.Working
			if len(ws.Planes) < stop || tr.PlanesRemoved != 0 {
				t.Fatalf("%d planes in the working set, %d removed: want the %d restored ones kept", len(ws.Planes), tr.PlanesRemoved, stop-1)
			}
			for j, p := range ws.Planes {
				if p.Tally == nil {
					t.Fatalf("plane %d of %d has no tally", j, len(ws.Planes))
				}
				if b := tallyOffset(t, p.Tally, sub, costS); math.Abs(b-p.B) > 1e-12*math.Max(1, p.B) {
					t.Errorf("plane %d: offset %.15g, from its tally %.15g", j, p.B, b)
				}
			}
			// A Δ_avg warm start on the superset re-costs them all.
			s.CheckpointDir, s.Warm, s.WarmInstances = "", ws, where
			tt, err := newTrainer(all, labels, s)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.warmStart(); err != nil {
				t.Fatal(err)
			}
			if st := tt.trace.Warm; st.Planes != len(ws.Planes) || st.Recosted != len(ws.Planes) || st.PlanesDropped != 0 {
				t.Fatalf("warm start: %+v, want all %d planes re-costed", *st, len(ws.Planes))
			}
			frac := float64(len(sub)) / float64(len(all))
			for j, p := range ws.Planes {
				onT := make([]int32, len(all)*labels)
				for k, i := range where {
					copy(onT[i*labels:(i+1)*labels], p.Tally[k*labels:(k+1)*labels])
				}
				want := tallyOffset(t, onT, all, costT)
				a, b := tt.qp.Plane(j)
				if math.Abs(b-want) > 1e-12*math.Max(1, want) {
					t.Errorf("re-costed plane %d: offset %.15g, on T directly %.15g", j, b, want)
				}
				for i := range a {
					if math.Abs(a[i]-frac*p.A[i]) > 1e-12*math.Max(1, math.Abs(a[i])) {
						t.Errorf("re-costed plane %d: a[%d] = %.15g, want %.15g", j, i, a[i], frac*p.A[i])
						break
					}
				}
			}
			// And the warm fit on T is certified at the cold fit's optimum.
			mw, warm, err := Train(all, labels, s)
			if err != nil {
				t.Fatal(err)
			}
			s.Warm, s.WarmInstances = nil, nil
			mc, cold, err := Train(all, labels, s)
			if err != nil {
				t.Fatal(err)
			}
			warmCheck(t, v.name, s.Tol, cold, warm, mc, mw, func(w []float64) float64 { return refPrimal(w, s.C, labels, all, true) })
			t.Logf("selection %d iterations (resumed after %d), %d planes; final on T: cold %d, warm %d iterations (%d re-costed, %d completed)",
				tr.Iters, stop-1, len(ws.Planes), cold.Iters, warm.Iters, warm.Warm.Recosted, warm.Warm.Completed)
		})
	}
}

// A checkpoint written before tallies were saved (Tallies nil) still
// resumes, its planes restored without tallies as before: a later Δ_avg
// warm start drops exactly those and re-costs the others. Tallies that no
// labelling of the training set can have are refused with an error naming
// the file.
func TestCheckpointWithoutTallies(t *testing.T) {
	const labels, stop = 2, 6
	all, sub, where := superset(2)
	s := Settings{Set: C4{}, Delayed: true, C: 10, Tol: 1e-4, Workers: 1, Loss: ClassAveraged{},
		Tuning: Tuning{InactiveWindow: 1 << 20}, CheckpointDir: t.TempDir()}
	interrupted(t, sub, s, stop)
	restored := 0
	rewriteCheckpoint(t, s.CheckpointDir, func(c *checkpoint) {
		if len(c.Tallies) != len(c.PlaneB) || slices.ContainsFunc(c.Tallies, func(x []int32) bool { return len(x) == 0 }) {
			t.Errorf("checkpoint of %d planes holds %d tallies, some empty: want one per plane", len(c.PlaneB), len(c.Tallies))
		}
		c.Tallies, restored = nil, len(c.PlaneB)
	})
	_, tr := trainSet(t, sub, s)
	if len(tr.Resumed) != 1 || restored == 0 || tr.PlanesRemoved != 0 {
		t.Fatalf("resumed %v with %d planes restored, %d removed", tr.Resumed, restored, tr.PlanesRemoved)
	}
	for j, p := range tr.Working.Planes {
		if (p.Tally == nil) != (j < restored) {
			t.Errorf("plane %d has tally %v; want none exactly for the %d restored planes", j, p.Tally, restored)
		}
	}
	w := s
	w.CheckpointDir, w.Warm, w.WarmInstances = "", tr.Working, where
	_, warm, err := Train(all, labels, w)
	if err != nil {
		t.Fatal(err)
	}
	if st := warm.Warm; st.PlanesDropped != restored || st.Recosted != len(tr.Working.Planes)-restored {
		t.Errorf("warm start: %+v, want %d dropped and %d re-costed", *st, restored, len(tr.Working.Planes)-restored)
	}

	// Damaged tallies, each in a new checkpoint.
	for _, d := range []struct {
		name string
		edit func(c *checkpoint)
		want string
	}{
		{"one tally too few", func(c *checkpoint) { c.Tallies = c.Tallies[1:] }, "tallies for"},
		{"a short tally", func(c *checkpoint) { c.Tallies[0] = c.Tallies[0][1:] }, "counts, want"},
		{"a negative count", func(c *checkpoint) { c.Tallies[1][3] = -1 }, "mislabelled nodes of class 1"},
		{"more than the class's nodes", func(c *checkpoint) { c.Tallies[2][0] = 9 }, "mislabelled nodes of class 0"},
	} {
		s.CheckpointDir = t.TempDir()
		interrupted(t, sub, s, stop)
		path := rewriteCheckpoint(t, s.CheckpointDir, d.edit)
		_, _, err := Train(sub, labels, s)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), d.want) || !strings.Contains(err.Error(), "remove it") {
			t.Errorf("%s: err %v, want an error naming %s and saying %q", d.name, err, path, d.want)
		}
	}
}

// The fingerprint of a warm-started training covers the planes' tallies
// (they decide which planes are re-costed and to what offset): two working
// sets that differ only in one count, or in whether a plane has a tally,
// name different checkpoints; equal ones, the same.
func TestFingerprintCoversTallies(t *testing.T) {
	_, sub, _ := superset(3)
	ws := func(tallies ...[]int32) *WorkingSet {
		w := &WorkingSet{C: 2, Train: len(sub), Loss: "hamming", Set: "C4"}
		for k, tally := range tallies {
			w.Planes = append(w.Planes, WarmPlane{A: []float64{float64(k), 1}, B: 0.5, Alpha: 0.1, Tally: slices.Clone(tally)})
		}
		return w
	}
	fp := func(w *WorkingSet) string {
		t.Helper()
		tr, err := newTrainer(sub, 2, Settings{C: 5, Set: C4{}, Warm: w})
		if err != nil {
			t.Fatal(err)
		}
		return tr.fingerprint()
	}
	x := make([]int32, 2*len(sub))
	y := slices.Clone(x)
	y[5] = 1
	z := slices.Clone(x)
	z[4] = 1
	ref := fp(ws(x, y))
	if got := fp(ws(x, y)); got != ref {
		t.Errorf("equal working sets: fingerprints %s and %s", got, ref)
	}
	for name, w := range map[string]*WorkingSet{
		"one count moved":               ws(x, z),
		"one count dropped":             ws(x, x),
		"second plane's unknown":        ws(x, nil),
		"both unknown":                  ws(nil, nil),
		"first plane's unknown":         ws(nil, y),
		"tallies of two planes swapped": ws(y, x),
	} {
		if fp(w) == ref {
			t.Errorf("%s: same fingerprint as the reference working set", name)
		}
	}
	if fp(ws(nil, nil)) == fp(ws(x, x)) {
		t.Errorf("unknown tallies and all-zero tallies: same fingerprint")
	}
}
