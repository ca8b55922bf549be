package main

import (
	"io"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/psub"
)

// modelResult is the JSON object printed by "psub model".
type modelResult struct {
	Model    string `json:"model"`
	Kind     string `json:"kind"` // "model" (psub train) or "segmenter" (psub segment train)
	Labels   int    `json:"labels"`
	Dim      int    `json:"dim"`
	Set      string `json:"set"`
	Resealed bool   `json:"resealed"`
}

// runModel checks a model file or a segmenter file (its seal included) and, with -reseal,
// seals it again as it now reads: the way to accept a deliberate edit.
func runModel(args []string, stdout, _ io.Writer) error {
	fs := newFlags("model", "psub model [-reseal] model.json", stdout)
	reseal := fs.Bool("reseal", false, "seal the file again as it now reads (accepts a deliberate edit; seals a version 1 file)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageErr("want one model file, got %d arguments", fs.NArg())
	}
	path := fs.Arg(0)
	if b, err := membudget.ReadFile(path); err == nil && data.IsSegmenterFile(b) {
		// A file of psub segment train: the pipeline is sealed with the CRF.
		if *reseal {
			if err := data.ResealSegmenterFile(path); err != nil {
				return err
			}
		}
		s, err := data.LoadSegmenter(path)
		if err != nil {
			return err
		}
		return writeJSON(stdout, modelResult{Model: path, Kind: "segmenter", Labels: s.CRF.Labels, Dim: s.CRF.Dim(), Set: s.CRF.Set, Resealed: *reseal})
	}
	if *reseal {
		if err := psub.ResealFile(path); err != nil {
			return err
		}
	}
	m, err := psub.LoadFile(path)
	if err != nil {
		return err
	}
	return writeJSON(stdout, modelResult{Model: path, Kind: "model", Labels: m.Labels, Dim: m.Dim(), Set: m.Set, Resealed: *reseal})
}
