package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/probably-submodular/crf/data"
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
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modelPath := fs.String("model", "", "model written by psub train -o; required")
	dataPath := fs.String("data", "", "graphs to label, JSON Lines (labels optional); required")
	out := fs.String("o", "", "write one JSON line per instance: {name, labels, truncated_edges}")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: psub predict -model model.json -data B.jsonl [-o predictions.jsonl]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (every input is a flag)", fs.Args())
	}
	if *modelPath == "" || *dataPath == "" {
		fs.Usage()
		return errors.New("-model and -data are required")
	}
	model, err := psub.LoadFile(*modelPath)
	if err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
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
	var w *bufio.Writer
	var f *os.File
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
			return err
		}
		defer f.Close() // on error paths; the success path closes and checks
		w = bufio.NewWriter(f)
	}
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
		if w != nil {
			b, _ := json.Marshal(predictionLine{Name: in.Name, Labels: y, Truncated: tr})
			w.Write(append(b, '\n'))
		}
	}
	res.Seconds = time.Since(start).Seconds()
	if labelled {
		acc, avg := conf.Accuracy(), conf.ClassAveraged()
		res.Accuracy, res.ClassAvg = &acc, &avg
	}
	if w != nil {
		if err := w.Flush(); err != nil {
			return fmt.Errorf("%s: %w", *out, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("%s: %w", *out, err)
		}
	}
	return writeJSON(stdout, res)
}
