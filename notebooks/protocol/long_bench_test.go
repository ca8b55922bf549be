package protocol_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/internal/cputime"
	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/retina"
)

// longFits are the horses finals BenchmarkHorsesFinal runs: the longest
// final of an earlier full run (QPBO, fold 8: 4 296 iterations), a C4
// final (fold 32: 3 155) and a C3 final (fold 0: 660 iterations; at
// 8416c41 its chain spent 13 % of its CPU forming the border of the
// polish's blocked factor and 17 % in the margins of C3's four rows per
// edge), each at the C its fold selected in the committed rows.
var longFits = []struct {
	set  string
	fold int
}{{"QPBO", 8}, {"C4", 32}, {"C3", 0}}

// BenchmarkHorsesFinal is issue 43's long fit: one final of notebook 03's
// full profile (the horses substitute of §2: 40 training images of ~500
// superpixels, Δ_avg, relative gap 1e-4, at most 5 000 iterations, inference
// cache 10) run as the protocol runs it: SegmentationExperiment.Run of the
// selection fits at every C of the grid up to the final's, each warm started
// from the one before (WarmStarts, in a temporary folder), then the final fit, warm
// started from the selection fit at its C. It reports the CPU seconds of the
// final fit and of the whole chain, the final's iterations and its certified
// primal and gap, and the relative deviation of that primal from the
// committed row of the same fit (notebooks/results/retina-full.jsonl): a
// faster learner must keep it within the tolerance 1e-4, and the benchmark
// fails otherwise. Skipped without the horses. Run it as
//
//	go test -run XXX -bench HorsesFinal -benchtime 1x ./notebooks/protocol/
func BenchmarkHorsesFinal(b *testing.B) {
	r := retina.Experiment{}
	set, err := r.Build(protocol.Full, nil)
	if err != nil {
		b.Skipf("no horses: %v", err)
	}
	folds, err := r.Folds(protocol.Full, set)
	if err != nil {
		b.Fatal(err)
	}
	s := r.Settings(protocol.Full)
	committed, err := grid.ReadResults(filepath.Join("..", "results", "retina-full.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	for _, lf := range longFits {
		b.Run(fmt.Sprintf("%s/fold-%d", lf.set, lf.fold), func(b *testing.B) {
			var row *grid.Result // the committed final of this set and fold
			for i, r := range committed {
				if r.Tag == "final" && r.Set == lf.set && r.Loss == "avg" && r.Fold == lf.fold {
					row = &committed[i]
				}
			}
			if row == nil {
				b.Fatalf("no committed final of %s, fold %d", lf.set, lf.fold)
			}
			var final map[string]float64
			var chain, fin float64
			for b.Loop() {
				e := s.Experiment(r.Name(), set, folds, protocol.Options{Profile: protocol.Full, Results: b.TempDir() + "/rows.jsonl"})
				e.Warm.Dir, e.ModelDir = b.TempDir(), ""
				run := func(j grid.Job) map[string]float64 {
					m, err := e.Run(context.Background(), j)
					if err != nil {
						b.Fatal(err)
					}
					return m
				}
				c0 := cputime.Seconds()
				for _, c := range s.Cs {
					if c <= row.C {
						run(grid.Job{Dataset: r.Name(), Set: lf.set, Loss: "avg", C: c, Fold: lf.fold, Tag: "select"})
					}
				}
				c1 := cputime.Seconds()
				final = run(row.Job)
				fin += cputime.Seconds() - c1
				chain += cputime.Seconds() - c0
			}
			n := float64(b.N)
			b.ReportMetric(fin/n, "final-cpu-s")
			b.ReportMetric(chain/n, "chain-cpu-s")
			b.ReportMetric(final["iterations"], "iterations")
			b.ReportMetric(final["primal"], "primal")
			b.ReportMetric(final["gap"], "gap")
			dev := math.Abs(final["primal"]-row.Metrics["primal"]) / row.Metrics["primal"]
			b.ReportMetric(dev, "primal-dev")
			if !(dev <= s.Tol) {
				b.Errorf("%s: primal %.10g, the committed row's %.10g: relative deviation %.3g above the tolerance %g",
					row.Key(), final["primal"], row.Metrics["primal"], dev, s.Tol)
			}
			if final["converged"] != 1 {
				b.Errorf("not converged: stop %v, gap %v", final["stop"], final["gap"])
			}
		})
	}
}

// BenchmarkCowsChain is issue 43's short fits: notebook 01's selection fits
// on fold 0 of the cows (full profile: Hamming, gap 1e-3, inference cache
// 10) under C0, C4 and C3 at every C of the grid, each set's fits warm
// started from the one before as the protocol runs them
// (SegmentationExperiment.Run, working sets in a temporary folder). Most
// of its fits are short, so it shows what per-fit costs and the inference
// cache's hit rate do (psub.Tuning.Stabilize's in-out rounds). It reports
// the CPU seconds of the chain and its iterations. Skipped without the
// cows. Run it as
//
//	go test -run XXX -bench CowsChain -benchtime 1x ./notebooks/protocol/
func BenchmarkCowsChain(b *testing.B) {
	r := cows.Experiment{}
	set, err := r.Build(protocol.Full, nil)
	if err != nil {
		b.Skipf("no cows: %v", err)
	}
	folds, err := r.Folds(protocol.Full, set)
	if err != nil {
		b.Fatal(err)
	}
	s := r.Settings(protocol.Full)
	for b.Loop() {
		e := s.Experiment(r.Name(), set, folds, protocol.Options{Profile: protocol.Full, Results: b.TempDir() + "/rows.jsonl"})
		e.Warm.Dir, e.ModelDir = b.TempDir(), ""
		its := 0.0
		c0 := cputime.Seconds()
		for _, st := range []string{"C0", "C4", "C3"} {
			for _, c := range s.Cs {
				m, err := e.Run(context.Background(), grid.Job{Dataset: r.Name(), Set: st, Loss: "hamming", C: c, Fold: 0, Tag: "select"})
				if err != nil {
					b.Fatal(err)
				}
				if m["converged"] != 1 {
					b.Errorf("%s C = %g: not converged (stop %v, gap %v)", st, c, m["stop"], m["gap"])
				}
				its += m["iterations"]
			}
		}
		b.ReportMetric(cputime.Seconds()-c0, "cpu-s")
		b.ReportMetric(its, "iterations")
	}
}
