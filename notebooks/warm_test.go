package notebooks_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/datadir"
	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/retina"
)

// TestWarmStartsMatchColdFits runs a cows grid on the tiny profile's images
// (three sets, both losses, three values of C) with warm starts and cold,
// and checks it with checkWarmGrid.
func TestWarmStartsMatchColdFits(t *testing.T) {
	datadir.Need(t, "tud_cows")
	c := cows.Experiment{}
	set, err := c.Build(protocol.Tiny, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Settings(protocol.Tiny)
	s.Sets, s.Losses, s.Cs, s.MaxIter = []string{"C0", "C4", "C4bar"}, []string{"hamming", "avg"}, []float64{0.1, 1, 10}, 0
	s.FromC4 = true // the horses' chain across columns, on both losses
	folds, err := data.KFold(len(set.Items), s.Folds, s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	checkWarmGrid(t, withSettings{c, s}, s, set, folds, 36+12)
}

// TestWarmStartsRetina does the same on the retina protocol's tiny profile
// (horses, Δ_avg only, C0, C4 and QPBO, two values of C), whose final fits
// start from planes re-costed to the final training set's class weights.
func TestWarmStartsRetina(t *testing.T) {
	datadir.Need(t, "weizmann_horse")
	r := retina.Experiment{}
	set, err := r.Build(protocol.Tiny, nil)
	if err != nil {
		t.Fatal(err)
	}
	folds, err := r.Folds(protocol.Tiny, set)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Settings(protocol.Tiny)
	s.MaxIter = 0 // psub's default cap: every fit converges
	checkWarmGrid(t, withSettings{r, s}, s, set, folds, len(s.Sets)*len(s.Losses)*s.Folds*(len(s.Cs)+1))
}

// checkWarmGrid runs protocol p's grid with settings s on set with warm
// starts and cold, and checks, fit by fit, that both are certified and
// that the warm fit's primal is within 2·Tol of the cold one's (each is
// within Tol of the same optimum); that every fit which has a predecessor
// started from it (a selection fit from the next smaller C, a final fit
// from the selection fit at its C, C̄4's and QPBO's from C4's final and
// C̄4's selection fits from C4's at the same C, whose planes carry over
// as they are) and took its planes over: as they are
// along C, re-costed for the finals under Δ_avg (whose class weights
// change with the training set) and scaled for the finals under Hamming,
// each final's also completed on its new images; and that the working
// sets are gone once the finals ran.
func checkWarmGrid(t *testing.T, p protocol.Protocol, s protocol.SegmentationSettings, set *data.SegmentedSet, folds []data.Fold, fits int) {
	t.Helper()
	dir := t.TempDir()
	run := func(name string, cold bool) map[string]grid.Result {
		s := s
		s.Cold = cold
		opt := protocol.Options{Profile: protocol.Tiny, Results: filepath.Join(dir, name+".jsonl"), Models: filepath.Join(dir, "models-"+name), Workers: 2}
		e := s.Experiment(p.Name(), set, folds, opt)
		if cold != (e.Warm == nil) {
			t.Fatalf("%s: warm starts %v", name, e.Warm != nil)
		}
		if e.Warm != nil {
			e.Warm.Dir = filepath.Join(dir, "warm")
		}
		rows, err := protocol.RunSegmentation(context.Background(), p, s, e, opt)
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
	if len(warm) != fits || len(cold) != len(warm) {
		t.Fatalf("%d warm and %d cold fits, want %d", len(warm), len(cold), fits)
	}
	cs := slices.Sorted(slices.Values(s.Cs))
	tol := s.Tol
	if tol == 0 {
		tol = protocol.DefaultTol
	}
	var itWarm, itCold, finWarm, finCold, recosted, finFromFinal, finFromFinalCold, selFromC4, selFromC4Cold float64
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
		if math.Abs(pw-pc) > 2*tol*math.Max(pw, pc) {
			t.Errorf("%s: primal warm %.9g, cold %.9g: more than 2·Tol apart", k, pw, pc)
		}
		if cf.Metrics["warm_planes"] != 0 || cf.Metrics["warm_from"] != 0 {
			t.Errorf("%s: cold fit records a warm start: %v", k, cf.Metrics)
		}
		wantFrom, fromFinal := 0.0, false
		if i := slices.Index(cs, w.C); w.Tag == "final" {
			wantFrom = w.C
			if src, ok := sourceFinal(warm, s, w.Job); ok {
				wantFrom, fromFinal = src.C, true
			}
		} else if w.Set == "C4bar" && s.FromC4 && slices.Contains(s.Sets, "C4") {
			wantFrom, fromFinal = w.C, true // C4's selection fit at the same C
		} else if i > 0 {
			wantFrom = cs[i-1]
		}
		if w.Metrics["warm_from"] != wantFrom || (w.Metrics["warm_other"] == 1) != fromFinal {
			t.Errorf("%s: warm_from %v (other set %v), want %v (other set %v)", k, w.Metrics["warm_from"], w.Metrics["warm_other"], wantFrom, fromFinal)
		}
		if got := w.Metrics["warm_planes"] > 0; got != (wantFrom > 0) {
			t.Errorf("%s: %v warm planes, want some: %v", k, w.Metrics["warm_planes"], wantFrom > 0)
		}
		if fromFinal {
			// Same training images and loss as the fit it starts from:
			// its planes carry over as they are, none re-costed or completed.
			if w.Metrics["warm_recosted"] != 0 || w.Metrics["warm_completed"] != 0 {
				t.Errorf("%s: from %s's final: %v re-costed, %v completed, want none", k, finalsSource(w.Set), w.Metrics["warm_recosted"], w.Metrics["warm_completed"])
			}
			if w.Tag == "final" {
				finFromFinal += w.Metrics["iterations"]
				finFromFinalCold += cf.Metrics["iterations"]
			} else {
				selFromC4 += w.Metrics["iterations"]
				selFromC4Cold += cf.Metrics["iterations"]
			}
			continue
		}
		wantRecosted := wantFrom > 0 && w.Tag == "final" && w.Loss == "avg"
		if got := w.Metrics["warm_recosted"]; (got > 0) != wantRecosted || (wantRecosted && got != w.Metrics["warm_planes"]) {
			t.Errorf("%s: %v of %v warm planes re-costed, want all: %v", k, got, w.Metrics["warm_planes"], wantRecosted)
		}
		wantCompleted := w.Metrics["warm_planes"]
		if w.Tag != "final" || w.Metrics["iterations"] <= 1 {
			wantCompleted = 0
		}
		if got := w.Metrics["warm_completed"]; got != wantCompleted {
			t.Errorf("%s: %v planes completed, want %v", k, got, wantCompleted)
		}
		if w.Set != "C0" && w.Set != "QPBO" && wantFrom > 0 && w.Metrics["warm_hard"] == 0 && w.Metrics["hard_active"] > 0 {
			t.Errorf("%s: no warm hard constraints", k)
		}
		if wantFrom > 0 {
			itWarm += w.Metrics["iterations"]
			itCold += cf.Metrics["iterations"]
		}
		if wantRecosted {
			finWarm += w.Metrics["iterations"]
			finCold += cf.Metrics["iterations"]
			recosted += w.Metrics["warm_recosted"]
		}
	}
	t.Logf("fits with a predecessor: %.0f iterations warm, %.0f cold; Δ_avg finals: %.0f warm (%.0f planes re-costed), %.0f cold; finals from C4's final: %.0f warm, %.0f cold; C̄4's selection fits from C4's: %.0f warm, %.0f cold", itWarm, itCold, finWarm, recosted, finCold, finFromFinal, finFromFinalCold, selFromC4, selFromC4Cold)
	if left, _ := os.ReadDir(filepath.Join(dir, "warm")); len(left) != 0 {
		t.Errorf("%d working sets left after the finals, want none", len(left))
	}
}

// withSettings is a segmentation protocol with other settings.
type withSettings struct {
	protocol.Protocol
	s protocol.SegmentationSettings
}

func (c withSettings) Jobs(_ protocol.Profile, rows []grid.Result) ([]grid.Job, error) {
	return protocol.SegmentationJobs(c.Name(), c.s, rows), nil
}

// finalsSource is the set whose final a final of set starts from
// (WarmStarts.Finals as protocol's segmentation experiments set it), or "".
func finalsSource(set string) string {
	if set == "C4bar" || set == "QPBO" {
		return "C4"
	}
	return ""
}

// sourceFinal is the final fit among rows that the final j starts from.
func sourceFinal(rows map[string]grid.Result, s protocol.SegmentationSettings, j grid.Job) (grid.Job, bool) {
	set := finalsSource(j.Set)
	if set == "" || !s.FromC4 {
		return grid.Job{}, false
	}
	for _, r := range rows {
		if r.Tag == "final" && r.Set == set && r.Loss == j.Loss && r.Fold == j.Fold && r.Dataset == j.Dataset {
			return r.Job, true
		}
	}
	return grid.Job{}, false
}
