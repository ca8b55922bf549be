package tradeoff

import (
	"testing"
	"time"

	"github.com/probably-submodular/crf/internal/cputime"
)

// BenchmarkLiveRefit times one re-fit of the live controls (Live.Refit: the
// training and every measurement the drawing shows) for every entry, at the
// controls' default position (C = 1, 4 training graphs, edge noise 0.3) and
// at their heaviest (C = 100, 8 training graphs). The problem is generated
// before the timer starts, as the controls keep it. Beside ns/op it reports
// cpu-ns/op (user+system CPU of the process; the machine is shared) and
// max-ms, the slowest single re-fit.
//
//	go test -run XXX -bench LiveRefit ./data/
func BenchmarkLiveRefit(b *testing.B) {
	l, err := NewLive(LiveOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, at := range []struct {
		name string
		s    LiveSettings
	}{
		{"default", DefaultLiveSettings()},
		{"heavy", LiveSettings{C: 100, Train: 8, EdgeNoise: 0.3}},
	} {
		for _, e := range LiveEntries() {
			s := at.s
			s.Entry = e
			b.Run(e+"/"+at.name, func(b *testing.B) {
				if _, err := l.Problem(s.EdgeNoise); err != nil {
					b.Fatal(err)
				}
				var slowest time.Duration
				cpu0, _ := cputime.Process()
				for b.Loop() {
					t0 := time.Now()
					if _, err := l.Refit(s); err != nil {
						b.Fatal(err)
					}
					slowest = max(slowest, time.Since(t0))
				}
				cpu1, _ := cputime.Process()
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms")
			})
		}
	}
}
