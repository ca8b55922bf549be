package notebooks_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/mito"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/retina"
	"github.com/probably-submodular/crf/psub"
)

// mitoCheckEnv, when set, makes TestCommittedModelsReproduceRows check
// mito too: its two volumes, built from the segment cache, take about
// 9.5 GB resident (35 s in all on the shared 2-core machine).
const mitoCheckEnv = "PSUB_CHECK_MITO"

// rescoreTol is how far a rescored metric may be from its row: scoring is
// deterministic, so only the JSON round trip of the model's weights could
// move it, and Go writes float64s exactly.
const rescoreTol = 1e-12

// TestCommittedModelsReproduceRows checks that the final models committed
// in notebooks/results/models/NAME-full (DefaultModels) are the ones the
// committed rows (DefaultResults) were scored with: every final row has its
// model, the directory holds nothing else, and scoring the model on the
// fold as Run scores a final fit (rescoreFinal) gives the row's metrics.
// The notebooks draw their figures from these models beside tables from
// these rows. Cows (15 s) and retina (9 s) build from the segment cache
// (-short: cows only); mito only with PSUB_CHECK_MITO=1. Skipped without
// the data sets.
func TestCommittedModelsReproduceRows(t *testing.T) {
	for _, name := range []string{"cows", "retina", "mito"} {
		t.Run(name, func(t *testing.T) {
			if name == "mito" && os.Getenv(mitoCheckEnv) == "" {
				t.Skipf("mito's volumes take about 9.5 GB to build: set %s=1 to check its models", mitoCheckEnv)
			}
			if testing.Short() && name != "cows" {
				t.Skip("-short: cows only")
			}
			e, err := fullExperiment(name)
			if errors.Is(err, data.ErrNotFound) {
				t.Skipf("data for %s not available (set %s): %v", name, data.EnvVar, err)
			}
			if err != nil {
				t.Fatal(err)
			}
			rows, err := grid.ReadResults(protocol.DefaultResults(name, protocol.Full))
			if err != nil {
				t.Fatal(err)
			}
			final := finalRows(rows)
			if len(final) == 0 {
				t.Fatalf("%s: no final rows", protocol.DefaultResults(name, protocol.Full))
			}
			dir := protocol.DefaultModels(name, protocol.Full)
			c := checkModels(e, final, dir)
			for _, p := range c.problems {
				t.Error(p)
			}
			if stray := strayModels(t, final, dir); len(stray) > 0 {
				t.Errorf("%s holds %d files of no final row: %v", dir, len(stray), stray)
			}
			// What the notebooks call: FinalModel with the profile alone.
			p, err := protocol.ByName(name)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := protocol.FinalModel(p, protocol.Options{Profile: protocol.Full}, final[0].Set, final[0].Loss, final[0].Fold); err != nil {
				t.Errorf("FinalModel of %s, full profile: %v", final[0].Key(), err)
			}
			t.Logf("%s: %d final rows, %d models rescored, %d metrics compared, max |difference| %.3g", name, len(final), c.models, c.metrics, c.maxDiff)

			// The check can fail: two models of different scores swapped,
			// and a third missing, in a copy of the directory.
			a, b := differentPair(final)
			if a < 0 {
				t.Fatalf("no two final rows of one fold with different test_acc to swap")
			}
			bad := t.TempDir()
			for i, src := range []int{b, a} {
				copyFile(t, protocol.ModelPath(dir, final[src].Job), protocol.ModelPath(bad, final[[]int{a, b}[i]].Job))
			}
			missing := final[len(final)-1]
			if missing.Key() == final[a].Key() || missing.Key() == final[b].Key() {
				missing = final[0]
			}
			c = checkModels(e, []grid.Result{final[a], final[b], missing}, bad)
			if len(c.problems) < 3 {
				t.Errorf("swapped %s and %s and left out %s: %d problems found, want one each: %v",
					final[a].Key(), final[b].Key(), missing.Key(), len(c.problems), c.problems)
			}
			t.Logf("swapped and missing models, as the check reports them: %v", c.problems)
		})
	}
}

// fullExperiment is the full profile's SegmentationExperiment of a
// segmentation protocol: the one its final fits run.
func fullExperiment(name string) (*protocol.SegmentationExperiment, error) {
	opt, err := protocol.Options{Profile: protocol.Full}.WithDefaults(name)
	if err != nil {
		return nil, err
	}
	switch name {
	case "cows":
		set, err := cows.Experiment{}.Build(protocol.Full, nil)
		if err != nil {
			return nil, err
		}
		folds, err := cows.Experiment{}.Folds(protocol.Full, set)
		if err != nil {
			return nil, err
		}
		return cows.Experiment{}.Settings(protocol.Full).Experiment(name, set, folds, opt), nil
	case "retina":
		set, err := retina.Experiment{}.Build(protocol.Full, nil)
		if err != nil {
			return nil, err
		}
		folds, err := retina.Experiment{}.Folds(protocol.Full, set)
		if err != nil {
			return nil, err
		}
		return retina.Experiment{}.Settings(protocol.Full).Experiment(name, set, folds, opt), nil
	case "mito":
		set, folds, err := mito.Experiment{}.Build(protocol.Full, nil)
		if err != nil {
			return nil, err
		}
		_, final, err := mito.Experiment{}.Settings(protocol.Full).Experiments(set, folds, opt)
		return final, err
	}
	return nil, fmt.Errorf("%s: not a segmentation protocol", name)
}

func finalRows(rows []grid.Result) []grid.Result {
	var out []grid.Result
	for _, r := range rows {
		if r.Tag == "final" && r.Error == "" {
			out = append(out, r)
		}
	}
	return out
}

// modelCheck is what checkModels found.
type modelCheck struct {
	problems        []string
	models, metrics int
	maxDiff         float64
}

// checkModels rescores the model under dir of every row and compares the
// metrics with the row's.
func checkModels(e *protocol.SegmentationExperiment, rows []grid.Result, dir string) modelCheck {
	var c modelCheck
	for _, r := range rows {
		path := protocol.ModelPath(dir, r.Job)
		model, err := psub.LoadFile(path)
		if err != nil {
			c.problems = append(c.problems, fmt.Sprintf("%s: %v", r.Key(), err))
			continue
		}
		m, err := e.RescoreFinal(model, r.Job)
		if err != nil {
			c.problems = append(c.problems, fmt.Sprintf("%s: rescoring %s: %v", r.Key(), path, err))
			continue
		}
		c.models++
		var off []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			want, ok := r.Metrics[k]
			if !ok {
				off = append(off, fmt.Sprintf("%s: not in the row", k))
				continue
			}
			c.metrics++
			d := math.Abs(m[k] - want)
			if math.IsNaN(m[k]) && math.IsNaN(want) {
				d = 0
			}
			if d > rescoreTol || math.IsNaN(d) {
				off = append(off, fmt.Sprintf("%s %.15g, row %.15g", k, m[k], want))
			}
			if !math.IsNaN(d) {
				c.maxDiff = math.Max(c.maxDiff, d)
			}
		}
		if len(off) > 0 {
			c.problems = append(c.problems, fmt.Sprintf("%s: %s does not reproduce the row: %v", r.Key(), path, off))
		}
	}
	return c
}

// strayModels lists the files of dir that are no final row's model.
func strayModels(t *testing.T, final []grid.Result, dir string) []string {
	t.Helper()
	want := map[string]bool{}
	for _, r := range final {
		want[filepath.Base(protocol.ModelPath(dir, r.Job))] = true
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // every row's model is reported missing
	}
	if err != nil {
		t.Fatal(err)
	}
	var stray []string
	for _, e := range entries {
		if !want[e.Name()] {
			stray = append(stray, e.Name())
		}
	}
	sort.Strings(stray)
	return stray
}

// differentPair is two final rows of one fold, of columns tested with the
// same inference (Model.Predict's), whose test accuracies differ: each
// model then scores the other's row exactly, so swapped they must fail
// (-1, -1: none).
func differentPair(final []grid.Result) (int, int) {
	plain := func(r grid.Result) bool {
		col, err := protocol.ColumnByName(r.Set, nil)
		return err == nil && col.Test == nil
	}
	for i, a := range final {
		for j := i + 1; j < len(final); j++ {
			b := final[j]
			if a.Fold == b.Fold && plain(a) && plain(b) && a.Metrics["test_acc"] != b.Metrics["test_acc"] {
				return i, j
			}
		}
	}
	return -1, -1
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
