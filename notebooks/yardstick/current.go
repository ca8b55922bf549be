package yardstick

import (
	"github.com/probably-submodular/crf/data/benchrec"
	"github.com/probably-submodular/crf/notebooks/protocol"

	// The experiments whose full profile makes up the whole paper.
	_ "github.com/probably-submodular/crf/notebooks/cows"
	_ "github.com/probably-submodular/crf/notebooks/efficiency"
	_ "github.com/probably-submodular/crf/notebooks/mito"
	_ "github.com/probably-submodular/crf/notebooks/multilabel"
	_ "github.com/probably-submodular/crf/notebooks/retina"
	_ "github.com/probably-submodular/crf/notebooks/samplecomplexity"
	_ "github.com/probably-submodular/crf/notebooks/tradeoff"
)

// Current is the table of this checkout: the benchmark files under the
// module root and the committed rows of every experiment's full profile.
func Current(root string) ([]Row, JobTime, error) {
	files, _, err := benchrec.ReadAll(root) // Table names a file it needs and lacks
	if err != nil {
		return nil, JobTime{}, err
	}
	job, err := FullJobTime(protocol.All())
	if err != nil {
		return nil, job, err
	}
	rows, err := Table(files, job)
	return rows, job, err
}
