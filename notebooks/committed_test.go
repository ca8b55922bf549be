package notebooks_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	_ "github.com/probably-submodular/crf/notebooks/cows"
	_ "github.com/probably-submodular/crf/notebooks/efficiency"
	"github.com/probably-submodular/crf/notebooks/grid"
	_ "github.com/probably-submodular/crf/notebooks/mito"
	_ "github.com/probably-submodular/crf/notebooks/multilabel"
	"github.com/probably-submodular/crf/notebooks/protocol"
	_ "github.com/probably-submodular/crf/notebooks/retina"
	_ "github.com/probably-submodular/crf/notebooks/samplecomplexity"
	_ "github.com/probably-submodular/crf/notebooks/tradeoff"
	"github.com/probably-submodular/crf/psub"
)

// TestCommittedFullResults checks the raw rows the committed full renders
// come from (notebooks/results/NAME-full.jsonl): every fit the full profile
// lists has a successful row, and none of them stopped at the iteration
// cap. A rerun that leaves a fit capped or a job missing cannot be
// committed without this failing.
func TestCommittedFullResults(t *testing.T) {
	for _, p := range protocol.All() {
		t.Run(p.Name(), func(t *testing.T) {
			file := protocol.DefaultResults(p.Name(), protocol.Full)
			rows, err := grid.ReadResults(file)
			if errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s: no committed results for the full profile", file)
			}
			if err != nil {
				t.Fatal(err)
			}
			var latest []grid.Result // the newest row of each job, in file order
			at := map[string]int{}   // job key → its row in latest
			for _, r := range rows {
				if i, seen := at[r.Key()]; seen {
					latest[i] = r
				} else {
					at[r.Key()] = len(latest)
					latest = append(latest, r)
				}
			}
			jobs, err := p.Jobs(protocol.Full, latest)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) == 0 {
				t.Fatalf("%s: the full profile lists no jobs", p.Name())
			}
			capped := 0
			for _, j := range jobs {
				i, ok := at[j.Key()]
				r := grid.Result{}
				if ok {
					r = latest[i]
				}
				switch {
				case !ok:
					t.Errorf("%s: no row for job %s", file, j.Key())
				case r.Error != "":
					t.Errorf("%s: job %s failed: %s", file, j.Key(), r.Error)
				default:
					if stop, _, ok := grid.StopOf(r.Metrics); ok && stop == psub.StopMaxIter {
						capped++
						t.Errorf("%s: job %s stopped at the iteration cap (%v iterations, gap %v)", file, j.Key(), r.Metrics["iterations"], r.Metrics["gap"])
					}
				}
			}
			t.Logf("%s: %d jobs, each with a row, %d at the cap", file, len(jobs), capped)
		})
	}
}

func TestByName(t *testing.T) {
	for _, p := range protocol.All() {
		got, err := protocol.ByName(p.Name())
		if err != nil || got.Name() != p.Name() {
			t.Errorf("ByName(%q) = %v, %v", p.Name(), got, err)
		}
	}
	if _, err := protocol.ByName("horses?"); err == nil || !strings.Contains(err.Error(), "cows") {
		t.Errorf("ByName of an unknown name: %v, want an error listing the protocols", err)
	}
}
