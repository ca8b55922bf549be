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
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	if *modelPath == "" || *dataPath == "" {
		return fs.usageErr("-model and -data are required")
	}
	if err := fs.guard(paths(fileArg("-o", *out)), paths(fileArg("-model", *modelPath), fileArg("-data", *dataPath))); err != nil {
		return err
	}
	if *out != "" {
		if err := safefile.CheckWritable(*out); err != nil {
			return fmt.Errorf("-o %w", err)
		}
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
	start := time.Now()
	ev, err := model.Evaluate(set)
	if err != nil {
		return fmt.Errorf("%s: %w", *dataPath, err)
	}
	res := predictResult{Model: *modelPath, Data: *dataPath, Output: *out, Instances: len(set),
		Nodes: ev.Nodes, Edges: ev.Edges, Truncated: ev.Truncated, Seconds: time.Since(start).Seconds()}
	if ev.Labelled > 0 {
		res.Accuracy, res.ClassAvg = &ev.Accuracy, &ev.ClassAveraged
	}
	if *out != "" {
		// The -o lines are written at the end, atomically.
		var lines bytes.Buffer
		visibleNames(set, *out, stderr)
		for i, p := range ev.Predictions {
			b, err := json.Marshal(predictionLine{Name: set[i].Name, Labels: p.Labels, Truncated: p.Truncated})
			if err != nil {
				return fmt.Errorf("%s: instance %d (%s): %w", *dataPath, i, set[i].Name, err)
			}
			lines.Write(append(b, '\n'))
		}
		if err := safefile.Write(*out, func(w io.Writer) error { _, err := w.Write(lines.Bytes()); return err }); err != nil {
			return err
		}
	}
	return writeJSON(stdout, res)
}
