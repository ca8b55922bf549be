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
// inference; its hard constraints on the training edges both share). The
// optimum each fit certifies is the same as a cold fit's (psub's warm
// start moves where the cutting-plane method begins, not its stopping
// rule); what is saved is iterations. grid.Options.After makes each fit
// wait for the one it starts from, so which working set a fit starts from
// does not depend on how the grid was scheduled.
type WarmStarts struct {
	// Dir keeps the working sets between fits (one file per fit, removed
	// once the group's final fit has used them).
	Dir string
	// Cs is the selection grid of C (job units), ascending.
	Cs []float64
}

// After is the job j starts from: the selection fit at the next smaller C,
// or for a final fit the selection fit at its C. It is grid.Options.After.
func (w *WarmStarts) After(j grid.Job) (grid.Job, bool) {
	if w == nil {
		return grid.Job{}, false
	}
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

// load returns the working set job j starts from, and where each of its
// instances is among items (the new fit's training images followed by
// C̄4's test images), or nil when j starts cold: no predecessor, or its
// file is gone (a grid resumed elsewhere).
func (w *WarmStarts) load(j grid.Job, items []int) (*psub.WorkingSet, []int, error) {
	src, ok := w.After(j)
	if !ok {
		return nil, nil, nil
	}
	b, err := safefile.ReadSealed(w.path(src))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("warm start: %v (remove it to start cold)", err)
	}
	var wf warmFile
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&wf); err != nil || wf.Set == nil || len(wf.Items) != len(wf.Set.Instances) {
		return nil, nil, fmt.Errorf("warm start: %s is damaged (remove it to start cold)", w.path(src))
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
	return wf.Set, where, nil
}

// save keeps the working set of fit j, whose instances are items, for the
// fits that start from it; the final fit of a group removes its group's
// files instead, since no fit starts from it.
func (w *WarmStarts) save(j grid.Job, items []int, ws *psub.WorkingSet) error {
	if j.Tag == "final" {
		for _, c := range w.Cs {
			s := j
			s.Tag, s.C = "select", c
			if err := os.Remove(w.path(s)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
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
// it started from, 0 when cold), warm_planes, warm_recosted (those of the
// planes whose offsets were recomputed under this fit's node costs),
// warm_completed (the planes added as their completions on the images the
// working set lacked) and warm_hard.
func warmMetrics(m map[string]float64, from float64, st *psub.WarmStats) {
	m["warm_from"], m["warm_planes"], m["warm_recosted"], m["warm_completed"], m["warm_hard"] = 0, 0, 0, 0, 0
	if st != nil {
		m["warm_from"], m["warm_planes"], m["warm_hard"] = from, float64(st.Planes), float64(st.Hard)
		m["warm_recosted"], m["warm_completed"] = float64(st.Recosted), float64(st.Completed)
	}
}
