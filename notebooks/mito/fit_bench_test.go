package mito

import (
	"context"
	"math"
	"testing"

	"github.com/probably-submodular/crf/internal/cputime"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
)

// BenchmarkSelectionFit is one selection fit of notebook 04's full profile
// as the protocol runs it, but cold (no warm start): C4 on the first half
// of the training volume (~67 000 supervoxels, ~430 000 edges), PyStruct's
// C = 1, Δ_avg, gap 1e-3, inference cache 10, ten hard constraints per
// round, one core. Sub-benchmarks: the training edges' margins read off
// the graph cuts (psub's default) and computed in passes of their own
// (psub.Tuning.MarginPass). It reports the CPU seconds of the fit, its
// iterations, hard constraints introduced, the margins of the passes and
// those read off the cut, and fails when the two primals differ by more
// than the tolerance; sub-benchmark QPBO runs the same fit in the QPBO
// column. Skipped without the EPFL volumes and with -short.
// Run it as
//
//	go test -run XXX -bench SelectionFit -benchtime 1x ./notebooks/mito/
func BenchmarkSelectionFit(b *testing.B) {
	if testing.Short() {
		b.Skip("-short: two fits on the whole mitochondria half volume take minutes and 8 GB")
	}
	m := Experiment{}
	set, folds, err := m.Build(protocol.Full, nil)
	if err != nil {
		b.Skipf("no mitochondria volumes: %v", err)
	}
	s := m.Settings(protocol.Full)
	opt, err := protocol.Options{Profile: protocol.Full, Results: b.TempDir() + "/rows.jsonl"}.WithDefaults(m.Name())
	if err != nil {
		b.Fatal(err)
	}
	primal := map[bool]float64{}
	for _, pass := range []bool{false, true} {
		name := "margins-off-the-cut"
		if pass {
			name = "margin-pass"
		}
		b.Run(name, func(b *testing.B) {
			var res map[string]float64
			cpu := 0.0
			for b.Loop() {
				sel, _, err := s.Experiments(set, folds, opt)
				if err != nil {
					b.Fatal(err)
				}
				sel.Warm, sel.Checkpoints, sel.MarginPass = nil, "", pass
				c0 := cputime.Seconds()
				res, err = sel.Run(context.Background(), grid.Job{Dataset: m.Name(), Set: "C4", Loss: "avg", C: 1, Tag: "select"})
				cpu += cputime.Seconds() - c0
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-s")
			for _, k := range []string{"iterations", "hard_introduced", "margins", "margins_inference"} {
				b.ReportMetric(res[k], k)
			}
			primal[pass] = res["primal"]
		})
	}
	if p, q := primal[false], primal[true]; p != 0 && q != 0 && math.Abs(p-q) > s.Tol*math.Max(p, q) {
		b.Fatalf("primal %v with margins off the cut, %v with passes: beyond the tolerance %g", p, q, s.Tol)
	}
	// The same fit in the QPBO column (no hard constraints; inference whose
	// in-out rounds are bounded by the roof dual, psub.Tuning.Stabilize).
	b.Run("QPBO", func(b *testing.B) {
		var res map[string]float64
		cpu := 0.0
		for b.Loop() {
			sel, _, err := s.Experiments(set, folds, opt)
			if err != nil {
				b.Fatal(err)
			}
			sel.Warm, sel.Checkpoints = nil, ""
			c0 := cputime.Seconds()
			res, err = sel.Run(context.Background(), grid.Job{Dataset: m.Name(), Set: "QPBO", Loss: "avg", C: 1, Tag: "select"})
			cpu += cputime.Seconds() - c0
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(cpu/float64(b.N), "cpu-s")
		for _, k := range []string{"iterations", "primal", "gap", "converged"} {
			b.ReportMetric(res[k], k)
		}
	})
}
