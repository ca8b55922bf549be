package protocol

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
)

// WarmStarts carries working sets (psub.Settings.Warm) along a
// segmentation grid: the selection fit at each C of a fold, set and loss
// starts from the working set of the fit at the C below it, and the final
// fit from the selection fit at the C it was chosen at (its planes scaled
// to the larger training set, their offsets re-costed when the loss's node
// costs differ there, as Δ_avg's class weights do, and completed on the
// images the selection fit did not have by the final fit's first
// inference; its hard constraints on the training edges both share), or,
// for the sets named in Finals and Selections, from another set's final
// or selection fit of the same fold and loss. The optimum each fit certifies is the same as a cold
// fit's (psub's warm start moves where the cutting-plane method begins,
// not its stopping rule); what is saved is iterations. grid.Options.After
// makes each fit wait for the one it starts from, so which working set a
// fit starts from does not depend on how the grid was scheduled (a shard
// holding a final without the final it would start from starts it from its
// selection fit instead).
type WarmStarts struct {
	// Dir keeps the working sets between fits (one file per fit, removed
	// once the fits that start from it have run).
	Dir string
	// Cs is the selection grid of C (job units), ascending.
	Cs []float64
	// Finals names, per set, the set whose final fit of the same fold and
	// loss that set's final fit starts from, instead of its own selection
	// fit: cutting planes bound the empirical risk whatever the
	// constraints, so C4's final working set is a valid start for C̄4's and
	// QPBO's finals (its hard constraints are dropped: they belong to C4),
	// and one much closer to their optimum than a selection fit on fewer
	// images (on the horses' fold 8 at C = 10: C̄4 126 instead of 3 165
	// iterations, QPBO 2 398 instead of 4 296; BenchmarkHorsesFinal).
	Finals map[string]string
	// Selections names, per set, the set whose selection fit at the same
	// C, fold and loss that set's selection fits start from, instead of
	// their own at the C below: for C̄4, C4's (on the horses' first two
	// folds 256 instead of 6 815 iterations over the ten selection fits;
	// QPBO's took more from C4's than along C, 10 144 against 8 808).
	Selections map[string]string

	mu      sync.Mutex
	listed  map[string]grid.Job        // the listed final fits, by finalKey
	keys    map[string]bool            // the listed jobs' keys
	waiting map[string]map[string]bool // per final fit started from: the finals not yet run that start from it
	ran     map[string]bool            // the finals of Finals' sets that ran in this process
}

// finalKey names a final fit of set of job j's fold, dataset and loss.
func finalKey(j grid.Job, set string) string {
	return fmt.Sprintf("%s|%s|%s|%d", j.Dataset, set, j.Loss, j.Fold)
}

// Listed tells w the jobs the runner is about to run (RunStaged calls it
// before each stage), so that a final fit named in Finals can find the
// final it starts from, whose C the selection of C chose, and a fit
// starts from another set's only when that fit is in the same run.
func (w *WarmStarts) Listed(jobs []grid.Job) {
	if w == nil || len(w.Finals)+len(w.Selections) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.listed, w.waiting, w.keys = map[string]grid.Job{}, map[string]map[string]bool{}, map[string]bool{}
	if w.ran == nil {
		w.ran = map[string]bool{}
	}
	for _, j := range jobs {
		w.keys[j.Key()] = true
		if j.Tag == "final" {
			w.listed[finalKey(j, j.Set)] = j
		}
	}
	for _, j := range jobs {
		if src, ok := w.fromFinal(j); ok && !w.ran[j.Key()] {
			k := src.Key()
			if w.waiting[k] == nil {
				w.waiting[k] = map[string]bool{}
			}
			w.waiting[k][j.Key()] = true
		}
	}
}

// fromFinal is the listed final fit a final fit j of a set in Finals
// starts from. w.mu is held.
func (w *WarmStarts) fromFinal(j grid.Job) (grid.Job, bool) {
	if j.Tag != "final" {
		return grid.Job{}, false
	}
	set, ok := w.Finals[j.Set]
	if !ok || set == j.Set {
		return grid.Job{}, false
	}
	src, ok := w.listed[finalKey(j, set)]
	return src, ok
}

// After is the job j starts from: for a selection fit, another set's at
// the same C (Selections) or else its own at the next smaller C; for a
// final fit, the final it starts from (Finals) or else the selection fit
// at its C. It is grid.Options.After.
func (w *WarmStarts) After(j grid.Job) (grid.Job, bool) {
	if w == nil {
		return grid.Job{}, false
	}
	w.mu.Lock()
	src, ok := w.fromFinal(j)
	w.mu.Unlock()
	if ok {
		return src, true
	}
	if set, ok := w.Selections[j.Set]; ok && j.Tag == "select" && set != j.Set {
		src := j
		src.Set = set
		w.mu.Lock()
		listed := w.keys[src.Key()]
		w.mu.Unlock()
		if listed {
			return src, true
		}
	}
	return w.selectionBefore(j)
}

// selectionBefore is After without Finals and Selections.
func (w *WarmStarts) selectionBefore(j grid.Job) (grid.Job, bool) {
	k := slices.Index(w.Cs, j.C)
	switch {
	case j.Tag == "final" && k >= 0 && len(w.Cs) > 1:
		j.Tag = "select"
		return j, true
	case j.Tag == "select" && k > 0:
		j.C = w.Cs[k-1]
		return j, true
	}
	return grid.Job{}, false
}

// warmFile is a saved working set and the items (indices into the
// experiment's images) of its instances, in the order of
// psub.WorkingSet.Instances.
type warmFile struct {
	Items []int
	Set   *psub.WorkingSet
}

func (w *WarmStarts) path(j grid.Job) string {
	name := strings.NewReplacer("*", "star", "|", "_", "/", "_").Replace(j.Key())
	return filepath.Join(w.Dir, name+".ws")
}

// load returns the working set job j starts from, the job that wrote it,
// and where each of its instances is among items (the new fit's training
// images followed by C̄4's test images), or nil when j starts cold: no
// predecessor, or its file is gone (a grid resumed elsewhere). A final
// whose Finals source left no working set (it failed, or ran in an earlier
// process that removed it) starts from its selection fit.
func (w *WarmStarts) load(j grid.Job, items []int) (*psub.WorkingSet, grid.Job, []int, error) {
	src, ok := w.After(j)
	if !ok {
		return nil, grid.Job{}, nil, nil
	}
	b, err := safefile.ReadSealed(w.path(src))
	if errors.Is(err, fs.ErrNotExist) && src.Set != j.Set {
		if src, ok = w.selectionBefore(j); ok {
			b, err = safefile.ReadSealed(w.path(src))
		}
	}
	if errors.Is(err, fs.ErrNotExist) || !ok {
		return nil, grid.Job{}, nil, nil
	}
	if err != nil {
		return nil, grid.Job{}, nil, fmt.Errorf("warm start: %v (remove it to start cold)", err)
	}
	var wf warmFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&wf); err != nil || wf.Set == nil || len(wf.Items) != len(wf.Set.Instances) {
		return nil, grid.Job{}, nil, fmt.Errorf("warm start: %s is damaged (remove it to start cold)", w.path(src))
	}
	pos := make(map[int]int, len(items))
	for i, it := range items {
		pos[it] = i
	}
	where := make([]int, len(wf.Items))
	for k, it := range wf.Items {
		where[k] = -1
		if i, ok := pos[it]; ok {
			where[k] = i
		}
	}
	return wf.Set, src, where, nil
}

// save keeps the working set of fit j, whose instances are items, for the
// fits that start from it. A final fit removes its group's selection
// files, which no fit starts from any more, and the working set of the
// final it started from once every final waiting for that one has run;
// it keeps its own only when finals start from it (Finals).
func (w *WarmStarts) save(j grid.Job, items []int, ws *psub.WorkingSet) error {
	if j.Tag == "final" {
		for _, c := range w.Cs {
			s := j
			s.Tag, s.C = "select", c
			if err := os.Remove(w.path(s)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		w.mu.Lock()
		src, fromFinal := w.fromFinal(j)
		last := false
		if fromFinal {
			w.ran[j.Key()] = true
			delete(w.waiting[src.Key()], j.Key())
			last = len(w.waiting[src.Key()]) == 0
		}
		keep := len(w.waiting[j.Key()]) > 0
		w.mu.Unlock()
		if last {
			if err := os.Remove(w.path(src)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		if !keep {
			return nil
		}
	}
	if ws == nil {
		return nil
	}
	if err := os.MkdirAll(w.Dir, 0o755); err != nil {
		return err
	}
	return safefile.WriteSealed(w.path(j), func(out io.Writer) error {
		return gob.NewEncoder(out).Encode(warmFile{Items: items, Set: ws})
	})
}

// warmMetrics records what a fit's warm start used: warm_from (the job C
// it started from, 0 when cold), warm_other (1 when that was another
// set's fit: WarmStarts.Finals, Selections), warm_planes, warm_recosted (those of the
// planes whose offsets were recomputed under this fit's node costs),
// warm_completed (the planes added as their completions on the images the
// working set lacked) and warm_hard.
func warmMetrics(m map[string]float64, job, src grid.Job, st *psub.WarmStats) {
	m["warm_from"], m["warm_other"], m["warm_planes"], m["warm_recosted"], m["warm_completed"], m["warm_hard"] = 0, 0, 0, 0, 0, 0
	if st != nil {
		m["warm_from"], m["warm_planes"], m["warm_hard"] = src.C, float64(st.Planes), float64(st.Hard)
		if src.Set != job.Set {
			m["warm_other"] = 1
		}
		m["warm_recosted"], m["warm_completed"] = float64(st.Recosted), float64(st.Completed)
	}
}
