package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/probably-submodular/crf/internal/safefile"
)

// Record is what scripts/reproduce knows about one notebook's run and the
// executed notebook cannot say: whether it passed, how long it took, and
// where. It sits beside the executed notebook as NAME.run.json.
type Record struct {
	Name     string    `json:"name"`     // NN-name
	Notebook string    `json:"notebook"` // source notebook, notebooks/NN-name.ipynb
	Status   string    `json:"status"`   // "ok", "failed" or "needs-data"
	Seconds  float64   `json:"seconds"`  // wall time of the run
	Profile  string    `json:"profile"`  // profile asked for
	Run      string    `json:"run"`      // shared by the notebooks of one reproduce run
	Finished time.Time `json:"finished"` // UTC
	Commit   string    `json:"commit"`
	Machine  string    `json:"machine"`
	Errors   string    `json:"errors,omitempty"` // what failed, or the data it needs and the command
}

// NeedsDataStatus marks a notebook not run for want of data.
const NeedsDataStatus = "needs-data"

func recordPath(outDir, name string) string {
	return filepath.Join(outDir, "notebooks", name+".run.json")
}

// WriteRecord checks r and writes it atomically.
func WriteRecord(outDir string, r Record) error {
	if r.Status != "ok" && r.Status != "failed" && r.Status != NeedsDataStatus {
		return fmt.Errorf("record %s: status %q, want ok, failed or %s", r.Name, r.Status, NeedsDataStatus)
	}
	if r.Seconds < 0 {
		return fmt.Errorf("record %s: negative run time %g s", r.Name, r.Seconds)
	}
	if r.Profile != "quick" && r.Profile != "full" {
		return fmt.Errorf("record %s: profile %q, want quick or full", r.Name, r.Profile)
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	p := recordPath(outDir, r.Name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return safefile.WriteBytes(p, append(b, '\n'))
}

// ReadRecord reads a record; a missing one is (nil, nil).
func ReadRecord(path string) (*Record, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a run record: %v", path, err)
	}
	return &r, nil
}
