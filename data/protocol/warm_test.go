package protocol

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/data/grid"
	"github.com/probably-submodular/crf/internal/datadir"
)

// TestWarmStartsMatchColdFits runs a cows grid on the tiny profile's images
// (three sets, both losses, three values of C) with warm starts and cold,
// and checks, fit by fit, that both are certified and that the warm fit's
// primal is within 2·Tol of the cold one's (each is within Tol of the same
// optimum); that every fit which has a predecessor started from it (a
// selection fit from the next smaller C; a final fit from the selection
// fit at its C, with the planes for Hamming, whose node costs do not
// change with the training set, and without them for Δ_avg, whose class
// weights do), and that the working sets are gone once the finals ran.
func TestWarmStartsMatchColdFits(t *testing.T) {
	datadir.Need(t, "tud_cows")
	c := Cows{}
	set, err := c.Build(Tiny, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Settings(Tiny)
	s.Sets, s.Losses, s.Cs, s.MaxIter = []string{"C0", "C4", "C4bar"}, []string{"hamming", "avg"}, []float64{0.1, 1, 10}, 0
	folds, err := grid.KFold(len(set.Items), s.Folds, s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(name string, cold bool) map[string]grid.Result {
		s := s
		s.Cold = cold
		opt := Options{Profile: Tiny, Results: filepath.Join(dir, name+".jsonl"), Models: filepath.Join(dir, "models-"+name), Workers: 2}
		e := s.experiment(c.Name(), set, folds, opt)
		if cold != (e.Warm == nil) {
			t.Fatalf("%s: warm starts %v", name, e.Warm != nil)
		}
		if e.Warm != nil {
			e.Warm.Dir = filepath.Join(dir, "warm")
		}
		rows, err := runSegmentation(context.Background(), cowsWith{c, s}, s, e, opt)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]grid.Result{}
		for _, r := range rows {
			out[r.Key()] = r
		}
		return out
	}
	warm, cold := run("warm", false), run("cold", true)
	if len(warm) != 36+12 || len(cold) != len(warm) {
		t.Fatalf("%d warm and %d cold fits, want 48", len(warm), len(cold))
	}
	var itWarm, itCold float64
	for k, w := range warm {
		cf, ok := cold[k]
		if !ok {
			// The finals may pick another C when the scores tie within
			// rounding; compare those only by convergence.
			if w.Metrics["converged"] != 1 {
				t.Errorf("%s: warm fit not converged", k)
			}
			continue
		}
		if w.Metrics["converged"] != 1 || cf.Metrics["converged"] != 1 {
			t.Errorf("%s: converged warm %v, cold %v", k, w.Metrics["converged"], cf.Metrics["converged"])
			continue
		}
		pw, pc := w.Metrics["primal"], cf.Metrics["primal"]
		if math.Abs(pw-pc) > 2*DefaultTol*math.Max(pw, pc) {
			t.Errorf("%s: primal warm %.9g, cold %.9g: more than 2·Tol apart", k, pw, pc)
		}
		if cf.Metrics["warm_planes"] != 0 || cf.Metrics["warm_from"] != 0 {
			t.Errorf("%s: cold fit records a warm start: %v", k, cf.Metrics)
		}
		wantFrom := map[float64]float64{0.1: 0, 1: 0.1, 10: 1}[w.C]
		if w.Tag == "final" {
			wantFrom = w.C
		}
		if w.Metrics["warm_from"] != wantFrom {
			t.Errorf("%s: warm_from %v, want %v", k, w.Metrics["warm_from"], wantFrom)
		}
		wantPlanes := wantFrom > 0 && (w.Tag == "select" || w.Loss == "hamming")
		if got := w.Metrics["warm_planes"] > 0; got != wantPlanes {
			t.Errorf("%s: %v warm planes, want some: %v", k, w.Metrics["warm_planes"], wantPlanes)
		}
		if w.Set != "C0" && wantFrom > 0 && w.Metrics["warm_hard"] == 0 && w.Metrics["hard_active"] > 0 {
			t.Errorf("%s: no warm hard constraints", k)
		}
		if wantFrom > 0 {
			itWarm += w.Metrics["iterations"]
			itCold += cf.Metrics["iterations"]
		}
	}
	t.Logf("fits with a predecessor: %.0f iterations warm, %.0f cold", itWarm, itCold)
	if left, _ := os.ReadDir(filepath.Join(dir, "warm")); len(left) != 0 {
		t.Errorf("%d working sets left after the finals, want none", len(left))
	}
}

// cowsWith is the cows protocol with other settings.
type cowsWith struct {
	Cows
	s SegmentationSettings
}

func (c cowsWith) Jobs(_ Profile, rows []grid.Result) ([]grid.Job, error) {
	return segmentationJobs(c.Name(), c.s, rows), nil
}
