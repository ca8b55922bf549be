package psub

import "testing"

// BenchmarkSetup measures what a fit pays before its first iteration
// (newTrainer and the instance digests of its working set: validation,
// scale check, CSR layout, hard-constraint pool, fingerprints) and what a
// scoring pays (Evaluate: validation and inference), on one synthetic
// cows-sized fold of 30 images, unprepared (Train, EvaluateWith) and on a
// Prepared set (TrainPrepared, EvaluatePrepared; Prepare itself not
// counted: it is paid once per data set).
func BenchmarkSetup(b *testing.B) {
	train := synthCows(3, 30)
	p, err := Prepare(train, 2)
	if err != nil {
		b.Fatal(err)
	}
	s := Settings{Set: C4{}, Delayed: true, C: 0.1, Workers: 1}
	m, _, err := Train(train, 2, Settings{Set: C4{}, Delayed: true, C: 0.1, Workers: 1, MaxIter: 3})
	if err != nil {
		b.Fatal(err)
	}
	for _, prepared := range []bool{false, true} {
		name := map[bool]string{false: "unprepared", true: "prepared"}[prepared]
		b.Run("train/"+name, func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				var t *trainer
				if prepared {
					t, err = newTrainerOf(p.set, p.labels, p, s)
				} else {
					t, err = newTrainer(train, 2, s)
				}
				if err != nil {
					b.Fatal(err)
				}
				t.digests()
			}
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
		})
		b.Run("evaluate/"+name, func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				if prepared {
					_, err = m.EvaluatePrepared(p, nil)
				} else {
					_, err = m.EvaluateWith(train, nil)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
	b.Run("prepare", func(b *testing.B) {
		cpu0 := cpuSeconds()
		for b.Loop() {
			if _, err := Prepare(train, 2); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	})
}
