package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
)

// predictResult is the JSON object printed by "psub predict".
type predictResult struct {
	Model     string   `json:"model"`
	Data      string   `json:"data"`
	Output    string   `json:"output,omitempty"`
	Instances int      `json:"instances"`
	Nodes     int      `json:"nodes"`
	Accuracy  *float64 `json:"accuracy,omitempty"` // when the data has labels
	ClassAvg  *float64 `json:"class_averaged_accuracy,omitempty"`
	// Truncated counts the edges whose learned energy was not submodular
	// and that inference (TGC) therefore truncated.
	Truncated int     `json:"truncated_edges"`
	Edges     int     `json:"edges"`
	Seconds   float64 `json:"seconds"`
}

// predictionLine is one line of the -o file.
type predictionLine struct {
	Name      string `json:"name,omitempty"`
	Labels    []int  `json:"labels"`
	Truncated int    `json:"truncated_edges"`
}

func runPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", "psub predict -model model.json -data B.jsonl [-o predictions.jsonl]", stdout)
	modelPath := fs.String("model", "", "model written by psub train -o; required")
	dataPath := fs.String("data", "", "graphs to label, JSON Lines (format: data/FORMATS.md; labels optional); required")
	out := fs.String("o", "", "write one JSON line per instance: {name, labels, truncated_edges}")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := fs.noArgs(); err != nil {
		return err
	}
	if *modelPath == "" || *dataPath == "" {
		return fs.usageErr("-model and -data are required")
	}
	model, err := psub.LoadFile(*modelPath)
	if err != nil {
		return err // names the file
	}
	set, err := data.ReadJSONLFile(*dataPath, model.Labels)
	if err != nil {
		return err
	}
	du, dp, _ := psub.ValidateSet(set, model.Labels)
	if du != model.UnaryDim || (dp != model.PairwiseDim && dp != 0) {
		return fmt.Errorf("%s: feature dimensions %d/%d (unary/pairwise), the model %s expects %d/%d",
			*dataPath, du, dp, *modelPath, model.UnaryDim, model.PairwiseDim)
	}
	// The -o lines are kept in memory (a few bytes per node) and written
	// at the end, atomically.
	var lines bytes.Buffer
	start := time.Now()
	res := predictResult{Model: *modelPath, Data: *dataPath, Output: *out, Instances: len(set)}
	conf := feature.NewConfusion(model.Labels)
	labelled := false
	for i := range set {
		in := &set[i]
		y, tr, err := model.Predict(in)
		if err != nil {
			return fmt.Errorf("%s: instance %d (%s): %w", *dataPath, i, in.Name, err)
		}
		res.Nodes += in.Nodes()
		res.Edges += len(in.Edges)
		res.Truncated += tr
		if in.Labels != nil {
			labelled = true
			if err := conf.AddLabels(in.Labels, y); err != nil {
				return fmt.Errorf("%s: instance %d (%s): %w", *dataPath, i, in.Name, err)
			}
		}
		if *out != "" {
			b, err := json.Marshal(predictionLine{Name: in.Name, Labels: y, Truncated: tr})
			if err != nil {
				return fmt.Errorf("%s: instance %d (%s): %w", *dataPath, i, in.Name, err)
			}
			lines.Write(append(b, '\n'))
		}
	}
	res.Seconds = time.Since(start).Seconds()
	if labelled {
		acc, avg := conf.Accuracy(), conf.ClassAveraged()
		res.Accuracy, res.ClassAvg = &acc, &avg
	}
	if *out != "" {
		if err := safefile.Write(*out, func(w io.Writer) error { _, err := w.Write(lines.Bytes()); return err }); err != nil {
			return err
		}
	}
	return writeJSON(stdout, res)
}
