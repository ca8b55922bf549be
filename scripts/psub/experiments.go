package main

// The experiments register their protocols (protocol.All) when imported.
import (
	_ "github.com/probably-submodular/crf/notebooks/cows"
	_ "github.com/probably-submodular/crf/notebooks/efficiency"
	_ "github.com/probably-submodular/crf/notebooks/mito"
	_ "github.com/probably-submodular/crf/notebooks/multilabel"
	_ "github.com/probably-submodular/crf/notebooks/retina"
	_ "github.com/probably-submodular/crf/notebooks/samplecomplexity"
	_ "github.com/probably-submodular/crf/notebooks/tradeoff"
)
